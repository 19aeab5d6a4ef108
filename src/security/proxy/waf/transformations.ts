// SecLang's transformations (`t:`), as ModSecurity applies them before an operator: on byte strings
// (one character per byte, latin1), so that what a rule's regex sees is what ModSecurity's PCRE
// would. Each is linear in its input; none grows its input by more than a constant factor
// (utf8toUnicode at most 6 bytes for 2), so the bytes the WAF inspects bound their cost too.
import { createHash } from 'node:crypto';

export type Transformation = (value: string) => string;

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const hexValue = (c: number): number => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
const hexAt = (s: string, i: number, n: number): boolean => {
  if (i + n > s.length) return false;
  for (let k = i; k < i + n; k++) if (!isHex(s.charCodeAt(k))) return false;
  return true;
};
const hexNumber = (s: string, i: number, n: number): number => {
  let v = 0;
  for (let k = i; k < i + n; k++) v = v * 16 + hexValue(s.charCodeAt(k));
  return v;
};

/** A %uXXXX or \uXXXX code as one byte, as ModSecurity does: its low byte, full-width ASCII (U+FF01–FF5E) folded to ASCII. */
function unicodeByte(code: number): number {
  if (code >= 0xff01 && code <= 0xff5e) return code - 0xfee0;
  return code & 0xff;
}

function urlDecode(s: string, unicode: boolean): string {
  if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2b) out += ' ';
    else if (c === 0x25 && unicode && (s.charCodeAt(i + 1) | 0x20) === 0x75 && hexAt(s, i + 2, 4)) {
      out += String.fromCharCode(unicodeByte(hexNumber(s, i + 2, 4)));
      i += 5;
    } else if (c === 0x25 && hexAt(s, i + 1, 2)) {
      out += String.fromCharCode(hexNumber(s, i + 1, 2));
      i += 2;
    } else out += s.charAt(i);
  }
  return out;
}

const entities: Record<string, number> = { quot: 0x22, amp: 0x26, lt: 0x3c, gt: 0x3e, nbsp: 0xa0, apos: 0x27 };

function htmlEntityDecode(s: string): string {
  if (s.indexOf('&') < 0) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '&') {
      out += s.charAt(i);
      continue;
    }
    const m = /^&(?:#[xX]([0-9a-fA-F]{1,8})|#([0-9]{1,10})|(quot|amp|lt|gt|nbsp|apos));?/i.exec(s.slice(i, i + 14));
    if (m === null) {
      out += '&';
      continue;
    }
    const code = m[1] !== undefined ? parseInt(m[1], 16) : m[2] !== undefined ? Number(m[2]) : (entities[(m[3] ?? '').toLowerCase()] ?? 0x26);
    out += String.fromCharCode(code & 0xff);
    i += m[0].length - 1;
  }
  return out;
}

const jsEscapes: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

function jsDecode(s: string): string {
  if (s.indexOf('\\') < 0) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\' || i + 1 >= s.length) {
      out += s.charAt(i);
      continue;
    }
    const next = s[i + 1] ?? '';
    if ((next === 'u' || next === 'U') && hexAt(s, i + 2, 4)) {
      out += String.fromCharCode(unicodeByte(hexNumber(s, i + 2, 4)));
      i += 5;
    } else if ((next === 'x' || next === 'X') && hexAt(s, i + 2, 2)) {
      out += String.fromCharCode(hexNumber(s, i + 2, 2));
      i += 3;
    } else if (next >= '0' && next <= '7') {
      let n = 1;
      while (n < 3 && (s[i + 1 + n] ?? '') >= '0' && (s[i + 1 + n] ?? '') <= '7') n++;
      out += String.fromCharCode(parseInt(s.slice(i + 1, i + 1 + n), 8) & 0xff);
      i += n;
    } else {
      out += jsEscapes[next] ?? next;
      i++;
    }
  }
  return out;
}

function cssDecode(s: string): string {
  if (s.indexOf('\\') < 0) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\' || i + 1 >= s.length) {
      out += s.charAt(i);
      continue;
    }
    let n = 0;
    while (n < 6 && isHex(s.charCodeAt(i + 1 + n))) n++;
    if (n > 0) {
      const code = hexNumber(s, i + 1, n);
      out += String.fromCharCode(n === 6 || n === 4 ? unicodeByte(code) : code & 0xff);
      i += n;
      if (s[i + 1] === ' ') i++;
    } else if (s[i + 1] === '\n') i++;
    else {
      out += s.charAt(i + 1);
      i++;
    }
  }
  return out;
}

const whitespace = /[ \t\n\r\f\v\xa0]+/g;

function replaceComments(s: string): string {
  if (s.indexOf('/*') < 0) return s;
  return s.replace(/\/\*(?:[^*]|\*(?!\/))*(?:\*\/|$)/g, ' ');
}

