// One stage of a CRS regression test (the `ftw` YAML format, coreruleset/ftw's docs/YAMLFormat.md)
// turned into the bytes ftw itself sends, so both subjects see the requests the rule authors tested
// with: ftw's defaults and its "magic" (a form Content-Type and a Content-Length when a body has
// none, form bodies re-encoded) unless the stage sets stop_magic, and raw or base64 requests as given.

/** The `input` of a stage, as the YAML holds it. */
export interface FtwInput {
  method?: string;
  uri?: string;
  version?: string;
  headers?: Record<string, string | number>;
  /** A list is joined with CRLF (ftw's rule). */
  data?: string | string[];
  stop_magic?: boolean;
  /** Sent as given after Python's unicode_escape decoding (ftw's rule). */
  raw_request?: string;
  /** Base64 of the exact bytes. */
  encoded_request?: string;
}

/** Python's quote_plus: unreserved bytes kept, space as '+', the rest %XX of their UTF-8. */
function quotePlus(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((b) => (b === 0x20 ? '+' : /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

/** Python's unquote_plus for text without %XX escapes (the only case ftw re-encodes). */
const unplus = (text: string) => text.replaceAll('+', ' ');

/**
 * ftw's re-encoding of a form body: `urlencode(parse_qsl(data))` when the body holds no %XX escape.
 * parse_qsl drops pairs without '=' or with an empty value; when nothing is left the body is kept.
 */
function reencodeForm(data: string): string {
  if (/%[0-9a-fA-F]{2}/.test(data)) return data;
  const pairs = data
    .split('&')
    .map((part) => part.split(/=(.*)/s, 2))
    .filter((nv): nv is [string, string] => nv.length === 2 && nv[1]!.length > 0);
  if (pairs.length === 0) return data;
  return pairs.map(([name, value]) => `${quotePlus(unplus(name))}=${quotePlus(unplus(value))}`).join('&');
}

/** Python's 'unicode_escape' decoding of ASCII text: backslash escapes become the bytes they name. */
function unicodeEscape(text: string): Buffer {
  const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0' };
  const decoded = text.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[nrt\\'"abfv0])/g, (_, e: string) =>
    e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : simple[e]!,
  );
  return Buffer.from(decoded, 'latin1');
}

/** The bytes ftw sends for `input`. */
export function ftwRequestBytes(input: FtwInput): Buffer {
  if (input.encoded_request !== undefined) return Buffer.from(input.encoded_request, 'base64');
  if (input.raw_request !== undefined) return unicodeEscape(input.raw_request);
  const magic = input.stop_magic !== true;
  const headers = new Map(Object.entries(input.headers ?? {}).map(([k, v]) => [k, String(v)]));
  let data = Array.isArray(input.data) ? input.data.join('\r\n') : (input.data ?? '');
  if (data !== '' && magic) {
    // ftw looks these names up exactly as spelled here (case matters).
    if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/x-www-form-urlencoded');
    if (headers.get('Content-Type') === 'application/x-www-form-urlencoded') data = reencodeForm(data);
    // ftw counts characters; bytes here, so a non-ASCII body is framed as HTTP means.
    if (!headers.has('Content-Length')) headers.set('Content-Length', String(Buffer.byteLength(data)));
  }
  const head = `${input.method ?? 'GET'} ${input.uri ?? '/'} ${input.version ?? 'HTTP/1.1'}\r\n${[...headers].map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from(data, 'utf8')]);
}
