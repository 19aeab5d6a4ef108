// What an origin is sent and a client gets back: the request target and the header rules. Hop-by-hop headers (RFC 9110 §7.6.1: Connection
// and every header it names, Keep-Alive, Proxy-*, TE, Trailer, Transfer-Encoding, Upgrade) describe
// one connection and are dropped both ways; each side's connection sets its own. The origin gets the
// client's Host as sent and X-Forwarded-For, X-Real-IP, X-Forwarded-Proto and X-Forwarded-Host set by
// the proxy: whatever the client sent under those names (and `Forwarded`, which some origins trust
// instead) is replaced, since the proxy has already settled who the client is (exchange.client).
import type { Exchange, ProxyRequest } from '../exchange.ts';
import { ClientRequest } from '../http1/client-request.ts';

/** Request headers never passed on: hop-by-hop ones, the ones the proxy sets itself, and the body's framing (the origin connection's own). */
const droppedRequestHeaders = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'http2-settings',
  'host', 'x-forwarded-for', 'x-real-ip', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded',
  'content-length',
  // The client's server answers `Expect: 100-continue` itself; the origin gets the body in any case.
  'expect',
]);

/** Response headers never passed on: hop-by-hop ones (an HTTP/2 response may not carry any of them). */
const droppedResponseHeaders = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'http2-settings']);

/** `Proxy` carries no meaning end to end and is the httpoxy vector; `Proxy-*` are hop-by-hop. */
const isProxyHeader = (name: string) => name.startsWith('proxy') && (name.length === 5 || name.charCodeAt(5) === 0x2d);

/** The header names a Connection header lists beyond the usual single token, or undefined. */
function connectionNamed(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const text = (typeof value === 'string' ? value : value.join(',')).toLowerCase();
  if (text === 'keep-alive' || text === 'close' || text === 'upgrade') return undefined;
  return text.split(',').map((token) => token.trim());
}

// What a request head written to an origin may hold. The parsers in front (llhttp, nghttp2, the
// proxy's own) already refuse most of this; the head is checked again where it is written, since a
// CR or LF here would let a client write a request of its own to the origin.
/** A method: a token. */
const methodToken = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header name: a token (lower case from every parser in front, any case accepted). */
const nameToken = methodToken;
/** What a field value may not hold: control characters but HTAB, and anything beyond latin1. */
const invalidValue = /[^\t\x20-\x7e\x80-\xff]/;
/** What an origin-form target may not hold: control characters, spaces, anything beyond latin1. */
const invalidTarget = /[^\x21-\x7e\x80-\xff]/;

/** Whether a header value can be written to an origin as it is. */
export const validFieldValue = (value: string): boolean => !invalidValue.test(value);

