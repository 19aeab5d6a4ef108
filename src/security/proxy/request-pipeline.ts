// One request through the proxy: which resource holds the host, what its policy says, then the
// origin. The order (docs/proxy.md): the host → an ACME HTTP-01 token of ours → the resource served
// at all → guards (whitelist, blacklist, geo, methods, rate rules and challenges; HSTS first, so
// every answer over HTTPS has it) → rewrites (redirects to HTTPS and from www) → origin.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { Answer, Exchange, ProxyRequest, ProxyResponse, StepExchange, StepResult } from './exchange.ts';
import type { HostTable, ServedResource } from './host-table.ts';
import { forward } from './origins/forward.ts';
import { answerUpgrade, forwardUpgrade } from './origins/websocket.ts';
import type { ThreadDeps } from './thread-deps.ts';
import { acmeChallengeAnswer } from './tls/acme-challenge.ts';
import { serverNameKey } from './tls/secure-contexts.ts';

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
/** node:http's 'upgrade' event (WebSocket): the request, its connection and what was read past its head. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * The answer a request for `resource` gets before any of its steps, or undefined: an ACME HTTP-01
 * token of ours (the CA validating an order passes before every check, and whether the resource is
 * served), another resource's Host on a TLS connection (421), a resource not served (503).
 */
function refusalOf(table: HostTable, resource: ServedResource, req: ProxyRequest, path: string, secure: boolean): Answer | undefined {
  const challenge = acmeChallengeAnswer(resource.policy, path);
  if (challenge !== undefined) return challenge;
  if (secure) {
    // A TLS connection is for the resource its SNI named: another tenant's Host on it is refused.
    const servername = (req.socket as TLSSocket).servername;
    if (typeof servername !== 'string' || table.find(serverNameKey(servername)) !== resource) return misdirected;
  }
  return resource.policy.served ? undefined : notServed;
}

/** The path of a request target, without its query. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

type Verdict = Answer | undefined;

/**
 * The resource's guards then rewrites, from step `from` on (guards first, then rewrites): the answer
 * that stops the request, or undefined to forward it. A guard's `pass` skips the other guards. It
 * stays synchronous while the steps do (all but a rate rule counting through Redis): no promise per
 * request for nothing.
 */
function verdict(exchange: StepExchange, resource: ServedResource, from = 0): Verdict | Promise<Verdict> {
  const { guards, rewrites } = resource;
  for (let p = from; p < guards.length + rewrites.length; p++) {
    const step = p < guards.length ? guards[p] : rewrites[p - guards.length];
    if (step === undefined) break;
    const result = step(exchange);
    if (result instanceof Promise) return result.then((settled) => verdictAfter(settled, exchange, resource, p));
    if (result === 'pass' && p < guards.length) p = guards.length - 1;
    else if (result !== undefined && result !== 'pass') return result;
  }
  return undefined;
}

/** Goes on from step `p`, whose result was `result`. */
function verdictAfter(result: StepResult, exchange: StepExchange, resource: ServedResource, p: number): Verdict | Promise<Verdict> {
  if (result === 'pass') return verdict(exchange, resource, p < resource.guards.length ? resource.guards.length : p + 1);
  return result ?? verdict(exchange, resource, p + 1);
}

export function requestPipeline(table: HostTable, deps: ThreadDeps, secure: boolean): RequestHandler {
  const finish = (resource: ServedResource | undefined, outcome: string) => {
    if (resource !== undefined) deps.metrics.request(resource.policy.id, outcome);
  };

  async function run(exchange: Exchange, resource: ServedResource): Promise<void> {
    let refusal = verdict(exchange, resource);
    if (refusal instanceof Promise) refusal = await refusal;
    if (refusal !== undefined) {
      answer(exchange.res, refusal, exchange.answerHeaders);
      finish(resource, refusal.reason);
      return;
    }
    const forwarded = await forward(exchange, resource);
    finish(resource, forwarded.outcome);
  }

  return (req, res) => {
    const host = hostOf(req.headers[':authority'] as string | undefined ?? req.headers.host);
    const resource = table.find(host);
    if (resource === undefined) {
      answer(res, unknownHost);
      return;
    }
    const path = pathOf(req.url ?? '/');
    const refusal = refusalOf(table, resource, req, path, secure);
    if (refusal !== undefined) {
      answer(res, refusal);
      finish(resource, refusal.reason);
      return;
    }
    const exchange: Exchange = {
      req,
      res,
      client: peerOf(req),
      secure,
      host,
      method: req.method ?? 'GET',
      path,
      answerHeaders: {},
    };
    run(exchange, resource).catch((e: unknown) => {
      deps.logger.error({ err: e, resource: resource.policy.id }, 'the proxy failed on a request');
      answer(res, { status: 500, reason: 'proxy_error' });
      finish(resource, 'proxy_error');
    });
  };
}

/** The same pipeline for upgrade requests (WebSocket): the same refusals and steps, answered on the raw connection. */
export function upgradePipeline(table: HostTable, deps: ThreadDeps, secure: boolean): UpgradeHandler {
  const finish = (resource: ServedResource | undefined, outcome: string) => {
    if (resource !== undefined) deps.metrics.request(resource.policy.id, outcome);
  };

  async function run(req: IncomingMessage, socket: Duplex, head: Buffer, exchange: StepExchange, resource: ServedResource): Promise<void> {
    const refusal = await verdict(exchange, resource);
    if (refusal !== undefined) {
      answerUpgrade(socket, refusal, exchange.answerHeaders);
      finish(resource, refusal.reason);
      return;
    }
    const forwarded = await forwardUpgrade(req, socket, head, exchange, resource);
    finish(resource, forwarded.outcome);
  }

  return (req, socket, head) => {
    const host = hostOf(req.headers.host);
    const resource = table.find(host);
    if (resource === undefined) {
      answerUpgrade(socket, unknownHost, {});
      return;
    }
    const path = pathOf(req.url ?? '/');
    const refusal = refusalOf(table, resource, req, path, secure);
    if (refusal !== undefined) {
      answerUpgrade(socket, refusal, {});
      finish(resource, refusal.reason);
      return;
    }
    const exchange: StepExchange = { req, client: peerOf(req), secure, host, method: req.method ?? 'GET', path, answerHeaders: {} };
    run(req, socket, head, exchange, resource).catch((e: unknown) => {
      deps.logger.error({ err: e, resource: resource.policy.id }, 'the proxy failed on an upgrade');
      answerUpgrade(socket, { status: 500, reason: 'proxy_error' }, {});
      finish(resource, 'proxy_error');
    });
  };
}
