// What a regex cannot match without: a set of literal strings, one of which every match contains
// (compared case-insensitively, ASCII letters folded). The WAF's prefilter (prefilter.ts) looks for
// all rules' literals in one pass over a value and runs a rule's regex only when one of its literals
// is there, so that the hundreds of Core Rule Set patterns cost benign traffic one scan, not one
// regex each. The set is a necessary condition only: a value holding a literal may still not match.
//
// Built from the pattern's syntax tree (as RE2's and Hyperscan's prefilters are): each part of the
// pattern is either a small set of exact strings it matches, or carries the literals required of
// it; a sequence keeps the rarest requirement of its parts, an alternation the union of its
// branches'. Parsed with @eslint-community/regexpp, the parser ESLint checks regexes with.
import { RegExpParser, type AST } from '@eslint-community/regexpp';

interface Info {
  /** Every string this part can match, folded to lower case; undefined when too many. */
  exact: string[] | undefined;
  /** Literals one of which every match of this part contains; undefined when nothing is required. */
  required: string[] | undefined;
}

/** Past this many exact strings a part is described by what it requires instead. */
const maxExact = 64;
/** Past this many, a requirement is too broad to look for. */
const maxRequired = 256;
/** A single character class of up to this many characters (case folded) counts as exact. */
const maxClass = 4;

const fold = (c: number): number => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c);

const unique = (strings: string[]): string[] => [...new Set(strings)];

/**
 * How often a literal would turn up by chance at one place of an ordinary value: letters and digits
 * are common, the separators of URLs and prose less so, the rest of punctuation rare. A rough guide
 * to choose among requirements.
 */
function chance(literal: string): number {
  let p = 1;
  for (let i = 0; i < literal.length; i++) {
    const c = literal.charCodeAt(i);
    if (c >= 0x61 && c <= 0x7a) p *= 0.12;
    else if (c >= 0x30 && c <= 0x39) p *= 0.06;
    else if (c === 0x20) p *= 0.1;
    else if ('./-_:,=()'.includes(literal.charAt(i))) p *= 0.03;
    else p *= 0.003;
  }
  return p;
}

const cost = (set: string[] | undefined): number => (set === undefined ? Infinity : set.reduce((sum, s) => sum + chance(s), 0));

/** A requirement that holds for nothing (an empty string in it) is no requirement. */
const requirement = (set: string[] | undefined): string[] | undefined =>
  set === undefined || set.length === 0 || set.length > maxRequired || set.includes('') ? undefined : set;

const rarer = (a: string[] | undefined, b: string[] | undefined): string[] | undefined => {
  const ra = requirement(a);
  const rb = requirement(b);
  return cost(rb) < cost(ra) ? rb : ra;
};

function product(a: string[], b: string[]): string[] | undefined {
  if (a.length * b.length > maxExact) return undefined;
  const out: string[] = [];
  for (const x of a) for (const y of b) out.push(x + y);
  return unique(out);
}

const exactly = (strings: string[]): Info => ({ exact: strings, required: requirement(strings) });
const anything: Info = { exact: undefined, required: undefined };
const empty: Info = { exact: [''], required: undefined };

/** The characters a class matches, folded; undefined when more than maxClass. */
function classChars(node: AST.CharacterClass): string[] | undefined {
  if (node.negate) return undefined;
  const chars = new Set<number>();
  for (const element of node.elements) {
    if (element.type === 'Character') chars.add(fold(element.value));
    else if (element.type === 'CharacterClassRange') {
      if (element.max.value - element.min.value > 2 * maxClass) return undefined;
      for (let c = element.min.value; c <= element.max.value; c++) chars.add(fold(c));
    } else return undefined;
    if (chars.size > maxClass) return undefined;
  }
  return [...chars].map((c) => String.fromCharCode(c));
}

function sequence(elements: AST.Element[]): Info {
  // `whole`: the exact strings of all elements so far; `run`: of the elements since the last one
  // that was not exact; `required`: the rarest requirement met before that run.
  let whole: string[] | undefined = [''];
  let run: string[] = [''];
  let required: string[] | undefined;
  for (const element of elements) {
    const info = infoOf(element);
    whole = whole !== undefined && info.exact !== undefined ? product(whole, info.exact) : undefined;
    const extended = info.exact === undefined ? undefined : product(run, info.exact);
    if (extended !== undefined) {
      run = extended;
      continue;
    }
    required = rarer(rarer(required, run), info.required);
    run = info.exact ?? [''];
  }
  if (whole !== undefined) return exactly(whole);
  return { exact: undefined, required: rarer(required, run) };
}

function alternation(alternatives: AST.Alternative[]): Info {
  const infos = alternatives.map((a) => sequence(a.elements));
  let exact: string[] | undefined = [];
  let required: string[] | undefined = [];
  for (const info of infos) {
    exact = exact !== undefined && info.exact !== undefined ? unique([...exact, ...info.exact]) : undefined;
    if (exact !== undefined && exact.length > maxExact) exact = undefined;
    const own = requirement(info.exact) ?? info.required;
    required = required !== undefined && own !== undefined ? unique([...required, ...own]) : undefined;
  }
  if (exact !== undefined) return exactly(exact);
  return { exact: undefined, required: requirement(required) };
}

function infoOf(node: AST.Element): Info {
  switch (node.type) {
    case 'Character':
      return exactly([String.fromCharCode(fold(node.value))]);
    case 'CharacterClass': {
      const chars = classChars(node);
      return chars === undefined ? anything : exactly(chars);
    }
    case 'Group':
    case 'CapturingGroup':
      return alternation(node.alternatives);
    case 'Quantifier': {
      const inner = infoOf(node.element);
      if (node.min === 0) {
        return node.max === 1 && inner.exact !== undefined ? { exact: unique(['', ...inner.exact]), required: undefined } : anything;
      }
      let exact: string[] | undefined;
      if (node.min === node.max && node.min <= 4 && inner.exact !== undefined) {
        exact = [''];
        for (let i = 0; i < node.min && exact !== undefined; i++) exact = product(exact, inner.exact);
      }
      return exact !== undefined ? exactly(exact) : { exact: undefined, required: requirement(inner.exact) ?? inner.required };
    }
    case 'Assertion':
      // Anchors, word boundaries and lookarounds match no characters of their own.
      return empty;
    default:
      // Backreferences, `.`, \w, \d, \s and other sets: anything.
      return anything;
  }
}

/** A requirement worth looking for: absent from most ordinary values (single letters are not). */
const maxChance = 0.05;

/**
 * The literals (lower case) one of which any match of the JS pattern `source` contains; undefined
 * when there is no useful set (the pattern can match without any, or its literals are too common).
 */
export function requiredLiterals(source: string): string[] | undefined {
  let pattern: AST.Pattern;
  try {
    pattern = new RegExpParser({ ecmaVersion: 2025 }).parsePattern(source, 0, source.length, { unicode: false, unicodeSets: false });
  } catch {
    return undefined;
  }
  const info = alternation(pattern.alternatives);
  const set = requirement(info.exact) ?? info.required;
  return set !== undefined && cost(set) <= maxChance ? set : undefined;
}
