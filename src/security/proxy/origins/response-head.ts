// An origin's answer head (status line and header lines), parsed strictly: what an origin sends is
// relayed to a client connection that other requests share, so an answer whose framing two parsers
// could read differently is refused (the proxy answers 502 and drops the origin connection) rather
// than guessed at: a status line other than `HTTP/1.x NNN reason`, obs-fold (a header continued on
// the next line), a bare CR or LF, control characters in a value, a header name that is not a
// token or has whitespace before its colon, Content-Length values that are not digits or that
// disagree, Content-Length together with Transfer-Encoding. The text is decoded once (latin1: one
// character a byte, as on the wire) and header names are lower-cased once here.

/** Token characters of a header name (RFC 9110 §5.6.2): 1 where allowed. */
const tokenChars = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") tokenChars[c.charCodeAt(0)] = 1;

/** What a field value may not hold: control characters but HTAB (the text is latin1: nothing beyond \xff). */
const controlInValue = /[^\t\x20-\x7e\x80-\xff]/;

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
   * empty line left out). Returns why it is refused, or undefined when it is well-formed.
   */
  parse(text: string): string | undefined {
    this.#reset();
    let lineEnd = text.indexOf('\r\n');
    if (lineEnd < 12 || !text.startsWith('HTTP/1.')) return 'malformed status line';
    const minor = text.charCodeAt(7) - 0x30;
    const s0 = text.charCodeAt(9) - 0x30;
    const s1 = text.charCodeAt(10) - 0x30;
    const s2 = text.charCodeAt(11) - 0x30;
    if (minor < 0 || minor > 1 || text.charCodeAt(8) !== 0x20 || s0 < 1 || s0 > 5 || s1 < 0 || s1 > 9 || s2 < 0 || s2 > 9) return 'malformed status line';
    // The reason phrase is not relayed (each side's server writes its own); only its separator is checked.
    if (lineEnd > 12 && text.charCodeAt(12) !== 0x20) return 'malformed status line';
    this.minor = minor;
    this.status = s0 * 100 + s1 * 10 + s2;
    // A CR or LF that is not part of a CRLF: the first of each after a line's start must be its end.
    if (text.indexOf('\r') < lineEnd || text.indexOf('\n') !== lineEnd + 1) return 'bare CR or LF';
    let keepAlive = false;
    let transferEncoding: string | undefined;
    const headers = this.headers;
    let start = lineEnd + 2;
    while (start < text.length) {
      lineEnd = text.indexOf('\r\n', start);
      if (lineEnd === -1) return 'unterminated header line';
      if (text.indexOf('\r', start) !== lineEnd || text.indexOf('\n', start) !== lineEnd + 1) return 'bare CR or LF';
      const first = text.charCodeAt(start);
      if (first === 0x20 || first === 0x09) return 'obs-fold';
      const colon = text.indexOf(':', start);
      if (colon === -1 || colon > lineEnd || colon === start) return 'header line without a name';
      for (let i = start; i < colon; i++) {
        const c = text.charCodeAt(i);
        if (c >= 128 || tokenChars[c] !== 1) return 'invalid header name';
      }
      let valueStart = colon + 1;
      let valueEnd = lineEnd;
      while (valueStart < valueEnd && (text.charCodeAt(valueStart) === 0x20 || text.charCodeAt(valueStart) === 0x09)) valueStart++;
      while (valueEnd > valueStart && (text.charCodeAt(valueEnd - 1) === 0x20 || text.charCodeAt(valueEnd - 1) === 0x09)) valueEnd--;
      const name = text.slice(start, colon).toLowerCase();
      const value = text.slice(valueStart, valueEnd);
      if (controlInValue.test(value)) return 'control character in a header value';
      start = lineEnd + 2;
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
        case 'keep-alive': {
          const timeout = /(?:^|[\s,;])timeout\s*=\s*(\d{1,9})/i.exec(value);
          if (timeout?.[1] !== undefined) this.keepAliveSeconds = Number(timeout[1]);
          break;
        }
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
