// PCRE patterns, as the Core Rule Set writes them, rewritten for V8's RegExp: `(?i)` and `(?i:…)`
// (which V8 does not take) become explicit case classes (`[sS][eE][lL]…`), possessive quantifiers
// and atomic groups their plain forms (which match at least as much), `\z`/`\Z`/`\A` anchors, a
// leading `]` in a class escaped, POSIX classes spelled out. Case classes rather than the `i` flag
// keep a pattern within what V8's linear-time engine handles, so that it can take over from
// backtracking (regex.ts).

const posixClasses: Record<string, string> = {
  alpha: 'a-zA-Z',
  digit: '0-9',
  alnum: 'a-zA-Z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \\t\\n\\r\\f\\v',
  xdigit: '0-9a-fA-F',
  punct: '!-\\/:-@\\[-`{-~',
  word: '\\w',
};

const isLower = (c: string): boolean => c >= 'a' && c <= 'z';
const isUpper = (c: string): boolean => c >= 'A' && c <= 'Z';
const otherCase = (c: string): string => (isLower(c) ? c.toUpperCase() : c.toLowerCase());

/** The other-case counterpart of the range lo–hi (inclusive), as class items. */
function foldedRange(lo: number, hi: number): string {
  let out = '';
  const add = (from: number, to: number, shift: number) => {
    const a = Math.max(lo, from);
    const b = Math.min(hi, to);
    if (a <= b) out += `${String.fromCharCode(a + shift)}-${String.fromCharCode(b + shift)}`;
  };
  add(0x61, 0x7a, -0x20);
  add(0x41, 0x5a, 0x20);
  return out;
}

/** Escapes a character for use inside a class or as a literal. */
const literal = (c: string): string => (/[\\\][^$.|?*+(){}\-/]/.test(c) ? `\\${c}` : c);

export class PcreError extends Error {}

/** Translates one class starting at `[` (pattern[i]); returns its JS text and the index after it. */
function translateClass(p: string, start: number, caseless: boolean): [string, number] {
  let i = start + 1;
  let out = '[';
  if (p[i] === '^') {
    out += '^';
    i++;
  }
  let first = true;
  let folded = '';
  /** The last single character written (for a range), -1 when the last item was not one. */
  let last = -1;
  while (i < p.length && (p[i] !== ']' || first)) {
    first = false;
    const c = p[i] ?? '';
    if (c === '[' && p[i + 1] === ':') {
      const end = p.indexOf(':]', i + 2);
      const name = end < 0 ? '' : p.slice(i + 2, end);
      const spelled = posixClasses[name];
      if (spelled === undefined) throw new PcreError(`unknown POSIX class [:${name}:]`);
      out += spelled;
      i = end + 2;
      last = -1;
      continue;
    }
    if (c === '-' && last >= 0 && p[i + 1] !== ']' && i + 1 < p.length) {
      // A range: its end is the next character (an escaped one included).
      let hiText = p[i + 1] ?? '';
      let hi = hiText.charCodeAt(0);
      let next = i + 2;
      if (hiText === '\\') {
        const esc = /^\\(?:x([0-9a-fA-F]{2})|x\{([0-9a-fA-F]+)\}|([^a-zA-Z0-9]))/.exec(p.slice(i + 1, i + 10));
        if (esc === null) throw new PcreError('unsupported range end');
        hi = esc[3] !== undefined ? esc[3].charCodeAt(0) : parseInt(esc[1] ?? esc[2] ?? '0', 16);
        hiText = esc[0];
        next = i + 1 + esc[0].length;
      } else hiText = literal(hiText);
      out += `-${hiText}`;
      if (caseless) folded += foldedRange(last, hi);
      i = next;
      last = -1;
      continue;
    }
    if (c === '\\') {
      const rest = p.slice(i, i + 12);
      const hex = /^\\x(?:([0-9a-fA-F]{2})|\{([0-9a-fA-F]{1,4})\})/.exec(rest);
      if (hex !== null) {
        const code = parseInt(hex[1] ?? hex[2] ?? '0', 16);
        out += `\\x${code.toString(16).padStart(2, '0')}`.replace(/^\\x(.{3,})$/, '\\u$1');
        if (code > 0xff) throw new PcreError('code point beyond a byte in a class');
        last = code;
        if (caseless) folded += foldedRange(code, code);
        i += hex[0].length;
        continue;
      }
      const e = p[i + 1] ?? '';
      if (e === 'h') out += ' \\t';
      else if (e === 'e') out += '\\x1b';
      else if (/[a-zA-Z0-9]/.test(e)) out += `\\${e}`;
      else out += literal(e);
      last = /[a-zA-Z0-9]/.test(e) ? (e === 'n' ? 10 : e === 't' ? 9 : e === 'r' ? 13 : -1) : e.charCodeAt(0);
      i += 2;
      continue;
    }
    out += literal(c);
    last = c.charCodeAt(0);
    if (caseless && (isLower(c) || isUpper(c))) folded += otherCase(c);
    i++;
  }
  if (i >= p.length) throw new PcreError('unterminated class');
  return [`${out}${folded}]`, i + 1];
}