function removeComments(s: string): string {
  return s.replace(/\/\*(?:[^*]|\*(?!\/))*(?:\*\/|$)|<!--(?:[^-]|-(?!->))*(?:-->|$)|(?:--|#)[^\n]*/g, '');
}

// Written without a regex whose run can fail at its end (`\s+$`, `\s+(?=/)`): those rescan a
// long run of spaces from each of its bytes, quadratic on attacker input.
function cmdLine(s: string): string {
  // Nothing to remove or replace: only the case changes.
  if (!/[\\"'^ \t\n\r\f\v,;]/.test(s)) return s.toLowerCase();
  return s
    .replace(/[\\"'^]/g, '')
    .replace(/[ \t\n\r\f\v]+/g, ' ')
    .replace(/ (?=[/(])/g, '')
    .replace(/[,;]/g, ' ')
    .replace(/ {2,}/g, ' ')
    .toLowerCase();
}

const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);

function trimLeft(s: string): string {
  let i = 0;
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return s.slice(i);
}

function trimRight(s: string): string {
  let i = s.length;
  while (i > 0 && isSpace(s.charCodeAt(i - 1))) i--;
  return s.slice(0, i);
}

function normalizePath(s: string): string {
  // No empty, `.` or `..` segment: nothing to normalize.
  if (!s.includes('//') && !/(?:^|\/)\.\.?(?:\/|$)/.test(s)) return s;
  const absolute = s.startsWith('/');
  const trailing = s.endsWith('/') || s.endsWith('/.') || s.endsWith('/..');
  const out: string[] = [];
  for (const part of s.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
    } else out.push(part);
  }
  const joined = (absolute ? '/' : '') + out.join('/');
  return trailing && out.length > 0 ? `${joined}/` : joined;
}

/** UTF-8 sequences of two to four bytes as %uXXXX (their code point's low 16 bits), the rest untouched. */
function utf8toUnicode(s: string): string {
  if (!/[\xc2-\xf4]/.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const n = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? (c <= 0xef ? 2 : 0) : c >= 0xc2 && c <= 0xdf ? 1 : 0;
    let code = n === 1 ? c & 0x1f : n === 2 ? c & 0x0f : c & 0x07;
    let k = 1;
    for (; k <= n; k++) {
      const d = s.charCodeAt(i + k);
      if ((d & 0xc0) !== 0x80) break;
      code = (code << 6) | (d & 0x3f);
    }
    if (n === 0 || k <= n) {
      out += s.charAt(i);
      continue;
    }
    out += `%u${(code & 0xffff).toString(16).padStart(4, '0')}`;
    i += n;
  }
  return out;
}

const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');

function hexDecode(s: string): string {
  const even = s.length - (s.length % 2);
  return /^[0-9a-fA-F]*$/.test(s) ? Buffer.from(s.slice(0, even), 'hex').toString('latin1') : s;
}

/** By the name `t:` gives (case-insensitive), as ModSecurity spells them. */
export const transformations: ReadonlyMap<string, Transformation> = new Map<string, Transformation>([
  ['lowercase', (s) => s.toLowerCase()],
  ['uppercase', (s) => s.toUpperCase()],
  ['urldecode', (s) => urlDecode(s, false)],
  ['urldecodeuni', (s) => urlDecode(s, true)],
  ['htmlentitydecode', htmlEntityDecode],
  ['jsdecode', jsDecode],
  ['cssdecode', cssDecode],
  ['removenulls', (s) => (s.indexOf('\0') < 0 ? s : s.replaceAll('\0', ''))],
  ['replacenulls', (s) => (s.indexOf('\0') < 0 ? s : s.replaceAll('\0', ' '))],
  ['compresswhitespace', (s) => s.replace(whitespace, ' ')],
  ['removewhitespace', (s) => s.replace(whitespace, '')],
  ['replacecomments', replaceComments],
  ['removecomments', removeComments],
  ['removecommentschar', (s) => s.replace(/\/\*|\*\/|--|#/g, '')],
  ['cmdline', cmdLine],
  ['normalizepath', normalizePath],
  ['normalisepath', normalizePath],
  ['normalizepathwin', (s) => normalizePath(s.replaceAll('\\', '/'))],
  ['normalisepathwin', (s) => normalizePath(s.replaceAll('\\', '/'))],
  ['utf8tounicode', utf8toUnicode],
  ['base64decode', (s) => Buffer.from(s, 'base64').toString('latin1')],
  ['base64decodeext', (s) => Buffer.from(s.replace(/[^A-Za-z0-9+/]/g, ''), 'base64').toString('latin1')],
  ['hexdecode', hexDecode],
  ['hexencode', (s) => bytes(s).toString('hex')],
  ['length', (s) => String(s.length)],
  ['sha1', (s) => createHash('sha1').update(bytes(s)).digest().toString('latin1')],
  ['md5', (s) => createHash('md5').update(bytes(s)).digest().toString('latin1')],
  ['trim', (s) => trimLeft(trimRight(s))],
  ['trimleft', trimLeft],
  ['trimright', trimRight],
]);
