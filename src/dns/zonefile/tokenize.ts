// Lexer for BIND master files (RFC 1035 §5.1): splits the text into entries (one per logical line,
// parentheses joining physical lines) of tokens, with comments dropped and escapes resolved.
//
// Token values are "binary strings": every character is one octet (char code 0-255). `\DDD` gives
// the octet DDD, and characters outside ASCII written literally in the file are replaced by their
// UTF-8 octets, so a TXT value is a plain octet sequence whichever way it was written, and
// `Buffer.from(value, 'latin1')` recovers the octets (and `.toString('utf8')` the text).
import type { ZoneToken } from '../rrtypes/record-type.ts';

export interface LexedToken extends ZoneToken {
  /** The token used a backslash escape: a name written so cannot be split on dots safely. */
  escaped: boolean;
}

export interface LexedEntry {
  /** Line where the entry starts (1-based). */
  line: number;
  /** The entry starts with whitespace, so its owner is the previous entry's (RFC 1035 §5.1). */
  blankOwner: boolean;
  tokens: LexedToken[];
  /**
   * A lexical error cut the entry short (reported in `errors`). It is kept so the parser knows an
   * owner was lost and does not let the next blank-owner lines inherit an older one.
   */
  broken: boolean;
}

export interface ZoneFileError {
  line: number;
  message: string;
}

export interface TokenizedZone {
  entries: LexedEntry[];
  errors: ZoneFileError[];
  /** Reading stopped because there were more than `maxEntries` entries. */
  tooManyEntries: boolean;
}

const unquotedEnd = new Set([' ', '\t', '\r', '\n', ';', '(', ')', '"']);

export function tokenizeZoneFile(text: string, maxEntries = Number.POSITIVE_INFINITY): TokenizedZone {
  const source = Buffer.from(text.startsWith('\uFEFF') ? text.slice(1) : text, 'utf8').toString('latin1');
  const entries: LexedEntry[] = [];
  const errors: ZoneFileError[] = [];
  let tooManyEntries = false;
  let position = 0;
  let line = 1;
  let atLineStart = true;
  let entryLine = 1;
  let entryBlankOwner = false;
  let depth = 0;
  let parenLine = 0;
  let entry: LexedEntry | undefined;

  const currentEntry = (): LexedEntry => {
    entry ??= { line: entryLine, blankOwner: entryBlankOwner, tokens: [], broken: false };
    return entry;
  };

  const finishEntry = (): void => {
    if (entry === undefined) return;
    if (entries.length >= maxEntries) {
      tooManyEntries = true;
      position = source.length;
    } else {
      entries.push(entry);
    }
    entry = undefined;
  };

  // Reports the error, marks the entry broken and drops the rest of the physical line (parentheses
  // included), so reading resumes with the next line as a new entry.
  const fail = (atLine: number, message: string, from: number): void => {
    errors.push({ line: atLine, message });
    currentEntry().broken = true;
    depth = 0;
    const newline = source.indexOf('\n', from);
    position = newline === -1 ? source.length : newline;
  };

  // Reads one token starting at `position` (at its opening quote when quoted).
  const readToken = (quoted: boolean): void => {
    const startLine = line;
    let at = quoted ? position + 1 : position;
    let value = '';
    let runStart = at;
    let escaped = false;
    for (;;) {
      const char = source[at];
      if (char === undefined) {
        if (quoted) return fail(startLine, 'unterminated quoted string', at);
        break;
      }
      if (quoted ? char === '"' : unquotedEnd.has(char)) break;
      if (quoted && char === '\n') return fail(startLine, 'unterminated quoted string', at);
      if (char !== '\\') {
        at += 1;
        continue;
      }
      value += source.slice(runStart, at);
      escaped = true;
      const next = source[at + 1];
      if (next === undefined) return fail(line, 'the file ends with a lone "\\"', at);
      if (next >= '0' && next <= '9') {
        const digits = source.slice(at + 1, at + 4);
        if (!/^\d{3}$/.test(digits)) return fail(line, `escape "\\${digits}" needs three decimal digits`, at);
        const octet = Number(digits);
        if (octet > 255) return fail(line, `escape "\\${digits}" is above 255`, at);
        value += String.fromCharCode(octet);
        at += 4;
      } else {
        if (next === '\n') line += 1;
        value += next;
        at += 2;
      }
      runStart = at;
    }
    value += source.slice(runStart, at);
    currentEntry().tokens.push({ value, quoted, escaped });
    position = quoted ? at + 1 : at;
  };

  while (position < source.length) {
    const char = source.charAt(position);
    if (atLineStart) {
      atLineStart = false;
      if (depth === 0) {
        entryLine = line;
        entryBlankOwner = char === ' ' || char === '\t';
      }
    }
    if (char === '\n') {
      position += 1;
      line += 1;
      atLineStart = true;
      if (depth === 0) finishEntry();
    } else if (char === ' ' || char === '\t' || char === '\r') {
      position += 1;
    } else if (char === ';') {
      const newline = source.indexOf('\n', position);
      position = newline === -1 ? source.length : newline;
    } else if (char === '(') {
      if (depth === 0) parenLine = line;
      depth += 1;
      position += 1;
    } else if (char === ')') {
      if (depth === 0) {
        fail(line, 'unbalanced ")"', position);
      } else {
        depth -= 1;
        position += 1;
      }
    } else {
      readToken(char === '"');
    }
  }
  if (depth > 0) {
    errors.push({ line: parenLine, message: 'unbalanced "(": it is never closed' });
    currentEntry().broken = true;
  }
  finishEntry();
  return { entries, errors, tooManyEntries };
}
