// An origin's answer head (status line and header lines), parsed strictly: what an origin sends is
// relayed to a client connection that other requests share, so an answer whose framing two parsers
// could read differently is refused (the proxy answers 502 and drops the origin connection) rather
// than guessed at: a status line other than `HTTP/1.x NNN reason`, obs-fold (a header continued on
// the next line), a bare CR or LF, control characters in a value, a header name that is not a
// token or has whitespace before its colon, Content-Length values that are not digits or that
// disagree, Content-Length together with Transfer-Encoding. The text is decoded once (latin1: one
// character a byte, as on the wire), read in one pass, and header names are lower-cased once here
// (the common ones not even that: they are matched to shared strings).

// Character classes of the head's bytes (latin1: one character a byte).
/** Not allowed in a header line: control characters but HTAB (CR and LF end lines). */
const Invalid = 0;
/** Allowed in a value (VCHAR, obs-text), not in a name. */
const Value = 1;
/** Allowed in a name (a token character) and in a value. */
const Token = 2;
/** SP and HTAB: whitespace around and inside a value. */
const Space = 3;
const classOf = new Uint8Array(256);
for (let c = 0x21; c <= 0xff; c++) if (c !== 0x7f) classOf[c] = Value;
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") classOf[c.charCodeAt(0)] = Token;
classOf[0x20] = Space;
classOf[0x09] = Space;

/**
 * Header names answers commonly carry, lower case, in an open-addressed table keyed by a hash of
 * the lower-cased name computed while the name is scanned: a known name is matched without
 * slicing or lower-casing it, and the one string is shared by every answer (Set and Map lookups
 * on it need no hashing).
 */
const knownNames = [
  'accept-ranges', 'access-control-allow-credentials', 'access-control-allow-headers', 'access-control-allow-methods',
  'access-control-allow-origin', 'access-control-expose-headers', 'access-control-max-age', 'age', 'alt-svc', 'cache-control',
  'connection', 'content-disposition', 'content-encoding', 'content-language', 'content-length', 'content-location',
  'content-range', 'content-security-policy', 'content-type', 'cross-origin-opener-policy', 'cross-origin-resource-policy',
  'date', 'etag', 'expires', 'keep-alive', 'last-modified', 'link', 'location', 'permissions-policy', 'pragma',
  'proxy-authenticate', 'referrer-policy', 'retry-after', 'server', 'server-timing', 'set-cookie', 'strict-transport-security',
  'timing-allow-origin', 'trailer', 'transfer-encoding', 'upgrade', 'vary', 'via', 'www-authenticate', 'x-cache',
  'x-content-type-options', 'x-frame-options', 'x-powered-by', 'x-request-id', 'x-xss-protection',
];
const tableSize = 512;
const knownTable: Array<string | undefined> = new Array<string | undefined>(tableSize).fill(undefined);
const step = (hash: number, c: number) => (Math.imul(hash, 31) + c) | 0;
const slotOf = (hash: number) => (hash ^ (hash >>> 9)) & (tableSize - 1);
for (const name of knownNames) {
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = step(hash, name.charCodeAt(i));
  let slot = slotOf(hash);
  while (knownTable[slot] !== undefined) slot = (slot + 1) & (tableSize - 1);
  knownTable[slot] = name;
}

/** The known name `text[start, end)` is (any case), found from its hash; undefined when it is none. */
function knownName(text: string, start: number, end: number, hash: number): string | undefined {
  const length = end - start;
  for (let slot = slotOf(hash); ; slot = (slot + 1) & (tableSize - 1)) {
    const known = knownTable[slot];
    if (known === undefined) return undefined;
    if (known.length !== length) continue;
    let i = 0;
    for (; i < length; i++) {
      let c = text.charCodeAt(start + i);
      if (c >= 0x41 && c <= 0x5a) c |= 0x20;
      if (c !== known.charCodeAt(i)) break;
    }
    if (i === length) return known;
  }
}

/** What the parser found; one object per connection, filled anew for each answer head. */
export class ResponseHead {
  status = 0;
  /** The `x` of `HTTP/1.x`. */
  minor = 1;
  /** Name, value, name, value, ...: names lower-cased, values without surrounding whitespace; a new list for each head. */
  headers: string[] = [];
  /** -1: no Content-Length. */
  contentLength = -1;
  /** Transfer-Encoding whose last coding is `chunked`. */
  chunked = false;
  /** Transfer-Encoding without `chunked` last: the body runs until the connection closes. */
  otherCoding = false;
  /** The Connection header as sent (its tokens name hop-by-hop headers), or undefined. */
  connection: string | undefined = undefined;
  /** Connection: close (or HTTP/1.0 without Connection: keep-alive). */
  close = false;
  /** `Keep-Alive: timeout=N`, in seconds; -1 when not given. */
  keepAliveSeconds = -1;
  /** The Upgrade header (a 101's protocol), or undefined. */
  upgrade: string | undefined = undefined;

