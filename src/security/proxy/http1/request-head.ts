// An HTTP/1.x request head (request line and header section, RFC 9112) as the proxy reads it from a
// client, validated as strictly as node:http's llhttp and nginx, because the proxy forwards what it
// reads and an origin that frames a request otherwise than we do is request smuggling. Refused
// (each with the status nginx gives):
// - a request line that is not `method SP target SP HTTP/1.x` (400; another version: 505);
// - header names that are not tokens, whitespace before a colon, obs-fold (a line starting with
//   whitespace), control characters in a value (a bare CR or LF included): 400;
// - Content-Length that is not digits alone, or given twice (even with one value): 400;
// - Transfer-Encoding in an HTTP/1.0 request, or with Content-Length: 400; whose final coding is
//   not chunked: 400; other codings under chunked: 501 (not implemented);
// - no Host in HTTP/1.1, or more than one: 400;
// - more header lines than the bound: 431.
// The body's own size is checked later: a declared one against the limit before it is read, a
// chunked one as it arrives.

/** A request head read whole and valid. */
export interface RequestHead {
  method: string;
  /** The request target as sent (origin-form mostly; absolute-form from proxy-style clients). */
  url: string;
  /** HTTP/1.0 or HTTP/1.1. */
  minor: 0 | 1;
  /** Header names (lower case) and values, in order: name, value, name, value, ... */
  fields: string[];
  /** The header lines as the client sent them (after the request line; `fields` is what they parse to): the WAF's key of a head. */
  block: string;
  /** -1: none declared. */
  contentLength: number;
  chunked: boolean;
  /** Whether the client keeps the connection after this exchange (HTTP/1.1 unless `close`; HTTP/1.0 with `keep-alive`). */
  keepAlive: boolean;
  /** The protocol asked for with `Connection: upgrade` (a WebSocket), or undefined. */
  upgrade: string | undefined;
  /** `Expect: 100-continue`: the client waits for a 100 before sending its body. */
  expectContinue: boolean;
}

/** A head refused: the status to answer with and why. */
export interface HeadRefusal {
  status: 400 | 431 | 501 | 505;
  message: string;
}

/** token characters (RFC 9110 §5.6.2), for methods and header names. */
const tchar = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~") tchar[c.charCodeAt(0)] = 1;
for (let c = 0x30; c <= 0x39; c++) tchar[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) tchar[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) tchar[c] = 1;

function isToken(text: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || tchar[c] !== 1) return false;
  }
  return true;
}

/** A target's characters: visible ASCII and bytes of 0x80 and above (raw UTF-8); no space, no control character. */
function validTarget(text: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return false;
  }
  return true;
}

/** A field value (trimmed of its spaces and tabs), or undefined when it holds a control character other than a tab. */
function fieldValue(line: string, from: number): string | undefined {
  let start = from;
  let end = line.length;
  while (start < end && (line.charCodeAt(start) === 0x20 || line.charCodeAt(start) === 0x09)) start++;
  while (end > start && (line.charCodeAt(end - 1) === 0x20 || line.charCodeAt(end - 1) === 0x09)) end--;
  for (let i = start; i < end; i++) {
    const c = line.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return undefined;
  }
  return start === from && end === line.length ? (from === 0 ? line : line.slice(from)) : line.slice(start, end);
}

const refusal = (status: HeadRefusal['status'], message: string): HeadRefusal => ({ status, message });

/** `Connection`'s tokens that matter here. */
interface ConnectionTokens {
  close: boolean;
  keepAlive: boolean;
  upgrade: boolean;
}

function connectionTokens(value: string, into: ConnectionTokens): void {
  for (const raw of value.split(',')) {
    const token = raw.trim().toLowerCase();
    if (token === 'close') into.close = true;
    else if (token === 'keep-alive') into.keepAlive = true;
    else if (token === 'upgrade') into.upgrade = true;
  }
}

/**
 * Parses a request head: `text` is its bytes as latin1, without the blank line ending it.
 * `maxFields`: header lines at most.
 */
