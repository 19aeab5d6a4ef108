// One request through the proxy: which resource holds the host, what its policy says, then the
// origin. The order (docs/proxy.md): the host → the resource served at all → guards (whitelist,
// blacklist, geo, methods, rate rules and challenges) → rewrites (redirects, HSTS) → origin.
import type { TLSSocket } from 'node:tls';
import type { Answer, Exchange, ProxyRequest, ProxyResponse, StepResult } from './exchange.ts';
import type { HostTable, ServedResource } from './host-table.ts';
import { forward } from './origins/forward.ts';
import type { ThreadDeps } from './thread-deps.ts';

/** `Example.COM:8081` → `example.com`; `[2001:db8::1]:443` → `2001:db8::1`; trailing dot dropped. */
export function hostOf(authority: string | undefined): string {
  if (authority === undefined) return '';
  let end = authority.length;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    return close < 0 ? '' : authority.slice(1, close).toLowerCase();
  }
  const colon = authority.lastIndexOf(':');
  if (colon >= 0) end = colon;
  if (end > 0 && authority.charCodeAt(end - 1) === 0x2e) end--;
  return authority.slice(0, end).toLowerCase();
}

/** The peer's address, IPv4-mapped IPv6 as IPv4. */
function peerOf(req: ProxyRequest): string {
  const address = req.socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export function answer(res: ProxyResponse, reply: Answer, extra: Record<string, string | string[]> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = reply.body ?? `${String(reply.status)} ${reply.reason}\n`;
  res.writeHead(reply.status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), ...extra, ...reply.headers });
  res.end(body);
}

const unknownHost: Answer = { status: 404, reason: 'unknown_host', body: 'edgeplane: no site is served under this name\n' };
const misdirected: Answer = { status: 421, reason: 'misdirected', body: 'edgeplane: this connection is for another site\n' };
const notServed: Answer = { status: 503, reason: 'not_served', body: 'edgeplane: this site is not served at the moment\n' };

export type RequestHandler = (req: ProxyRequest, res: ProxyResponse) => void;

export function requestPipeline(table: HostTable, deps: ThreadDeps, secure: boolean): RequestHandler {
  const finish = (resource: ServedResource | undefined, outcome: string) => {
    if (resource !== undefined) deps.metrics.request(resource.policy.id, outcome);
  };

  async function run(exchange: Exchange, resource: ServedResource): Promise<void> {
    let result: StepResult | Promise<StepResult>;
    for (const guard of resource.guards) {
      result = guard(exchange);
      if (result instanceof Promise) result = await result;
      if (result === 'pass') break;
      if (result !== undefined) {
        answer(exchange.res, result, exchange.answerHeaders);
        finish(resource, result.reason);
        return;
      }
    }
    for (const rewrite of resource.rewrites) {
      result = rewrite(exchange);
      if (result instanceof Promise) result = await result;
      if (result !== undefined && result !== 'pass') {
        answer(exchange.res, result, exchange.answerHeaders);
        finish(resource, result.reason);
        return;
      }
    }
    const forwarded = await forward(exchange, resource, deps);
    finish(resource, forwarded.outcome);
  }

  return (req, res) => {
    const host = hostOf(req.headers[':authority'] as string | undefined ?? req.headers.host);
    const resource = table.find(host);
    if (resource === undefined) {
      answer(res, unknownHost);
      return;
    }
    if (secure) {
      // A TLS connection is for the resource its SNI named: another tenant's Host on it is refused.
      const servername = (req.socket as TLSSocket).servername;
      if (typeof servername !== 'string' || table.find(servername.toLowerCase()) !== resource) {
        answer(res, misdirected);
        finish(resource, misdirected.reason);
        return;
      }
    }
    if (!resource.policy.served) {
      answer(res, notServed);
      finish(resource, notServed.reason);
      return;
    }
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const exchange: Exchange = {
      req,
      res,
      client: peerOf(req),
      secure,
      host,
      method: req.method ?? 'GET',
      path: query < 0 ? url : url.slice(0, query),
      answerHeaders: {},
    };
    run(exchange, resource).catch((e: unknown) => {
      deps.logger.error({ err: e, resource: resource.policy.id }, 'the proxy failed on a request');
      answer(res, { status: 500, reason: 'proxy_error' });
      finish(resource, 'proxy_error');
    });
  };
}
