// What an origin is sent and a client gets back: the request target and the header rules. Hop-by-hop headers (RFC 9110 §7.6.1: Connection
// and every header it names, Keep-Alive, Proxy-*, TE, Trailer, Transfer-Encoding, Upgrade) describe
// one connection and are dropped both ways; each side's connection sets its own. The origin gets the
// client's Host as sent and X-Forwarded-For, X-Real-IP, X-Forwarded-Proto and X-Forwarded-Host set by
// the proxy: whatever the client sent under those names (and `Forwarded`, which some origins trust
// instead) is replaced, since the proxy has already settled who the client is (exchange.client).
import type { IncomingHttpHeaders } from 'node:http';
import type { Exchange, ProxyRequest } from '../exchange.ts';

/** Request headers never passed on: hop-by-hop ones, and the ones the proxy sets itself. */
const droppedRequestHeaders = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'http2-settings',
  'host', 'x-forwarded-for', 'x-real-ip', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded',
  // Node answers `Expect: 100-continue` itself; undici refuses to send it.
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

/** The request headers for the origin as undici takes them: a flat name, value list. */
export function originRequestHeaders(req: ProxyRequest, exchange: Pick<Exchange, 'client' | 'secure' | 'host'>): string[] {
  const headers = req.headers;
  const named = connectionNamed(headers.connection);
  const out: string[] = [];
  for (const name in headers) {
    const value = headers[name];
    // `:method`, `:path`, ... of HTTP/2 are not headers.
    if (value === undefined || name.charCodeAt(0) === 0x3a || droppedRequestHeaders.has(name) || isProxyHeader(name)) continue;
    if (named?.includes(name) === true) continue;
    out.push(name, typeof value === 'string' ? value : value.join(name === 'cookie' ? '; ' : ', '));
  }
  const host = clientHost(req, exchange);
  out.push(
    'host', host,
    'x-forwarded-for', exchange.client,
    'x-real-ip', exchange.client,
    'x-forwarded-proto', exchange.secure ? 'https' : 'http',
    'x-forwarded-host', host,
  );
  return out;
}

/** Appends a header to a flat name, value list, once per value (both writeHead flavours take repeated names). */
function append(out: string[], name: string, value: string | string[]): void {
  if (typeof value === 'string') out.push(name, value);
  else for (const one of value) out.push(name, one);
}

/**
 * The origin's answer headers for the client, as writeHead takes them (a flat name, value list),
 * with the proxy's own answer headers (HSTS, a challenge's cookie) replacing the origin's of the
 * same name, cookies added to the origin's.
 */
export function clientResponseHeaders(headers: IncomingHttpHeaders, extra: Record<string, string | string[]>): string[] {
  let replaced: string[] | undefined;
  for (const name in extra) (replaced ??= []).push(name.toLowerCase());
  const named = connectionNamed(headers.connection);
  const out: string[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || droppedResponseHeaders.has(name) || isProxyHeader(name)) continue;
    if (named?.includes(name) === true) continue;
    if (replaced?.includes(name) === true && name !== 'set-cookie') continue;
    append(out, name, value);
  }
  if (replaced !== undefined) for (const name in extra) append(out, name, extra[name] ?? '');
  return out;
}

/** An answer of the proxy's own: the proxy's answer headers and a short text. */
export function ownAnswerHeaders(body: string, extra: Record<string, string | string[]>): string[] {
  const out = ['content-type', 'text/plain; charset=utf-8', 'content-length', String(Buffer.byteLength(body))];
  for (const name in extra) append(out, name, extra[name] ?? '');
  return out;
}
