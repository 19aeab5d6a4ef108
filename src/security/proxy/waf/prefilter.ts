// Which rules could match a value at all, found before they run. A rule whose operator needs one
// of a set of literals (required-literals.ts: a regex's, @pm's phrases) and that reads only the
// request's own variables gets a bit; when a value is first run by the rules reading it
// (rule-hits.ts), it goes through each of their transformation chains once and then through one
// scan for all their literals (literal-scanner.ts). A rule whose literals are not in the value
// cannot match it, and its operator does not run. On benign traffic that is nearly every rule:
// without this, each of the Core Rule Set's ~200 request rules ran its regex over every value it
// reads, ten times the proxy's own cost per request (bench/waf).
//
// The check is a superset: it may say "could match" of a rule that then does not; never the other
// way round.
import { LiteralScanner, type Bits } from './literal-scanner.ts';
import { engineCollections } from './request-fields.ts';
import type { Rule, Target } from './rule-set.ts';
import type { TransformChains } from './transform-chains.ts';

/** The values of one target, and through which transformation chains which rules read them. */
export interface PrefilterGroup {
  /** Where a value's memo keeps what this group's rules found in it (value-memo.ts); unique across paranoia levels. */
  slot: number;
  target: Target;
  chains: {
    /** The chain's node in the rule set's TransformChains. */
    node: number;
    /** The prefiltered rules reading the target through that chain. */
    rules: Bits;
  }[];
}

/** Literals the scanner can look for: byte strings (the values it scans are). */
function bytes(literals: string[]): boolean {
  for (const literal of literals) for (let i = 0; i < literal.length; i++) if (literal.charCodeAt(i) > 0xff) return false;
  return true;
}

function prefilterable(rule: Rule): rule is Rule & { literals: string[] } {
  return (
    rule.literals !== undefined &&
    bytes(rule.literals) &&
    !rule.negated &&
    rule.targets.length > 0 &&
    rule.targets.every((t) => !t.count && !engineCollections.has(t.collection))
  );
}

/** A target as text: rules naming one variable in different ways (`User-Agent`, `user-agent`) read the same values. */
export const targetKey = (t: Target): string => `${t.collection}:${t.selector === undefined ? '' : typeof t.selector === 'string' ? `=${t.selector}` : `/${t.selector.source}`}`;

/** The paranoia level a rule belongs to, as CRS tags it (`paranoia-level/2`); untagged rules run at every level. */
export function levelOf(rule: Rule): number {
  for (const tag of rule.tags) {
    const m = /^paranoia-level\/(\d)$/.exec(tag);
    if (m !== null) return Number(m[1]);
  }
  return 1;
}

interface Reader {
  node: number;
  bit: number;
  level: number;
}

export class Prefilter {
  readonly scanner: LiteralScanner;
  /** The prefiltered rules, by bit. */
  readonly rules: Rule[] = [];
  /** Each target the prefiltered rules read, with who reads it through which chain. */
  readonly #readers = new Map<string, { target: Target; readers: Reader[] }>();
  /** The groups with the rules that run at each paranoia level (1-4). */
  readonly #atLevel = new Map<number, PrefilterGroup[]>();
  #slots = 0;

  /** `rules`: the chains' heads (a chain cannot match unless its head does); gives each prefilterable one its bit. */
  constructor(rules: readonly Rule[], chains: TransformChains) {
    const literals: string[][] = [];
    for (const rule of rules) {
      if (!prefilterable(rule)) continue;
      const bit = literals.push(rule.literals) - 1;
      rule.prefilterBit = bit;
      this.rules.push(rule);
      const level = levelOf(rule);
      // multiMatch: the operator sees the value as it is and after each transformation.
      const nodes = rule.multiMatch ? chains.path(rule.transformNode) : [rule.transformNode];
      for (const target of rule.targets) {
        const key = targetKey(target);
        let entry = this.#readers.get(key);
        if (entry === undefined) {
          entry = { target, readers: [] };
          this.#readers.set(key, entry);
        }
        for (const node of nodes) entry.readers.push({ node, bit, level });
      }
    }
    this.scanner = new LiteralScanner(literals);
  }

  /** The groups to scan at a paranoia level: rules above it are skipped by the rule set itself, so their values need no scan. */
  groups(paranoia: number): PrefilterGroup[] {
    let groups = this.#atLevel.get(paranoia);
    if (groups === undefined) {
      groups = [];
      for (const { target, readers } of this.#readers.values()) {
        const byNode = new Map<number, Bits>();
        for (const { node, bit, level } of readers) {
          if (level > paranoia) continue;
          let mask = byNode.get(node);
          if (mask === undefined) {
            mask = new Uint32Array(this.scanner.words);
            byNode.set(node, mask);
          }
          mask[bit >>> 5] = (mask[bit >>> 5] ?? 0) | (1 << (bit & 31));
        }
        if (byNode.size > 0) groups.push({ slot: this.#slots++, target, chains: [...byNode].map(([node, rules]) => ({ node, rules })) });
      }
      this.#atLevel.set(paranoia, groups);
    }
    return groups;
  }
}

export const hasBit = (bits: Bits, bit: number): boolean => (((bits[bit >>> 5] ?? 0) >>> (bit & 31)) & 1) === 1;