  #reset(): void {
    this.headers = [];
    this.contentLength = -1;
    this.chunked = false;
    this.otherCoding = false;
    this.connection = undefined;
    this.close = false;
    this.keepAliveSeconds = -1;
    this.upgrade = undefined;
  }

  /**
   * Parses `text`: a head from its status line through the CRLF ending its last header line (the
   * empty line left out). Returns why it is refused, or undefined when it is well-formed. One pass
   * over the characters (a class table each), names matched against the known ones as they are read.
   */
  parse(text: string): string | undefined {
    this.#reset();
    const length = text.length;
    if (length < 14 || !text.startsWith('HTTP/1.')) return 'malformed status line';
    const minor = text.charCodeAt(7) - 0x30;
    const s0 = text.charCodeAt(9) - 0x30;
    const s1 = text.charCodeAt(10) - 0x30;
    const s2 = text.charCodeAt(11) - 0x30;
    if (minor < 0 || minor > 1 || text.charCodeAt(8) !== 0x20 || s0 < 1 || s0 > 5 || s1 < 0 || s1 > 9 || s2 < 0 || s2 > 9) return 'malformed status line';
    this.minor = minor;
    this.status = s0 * 100 + s1 * 10 + s2;
    // The reason phrase is not relayed (each side's server writes its own), only checked.
    let i = 12;
    let c = text.charCodeAt(i);
    if (c === 0x20) c = text.charCodeAt(++i);
    else if (c !== 0x0d) return 'malformed status line';
    while (i < length && classOf[c] !== Invalid) c = text.charCodeAt(++i);
    if (c !== 0x0d || text.charCodeAt(i + 1) !== 0x0a) return 'control character or bare CR or LF in the status line';
    i += 2;
    let keepAlive = false;
    let transferEncoding: string | undefined;
    const headers = this.headers;
    while (i < length) {
      // The name: token characters up to the colon (no whitespace before it), lower-cased as it is hashed.
      const nameStart = i;
      let hash = 0;
      let upper = false;
      c = text.charCodeAt(i);
      while (classOf[c] === Token) {
        if (c >= 0x41 && c <= 0x5a) {
          upper = true;
          c |= 0x20;
        }
        hash = step(hash, c);
        c = text.charCodeAt(++i);
      }
      if (c !== 0x3a || i === nameStart) return i === nameStart && classOf[c] === Space ? 'obs-fold' : 'invalid header name';
      const nameEnd = i;
      // The value: visible characters, spaces and tabs inside it, none around it.
      c = text.charCodeAt(++i);
      while (c === 0x20 || c === 0x09) c = text.charCodeAt(++i);
      const valueStart = i;
      let valueEnd = i;
      for (;;) {
        const kind = classOf[c];
        if (kind === Value || kind === Token) valueEnd = i + 1;
        else if (kind !== Space) break;
        c = text.charCodeAt(++i);
      }
      if (c !== 0x0d || text.charCodeAt(i + 1) !== 0x0a) return 'control character or bare CR or LF in a header line';
      i += 2;
      let name = knownName(text, nameStart, nameEnd, hash);
      if (name === undefined) {
        name = text.slice(nameStart, nameEnd);
        if (upper) name = name.toLowerCase();
      }
      const value = text.slice(valueStart, valueEnd);
      switch (name) {
        case 'content-length': {
          const length = digits(value);
          if (length < 0) return 'invalid Content-Length';
          if (this.contentLength >= 0) {
            if (length !== this.contentLength) return 'conflicting Content-Length';
            // The same value twice: relayed once (a client may refuse a repeated Content-Length).
            continue;
          }
          this.contentLength = length;
          break;
        }
        case 'transfer-encoding':
          transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
          break;
        case 'connection': {
          this.connection = this.connection === undefined ? value : `${this.connection}, ${value}`;
          const lower = value.toLowerCase();
          if (lower === 'keep-alive') keepAlive = true;
          else if (lower === 'close') this.close = true;
          else
            for (const token of lower.split(',')) {
              const trimmed = token.trim();
              if (trimmed === 'close') this.close = true;
              else if (trimmed === 'keep-alive') keepAlive = true;
            }
          break;
        }
        case 'keep-alive':
          this.keepAliveSeconds = this.#keepAliveTimeout(value);
          break;
        case 'upgrade':
          this.upgrade = value;
          break;
        default:
      }
      headers.push(name, value);
    }
    if (transferEncoding !== undefined) {
      if (this.contentLength >= 0) return 'Content-Length with Transfer-Encoding';
      const codings = transferEncoding.toLowerCase().split(',');
      if (codings[codings.length - 1]?.trim() === 'chunked') this.chunked = true;
      else this.otherCoding = true;
    }
    if (minor === 0 && !keepAlive) this.close = true;
    return undefined;
  }

  /** The last Keep-Alive value read and its timeout: an origin sends the same one every time. */
  #keepAliveValue = '';
  #keepAliveSeconds = -1;

  /** `timeout=N` of a Keep-Alive value, in seconds; -1 when it has none. */
  #keepAliveTimeout(value: string): number {
    if (value !== this.#keepAliveValue) {
      const timeout = /(?:^|[\s,;])timeout\s*=\s*(\d{1,9})/i.exec(value);
      this.#keepAliveValue = value;
      this.#keepAliveSeconds = timeout?.[1] === undefined ? -1 : Number(timeout[1]);
    }
    return this.#keepAliveSeconds;
  }
}

/** A Content-Length value: decimal digits only (no sign, no list), at most 2^53 - 1; -1 when not. */
function digits(value: string): number {
  if (value.length === 0 || value.length > 15) return -1;
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const d = value.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
