// Whether a request's bytes are one valid HTTP/1.x request (RFC 9112): the corpus's requests that
// are not (the CRS protocol tests hold some on purpose) are reported apart from the detection rates,
// since a server may refuse them as unparsable before any WAF sees them, and that is not detection.

const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII: what a request target may hold once percent-encoding is applied (RFC 3986's set is stricter; servers take this). */
const target = /^[\x21-\x7e]+$/;
/** Field values: visible ASCII, space, tab and obs-text (bytes 0x80 and up); no other control byte. */
const fieldValue = /^[\t\x20-\x7e\x80-\xff]*$/;

/** undefined: valid; else why not. */
export function invalidity(bytes: Buffer): string | undefined {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return 'no end of the header section (CRLF CRLF)';
  const [requestLine = '', ...fields] = text.slice(0, end).split('\r\n');
  const body = bytes.subarray(end + 4);
  const parts = requestLine.split(' ');
  if (parts.length !== 3) return `request line not "method target version": ${JSON.stringify(requestLine.slice(0, 60))}`;
  const [method, uri, version] = parts as [string, string, string];
  if (!token.test(method)) return `method not a token: ${JSON.stringify(method.slice(0, 30))}`;
  if (version !== 'HTTP/1.1' && version !== 'HTTP/1.0') return `version ${JSON.stringify(version.slice(0, 20))}`;
  if (!target.test(uri)) return 'request target with a space, control or non-ASCII byte';
  const form =
    uri.startsWith('/') ? 'origin' : /^https?:\/\//i.test(uri) ? 'absolute' : uri === '*' ? 'asterisk' : /^[^/?#]+:\d+$/.test(uri) ? 'authority' : 'other';
  if (form === 'other' || (form === 'asterisk' && method !== 'OPTIONS') || (form === 'authority') !== (method === 'CONNECT')) {
    return `request target ${JSON.stringify(uri.slice(0, 40))} not in a form ${method} takes`;
  }
  const names = new Map<string, string[]>();
  for (const field of fields) {
    if (/^[ \t]/.test(field)) return 'obsolete line folding';
    const colon = field.indexOf(':');
    const name = colon < 0 ? field : field.slice(0, colon);
    if (colon < 0 || !token.test(name)) return `field line not "name: value": ${JSON.stringify(field.slice(0, 40))}`;
    const value = field.slice(colon + 1).trim();
    if (!fieldValue.test(value)) return `control byte in the ${name} field`;
    names.set(name.toLowerCase(), [...(names.get(name.toLowerCase()) ?? []), value]);
  }
  const hosts = names.get('host') ?? [];
  if (hosts.length > 1) return 'more than one Host';
  if (version === 'HTTP/1.1' && hosts.length === 0) return 'HTTP/1.1 without Host';
  const lengths = names.get('content-length');
  const encodings = names.get('transfer-encoding');
  if (encodings !== undefined) {
    if (lengths !== undefined) return 'both Transfer-Encoding and Content-Length';
    if (version === 'HTTP/1.0') return 'Transfer-Encoding in HTTP/1.0';
    const codings = encodings.join(',').split(',').map((c) => c.trim().toLowerCase());
    if (codings.at(-1) !== 'chunked') return `Transfer-Encoding ${JSON.stringify(encodings.join(', '))} not ending in chunked`;
    return chunkedInvalidity(body);
  }
  if (lengths !== undefined) {
    const values = new Set(lengths.flatMap((l) => l.split(',').map((v) => v.trim())));
    const [only] = values;
    if (values.size !== 1 || !/^\d+$/.test(only!)) return `Content-Length ${JSON.stringify(lengths.join(', '))}`;
    const declared = Number(only);
    if (declared !== body.length) return `Content-Length ${declared} for a body of ${body.length} bytes`;
    return undefined;
  }
  return body.length === 0 ? undefined : `${body.length} bytes after the header section with no Content-Length or Transfer-Encoding`;
}

function chunkedInvalidity(body: Buffer): string | undefined {
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) return 'chunked body cut short';
    const size = /^([0-9a-fA-F]+)(;.*)?$/.exec(body.subarray(at, lineEnd).toString('latin1'));
    if (size === null) return 'chunk size not hexadecimal';
    const length = parseInt(size[1]!, 16);
    at = lineEnd + 2;
    if (length === 0) {
      // Trailer fields, then CRLF, then nothing (anything after would be a second request).
      const trailerEnd = body.indexOf('\r\n', at) === at ? at : body.indexOf('\r\n\r\n', at) + 2;
      if (trailerEnd < at) return 'chunked body without its final CRLF';
      return trailerEnd + 2 === body.length ? undefined : 'bytes after the chunked body';
    }
    if (body.length < at + length + 2 || body.subarray(at + length, at + length + 2).toString('latin1') !== '\r\n') return 'chunk data not followed by CRLF';
    at += length + 2;
  }
}