export function parseRequestHead(text: string, maxFields: number): RequestHead | HeadRefusal {
  let lineEnd = text.indexOf('\r\n');
  if (lineEnd < 0) lineEnd = text.length;
  // The request line.
  const firstSpace = text.indexOf(' ');
  if (firstSpace < 0 || firstSpace > lineEnd || !isToken(text, 0, firstSpace)) return refusal(400, 'Bad request line');
  const secondSpace = text.indexOf(' ', firstSpace + 1);
  if (secondSpace < 0 || secondSpace > lineEnd || !validTarget(text, firstSpace + 1, secondSpace)) return refusal(400, 'Bad request line');
  if (lineEnd - secondSpace !== 9 || !text.startsWith('HTTP/1.', secondSpace + 1)) {
    return /^HTTP\/\d\.\d$/.test(text.slice(secondSpace + 1, lineEnd)) ? refusal(505, 'HTTP version not supported') : refusal(400, 'Bad request line');
  }
  const minorChar = text.charCodeAt(lineEnd - 1);
  if (minorChar !== 0x30 && minorChar !== 0x31) return refusal(505, 'HTTP version not supported');
  const minor = minorChar === 0x31 ? 1 : 0;

  const fields: string[] = [];
  let contentLength = -1;
  let transferEncoding: string | undefined;
  let hosts = 0;
  let upgrade: string | undefined;
  let expectContinue = false;
  const connection: ConnectionTokens = { close: false, keepAlive: false, upgrade: false };
  let at = lineEnd + 2;
  while (at < text.length) {
    let end = text.indexOf('\r\n', at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end);
    at = end + 2;
    if (fields.length >= maxFields * 2) return refusal(431, 'Too many header fields');
    const colon = line.indexOf(':');
    // No name, whitespace before the colon, obs-fold (a line starting with whitespace): not a token.
    if (colon < 0 || !isToken(line, 0, colon)) return refusal(400, 'Bad header field');
    const value = fieldValue(line, colon + 1);
    if (value === undefined) return refusal(400, 'Bad header field value');
    const name = line.slice(0, colon).toLowerCase();
    fields.push(name, value);
    switch (name) {
      case 'host':
        hosts++;
        break;
      case 'content-length':
        if (contentLength >= 0 || !/^\d{1,15}$/.test(value)) return refusal(400, 'Bad Content-Length');
        contentLength = Number(value);
        break;
      case 'transfer-encoding':
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
        break;
      case 'connection':
        connectionTokens(value, connection);
        break;
      case 'upgrade':
        upgrade = value;
        break;
      case 'expect':
        expectContinue = value.toLowerCase() === '100-continue';
        break;
      default:
        break;
    }
  }
  if (minor === 1 ? hosts !== 1 : hosts > 1) return refusal(400, hosts === 0 ? 'Missing Host header' : 'More than one Host header');
  let chunked = false;
  if (transferEncoding !== undefined) {
    if (minor === 0) return refusal(400, 'Transfer-Encoding in an HTTP/1.0 request');
    if (contentLength >= 0) return refusal(400, 'Both Content-Length and Transfer-Encoding');
    const codings = transferEncoding.toLowerCase().split(',').map((coding) => coding.trim());
    if (codings[codings.length - 1] !== 'chunked') return refusal(400, 'chunked is not the final transfer coding');
    if (codings.length > 1) return refusal(501, 'Transfer codings other than chunked are not implemented');
    chunked = true;
  }
  return {
    method: text.slice(0, firstSpace),
    url: text.slice(firstSpace + 1, secondSpace),
    minor,
    fields,
    block: text.slice(Math.min(lineEnd + 2, text.length)),
    contentLength,
    chunked,
    keepAlive: minor === 1 ? !connection.close : connection.keepAlive && !connection.close,
    upgrade: connection.upgrade ? upgrade : undefined,
    expectContinue,
  };
}

/** Whether a parse ended in a refusal. */
export function isRefusal(head: RequestHead | HeadRefusal): head is HeadRefusal {
  return 'status' in head;
}

/** The fields as node:http's `headers`: repeated names joined with `, ` (cookies with `; `), set-cookie as a list. */
export function headerRecord(fields: readonly string[]): Record<string, string | string[]> {
  // No prototype: a header named `__proto__` or `constructor` is a header like any other.
  const record = Object.create(null) as Record<string, string | string[]>;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i] ?? '';
    const value = fields[i + 1] ?? '';
    const previous = record[name];
    if (previous === undefined) record[name] = name === 'set-cookie' ? [value] : value;
    else if (typeof previous !== 'string') previous.push(value);
    else record[name] = `${previous}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return record;
}