/** The request target for the origin: origin-form (a proxy-style absolute URL loses its scheme and authority). */
export function originTarget(url: string): string {
  if (url.charCodeAt(0) === 0x2f) return url;
  const authority = /^https?:\/\/[^/?#]*/i.exec(url);
  if (authority === null) return url;
  const rest = url.slice(authority[0].length);
  return rest.charCodeAt(0) === 0x2f ? rest : `/${rest}`;
}

/** The Host the client asked for as it sent it (HTTP/2: `:authority`), or the routed host when it sent none. */
export function clientHost(req: ProxyRequest, exchange: Pick<Exchange, 'host'>): string {
  const headers = req.headers;
  const authority = headers[':authority'] ?? headers.host;
  return typeof authority === 'string' ? authority : exchange.host;
}

/**
 * The request head for the origin: request line, Host first, the client's end-to-end headers, the
 * proxy's X-Forwarded-* and X-Real-IP, then `framing` (the body's Content-Length or
 * Transfer-Encoding, or an upgrade's Connection and Upgrade: whole lines), and the empty line.
 * Undefined when the request cannot be sent as it is (CONNECT, `OPTIONS *`, a control character):
 * the client is answered 400.
 */
export function originRequestHead(method: string, target: string, req: ProxyRequest, exchange: Pick<Exchange, 'client' | 'secure' | 'host'>, framing: string): string | undefined {
  if (method === 'CONNECT' || target.charCodeAt(0) !== 0x2f) return undefined;
  if (req instanceof ClientRequest) return fieldsHead(`${method} ${target} HTTP/1.1\r\n`, req.head.fields, exchange, framing);
  if (!methodToken.test(method) || invalidTarget.test(target)) return undefined;
  const headers = req.headers;
  const host = clientHost(req, exchange);
  if (invalidValue.test(host)) return undefined;
  const named = connectionNamed(headers.connection);
  let head = `${method} ${target} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const name in headers) {
    const value = headers[name];
    // `:method`, `:path`, ... of HTTP/2 are not headers.
    if (value === undefined || name.charCodeAt(0) === 0x3a || droppedRequestHeaders.has(name) || isProxyHeader(name)) continue;
    if (named?.includes(name) === true) continue;
    const joined = typeof value === 'string' ? value : value.join(name === 'cookie' ? '; ' : ', ');
    if (!nameToken.test(name) || invalidValue.test(joined)) return undefined;
    head += `${name}: ${joined}\r\n`;
  }
  return proxyLines(head, host, exchange, framing);
}

/**
 * The head from an HTTP/1.x request's own header lines (http1/request-head.ts: names lower case and
 * tokens, values without control characters, the method a token and the target without spaces or
 * control characters, one Host at most): passed on line by line, nothing checked again, no header
 * record made.
 */
function fieldsHead(requestLine: string, fields: readonly string[], exchange: Pick<Exchange, 'client' | 'secure' | 'host'>, framing: string): string {
  let host: string | undefined;
  let connection: string | undefined;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i];
    if (name === 'host') host = fields[i + 1];
    else if (name === 'connection') connection = connection === undefined ? fields[i + 1] : `${connection},${fields[i + 1] ?? ''}`;
  }
  host ??= exchange.host;
  const named = connectionNamed(connection);
  let head = `${requestLine}host: ${host}\r\n`;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i] ?? '';
    if (droppedRequestHeaders.has(name) || isProxyHeader(name)) continue;
    if (named?.includes(name) === true) continue;
    head += `${name}: ${fields[i + 1] ?? ''}\r\n`;
  }
  return proxyLines(head, host, exchange, framing);
}

/** The proxy's own lines, the framing and the empty line ending the head. */
function proxyLines(head: string, host: string, exchange: Pick<Exchange, 'client' | 'secure'>, framing: string): string {
  const client = exchange.client;
  return `${head}x-forwarded-for: ${client}\r\nx-real-ip: ${client}\r\nx-forwarded-proto: ${exchange.secure ? 'https' : 'http'}\r\nx-forwarded-host: ${host}\r\n${framing}\r\n`;
}

/** Appends a header to a flat name, value list, once per value (both writeHead flavours take repeated names). */
function append(out: string[], name: string, value: string | string[]): void {
  if (typeof value === 'string') out.push(name, value);
  else for (const one of value) out.push(name, one);
}

/**
 * The origin's answer headers for the client, as writeHead takes them (a flat name, value list):
 * `headers` (response-head.ts's list: lower-case names) is filtered in place and returned, with the
 * proxy's own answer headers (HSTS, a challenge's cookie) replacing the origin's of the same name,
 * cookies added to the origin's. `connection` is the origin's Connection header (what it names is
 * hop-by-hop too).
 */
export function clientResponseHeaders(headers: string[], connection: string | undefined, extra: Record<string, string | string[]>): string[] {
  let replaced: string[] | undefined;
  for (const name in extra) (replaced ??= []).push(name.toLowerCase());
  const named = connectionNamed(connection);
  let kept = 0;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i] ?? '';
    if (droppedResponseHeaders.has(name) || isProxyHeader(name)) continue;
    if (named?.includes(name) === true) continue;
    if (replaced?.includes(name) === true && name !== 'set-cookie') continue;
    if (kept !== i) {
      headers[kept] = name;
      headers[kept + 1] = headers[i + 1] ?? '';
    }
    kept += 2;
  }
  headers.length = kept;
  if (replaced !== undefined) for (const name in extra) append(headers, name, extra[name] ?? '');
  return headers;
}

/** An answer of the proxy's own: the proxy's answer headers and a short text. */
export function ownAnswerHeaders(body: string, extra: Record<string, string | string[]>): string[] {
  const out = ['content-type', 'text/plain; charset=utf-8', 'content-length', String(Buffer.byteLength(body))];
  for (const name in extra) append(out, name, extra[name] ?? '');
  return out;
}
