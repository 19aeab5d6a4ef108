// SecLang's operators (`@rx`, `@pm`, `@within`, ...) compiled once per rule. An operator's argument
// may hold macros (`%{tx.paranoia_level}`): those are expanded per request. A match returns what
// `capture` keeps (TX:0 the matched text, then the regex's groups); no match returns undefined.
import { BlockList, isIP } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { detectHtmlInjection } from './html-injection.ts';
import { PhraseMatcher } from './phrase-match.ts';
import { pcreToJs } from './pcre.ts';
import { compileRegex } from './regex.ts';
import { requiredLiterals } from './required-literals.ts';
import { detectSqlInjection } from './sql-injection.ts';

/** Expands the macros of an operator's argument for one request. */
export type Expand = (text: string) => string;
export type Operator = (value: string, expand: Expand) => string[] | undefined;

/** An operator the engine does not implement: its rules are skipped (and counted at start). */
export class UnsupportedOperator extends Error {}

const hasMacro = (arg: string): boolean => arg.includes('%{');

/** A comparison whose argument may be a macro: expanded per request only when it is one. */
function withArg(arg: string, test: (value: string, arg: string) => boolean): Operator {
  if (hasMacro(arg)) return (value, expand) => (test(value, expand(arg)) ? [value] : undefined);
  return (value) => (test(value, arg) ? [value] : undefined);
}

/** ModSecurity's numbers: a leading integer, 0 when there is none. */
const integer = (text: string): number => {
  const n = parseInt(text, 10);
  return Number.isNaN(n) ? 0 : n;
};

function byteRanges(arg: string): Uint8Array {
  const allowed = new Uint8Array(256);
  for (const part of arg.split(/[\s,]+/)) {
    if (part === '') continue;
    const [lo, hi] = part.split('-').map(Number);
    for (let c = lo ?? 0; c <= (hi ?? lo ?? 0) && c < 256; c++) allowed[c] = 1;
  }
  return allowed;
}

function invalidUrlEncoding(value: string): boolean {
  for (let i = value.indexOf('%'); i >= 0; i = value.indexOf('%', i + 1)) {
    if (!/^[0-9a-fA-F]{2}$/.test(value.slice(i + 1, i + 3))) return true;
  }
  return false;
}

/** Whether a byte string is not well-formed UTF-8 (overlong forms and surrogates included). */
function invalidUtf8(value: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(value)) return false;
  const bytes = Buffer.from(value, 'latin1');
  return Buffer.compare(Buffer.from(bytes.toString('utf8'), 'utf8'), bytes) !== 0;
}

function addressList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (isIP(address) === 0) continue;
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return list;
}

/** Phrases of a data file: one a line, `#` comments and blank lines left out. */
function phrasesOf(file: string): string[] {
  return fs
    .readFileSync(file, 'latin1')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The phrases of @pm (its argument) and @pmFromFile (the files its argument names). */
function phrasesOfOperator(name: string, arg: string, dataDir: string): string[] {
  return name === 'pm' ? arg.split(/\s+/) : arg.split(/\s+/).flatMap((file) => phrasesOf(path.resolve(dataDir, file)));
}

/** ASCII letters to lower case, other bytes as they are (what the prefilter's scanner folds). */
const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/**
 * Literals one of which `@name arg` cannot match without, in lower case (the prefilter compares
 * case-insensitively); undefined when there is no such set, or its argument is expanded per request.
 */
export function operatorLiterals(name: string, arg: string, dataDir: string): string[] | undefined {
  if (hasMacro(arg)) return undefined;
  switch (name.toLowerCase()) {
    case 'rx':
      return requiredLiterals(pcreToJs(arg));
    case 'pm':
    case 'pmfromfile':
    case 'pmf': {
      const phrases = phrasesOfOperator(name.toLowerCase(), arg, dataDir).filter((phrase) => phrase !== '');
      return phrases.length === 0 ? undefined : phrases.map(asciiLower);
    }
    case 'contains':
    case 'containsword':
    case 'streq':
    case 'beginswith':
    case 'endswith':
      return arg === '' ? undefined : [asciiLower(arg)];
    default:
      return undefined;
  }
}

/** Compiles `@name arg`; `dataDir`: where @pmFromFile's files are. */
export function compileOperator(name: string, arg: string, dataDir: string): Operator {
  switch (name.toLowerCase()) {
    case 'rx': {
      const re = compileRegex(arg);
      return (value) => {
        const m = re.exec(value);
        // A group that took no part in the match is undefined at run time, whatever the type says.
        return m === null ? undefined : Array.from(m, (group: string | undefined) => group ?? '');
      };
    }
    case 'pm':
    case 'pmfromfile':
    case 'pmf': {
      const matcher = new PhraseMatcher(phrasesOfOperator(name.toLowerCase(), arg, dataDir));
      return (value) => {
        const found = matcher.find(value);
        return found === undefined ? undefined : [found];
      };
    }
    case 'streq':
      return withArg(arg, (value, a) => value === a);
    case 'beginswith':
      return withArg(arg, (value, a) => value.startsWith(a));
    case 'endswith':
      return withArg(arg, (value, a) => value.endsWith(a));
    case 'contains':
      return withArg(arg, (value, a) => value.includes(a));
    case 'containsword':
      return withArg(arg, (value, a) => new RegExp(`(?:^|\\W)${a.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')}(?:\\W|$)`).test(value));
    case 'within':
      return withArg(arg, (value, a) => a.includes(value));
    case 'eq':
      return withArg(arg, (value, a) => integer(value) === integer(a));
    case 'ge':
      return withArg(arg, (value, a) => integer(value) >= integer(a));
    case 'gt':
      return withArg(arg, (value, a) => integer(value) > integer(a));
    case 'le':
      return withArg(arg, (value, a) => integer(value) <= integer(a));
    case 'lt':
      return withArg(arg, (value, a) => integer(value) < integer(a));
    case 'validatebyterange': {
      const allowed = byteRanges(arg);
      return (value) => {
        for (let i = 0; i < value.length; i++) if (allowed[value.charCodeAt(i) & 0xff] !== 1) return [value];
        return undefined;
      };
    }
    case 'validateurlencoding':
      return (value) => (invalidUrlEncoding(value) ? [value] : undefined);
    case 'validateutf8encoding':
      return (value) => (invalidUtf8(value) ? [value] : undefined);
    case 'ipmatch': {
      const list = addressList(arg.split(/[\s,]+/));
      return (value) => (isIP(value) !== 0 && list.check(value, isIP(value) === 6 ? 'ipv6' : 'ipv4') ? [value] : undefined);
    }
    case 'detectsqli':
      return (value) => {
        const shape = detectSqlInjection(value);
        return shape === undefined ? undefined : [shape];
      };
    case 'detectxss':
      return (value) => {
        const found = detectHtmlInjection(value);
        return found === undefined ? undefined : [found];
      };
    case 'unconditionalmatch':
      return (value) => [value];
    case 'nomatch':
      return () => undefined;
    default:
      throw new UnsupportedOperator(`@${name}`);
  }
}