interface Group {
  caseless: boolean;
}

/** The V8 source of a PCRE pattern; throws PcreError for what it cannot translate. */
export function pcreToJs(pattern: string): string {
  let out = '';
  const groups: Group[] = [];
  let caseless = false;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i] ?? '';
    if (c === '(') {
      const rest = pattern.slice(i, i + 5);
      groups.push({ caseless });
      if (rest.startsWith('(?i)')) {
        groups.pop();
        caseless = true;
        i += 4;
      } else if (rest.startsWith('(?i:')) {
        caseless = true;
        out += '(?:';
        i += 4;
      } else if (rest.startsWith('(?-i:')) {
        caseless = false;
        out += '(?:';
        i += 5;
      } else if (rest.startsWith('(?>')) {
        out += '(?:';
        i += 3;
      } else if (rest.startsWith('(?P<')) {
        out += '(?<';
        i += 4;
      } else if (/^\(\?(?:[:=!]|<[=!]|<[a-zA-Z])/.test(rest) || !rest.startsWith('(?')) {
        out += '(';
        i += 1;
      } else throw new PcreError(`unsupported group ${rest}`);
      continue;
    }
    if (c === ')') {
      const group = groups.pop();
      if (group === undefined) throw new PcreError('unbalanced )');
      caseless = group.caseless;
      out += ')';
      i++;
    } else if (c === '[') {
      const [text, next] = translateClass(pattern, i, caseless);
      out += text;
      i = next;
    } else if (c === '\\') {
      const e = pattern[i + 1] ?? '';
      if (e === 'z' || e === 'Z') out += '$';
      else if (e === 'A') out += '^';
      else if (e === 'e') out += '\\x1b';
      else if (e === 'h') out += '[ \\t]';
      else if (e === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const quoted = pattern.slice(i + 2, end < 0 ? pattern.length : end);
        for (const q of quoted) out += caseless && (isLower(q) || isUpper(q)) ? `[${q}${otherCase(q)}]` : literal(q);
        i = end < 0 ? pattern.length : end + 2;
        continue;
      } else if (e === 'x' && pattern[i + 2] === '{') {
        const end = pattern.indexOf('}', i);
        const code = parseInt(pattern.slice(i + 3, end), 16);
        if (!(code >= 0 && code <= 0xff)) throw new PcreError('code point beyond a byte');
        out += `\\x${code.toString(16).padStart(2, '0')}`;
        i = end + 1;
        continue;
      } else if (e === 'x') {
        // `\xHH`, up to two hex digits (PCRE): written whole, so that `(?i)` does not take its digits for letters.
        const hex = /^[0-9a-fA-F]{0,2}/.exec(pattern.slice(i + 2, i + 4))?.[0] ?? '';
        out += `\\x${parseInt(hex === '' ? '0' : hex, 16).toString(16).padStart(2, '0')}`;
        i += 2 + hex.length;
        continue;
      } else if (/[a-zA-Z0-9]/.test(e)) out += `\\${e}`;
      else out += literal(e);
      i += 2;
    } else if (c === '+' && /[*+?}]/.test(pattern[i - 1] ?? '') && pattern[i - 2] !== '\\') {
      // A possessive quantifier's `+`: plain greedy instead.
      i++;
    } else if (caseless && (isLower(c) || isUpper(c))) {
      out += `[${c}${otherCase(c)}]`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  if (groups.length > 0) throw new PcreError('unbalanced (');
  return out;
}
