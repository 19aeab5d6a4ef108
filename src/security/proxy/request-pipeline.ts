// One request through the proxy: which resource holds the host, what its policy says, then the
// origin. The order (docs/proxy.md): the host → an ACME HTTP-01 token of ours → the resource served
// at all → guards (whitelist, blacklist, geo, methods, rate rules and challenges; HSTS first, so
// every answer over HTTPS has it) → rewrites (redirects to HTTPS and from www) → origin.
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AccessLog } from './access-log.ts';
import { declaredBodyProblem } from './body-limit.ts';
import { clientAddress, trustedNetworks } from './client-address.ts';
import { connectionClient } from './connection-guard.ts';
import { headerValue, type Answer, type Exchange, type ProxyRequest, type ProxyResponse, type StepExchange, type StepResult } from './exchange.ts';
import { ClientRequest } from './http1/client-request.ts';
import type { HostTable, ServedResource, Steps } from './host-table.ts';
import { forward } from './origins/forward.ts';
import { answerUpgrade, forwardUpgrade } from './origins/websocket.ts';
import type { ThreadDeps } from './thread-deps.ts';
import { clientKeyOf } from './steps/parsed-client.ts';
import { sharedAnswer } from './steps/answers.ts';
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

/**
 * An HTTP/1 request whose body has not been read: answered without reading it, its connection is
 * closed after the answer, so that a client streaming a body we refused cannot keep feeding it.
 */
function unreadBody(req: ProxyRequest): boolean {
  return req instanceof ClientRequest && req.hasBody && !req.complete;
}

/** Appends headers to a flat name, value list. */
function appendHeaders(list: string[], headers: Record<string, string | string[]>): void {
  for (const name in headers) {
    const value = headers[name] ?? '';
    if (typeof value === 'string') list.push(name, value);
    else for (const one of value) list.push(name, one);
  }
}

export function answer(req: ProxyRequest, res: ProxyResponse, reply: Answer, extra?: Record<string, string | string[]>): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = reply.body ?? `${String(reply.status)} ${reply.reason}\n`;
  const headers = ['content-type', reply.type ?? 'text/plain; charset=utf-8', 'content-length', String(Buffer.byteLength(body))];
  if (unreadBody(req)) headers.push('connection', 'close');
  if (extra !== undefined) appendHeaders(headers, extra);
  if (reply.headers !== undefined) appendHeaders(headers, reply.headers);
  res.writeHead(reply.status, headers);
  res.end(body);
}

const unknownHost: Answer = { status: 404, reason: 'unknown_host', body: 'edgeplane: no site is served under this name\n' };
const misdirected: Answer = { status: 421, reason: 'misdirected', body: 'edgeplane: this connection is for another site\n' };
// Held first: answered at once, a flood source would ask again at once (mitigation/tarpit.ts).
const shed: Answer = sharedAnswer({ status: 429, reason: 'shed', headers: { 'retry-after': '10' }, body: 'edgeplane: too many requests from your address while this site is under attack\n', hold: true });
const notServed: Answer = { status: 503, reason: 'not_served', body: 'edgeplane: this site is not served at the moment\n' };

export type RequestHandler = (req: ProxyRequest, res: ProxyResponse) => void;
/** An HTTP/1.1 upgrade (WebSocket): the request, its connection and what was read past its head. */
export type UpgradeHandler = (req: ProxyRequest, socket: Duplex, head: Buffer) => void;

/** The real client: the connection's (PROXY protocol applied), or a trusted load balancer's X-Forwarded-For. */
function clientOf(req: ProxyRequest, trusted: ReturnType<typeof trustedNetworks>): string {
  const peer = connectionClient(req.socket);
  return trusted.length === 0 ? peer : clientAddress(peer, headerValue(req, 'x-forwarded-for'), trusted);
}

/** What the steps (and, with `res`, forwarding) see of a request: its client, host, method and path. */
function exchangeOf<R extends ProxyResponse | undefined>(req: ProxyRequest, res: R, client: string, secure: boolean): StepExchange & { res: R } {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return {
    req,
    res,
    client,
    secure,
    host: hostOf(req.httpVersionMajor === 2 ? headerValue(req, ':authority') ?? headerValue(req, 'host') : headerValue(req, 'host')),
    method: req.method ?? 'GET',
    path: query < 0 ? url : url.slice(0, query),
    answerHeaders: {},
  };
}

/**
 * The answer a request for `resource` gets before any of its steps, or undefined: an ACME HTTP-01
 * token of ours (the CA validating one of our orders passes before every check, and whether the
 * resource is served), another resource's Host on a TLS connection (421), a resource not served (503).
 */
function refusalOf(table: HostTable, resource: ServedResource, req: ProxyRequest, path: string, secure: boolean): Answer | undefined {
  const challenge = acmeChallengeAnswer(resource.policy, path);
  if (challenge !== undefined) return challenge;
  if (secure) {
    // A TLS connection is for the resource its SNI named: another tenant's Host on it is refused.
    const servername = (req.socket as { servername?: unknown }).servername;
    if (typeof servername !== 'string' || table.find(serverNameKey(servername)) !== resource) return misdirected;
  }
  return resource.policy.served ? undefined : notServed;
}

type Verdict = Answer | undefined;

/**
 * The resource's guards then rewrites, from step `from` on (guards first, then rewrites): the answer
 * that stops the request, or undefined to forward it. A guard's `pass` skips the other guards. It
 * stays synchronous while the steps do (all but a rate rule counting through Redis): no promise per
 * request for nothing.
 */
function verdict(exchange: StepExchange, steps: Steps, from = 0): Verdict | Promise<Verdict> {
  const { guards, rewrites } = steps;
  for (let p = from; p < guards.length + rewrites.length; p++) {
    const step = p < guards.length ? guards[p] : rewrites[p - guards.length];
    if (step === undefined) break;
    const result = step(exchange);
    if (result instanceof Promise) return result.then((settled) => verdictAfter(settled, exchange, steps, p));
    if (result === 'pass' && p < guards.length) p = guards.length - 1;
    else if (result !== undefined && result !== 'pass') return result;
  }
  return undefined;
}

/** Goes on from step `p`, whose result was `result`. */
function verdictAfter(result: StepResult, exchange: StepExchange, steps: Steps, p: number): Verdict | Promise<Verdict> {
  if (result === 'pass') return verdict(exchange, steps, p < steps.guards.length ? steps.guards.length : p + 1);
  return result ?? verdict(exchange, steps, p + 1);
}

/** What the end of a request needs to know of its start. */
interface Started {
  exchange: Exchange;
  /** performance.now() when its headers were parsed. */
  at: number;
  /** Its connection's bytes written before it (HTTP/1: one answer at a time); -1: not counted (HTTP/2). */
  written: number;
  /** Its connection, for the bytes written (HTTP/2's request lets go of its session's socket once the stream is done). */
  socket: Socket;
}

export function requestPipeline(table: HostTable, deps: ThreadDeps, secure: boolean, accessLog: AccessLog | undefined): RequestHandler {
  const trusted = trustedNetworks(deps.settings.trusted);
  const { maxBodySize } = deps.settings.limits;

  /** Every request ends here once: its metrics and its access log line. `originMs`: until the answering origin's headers. */
  const finish = ({ exchange, at, written, socket }: Started, resource: ServedResource | undefined, outcome: string, originMs?: number) => {
    deps.metrics.request(resource?.policy.id, outcome, originMs === undefined ? undefined : originMs / 1000);
    // What the origin made of a forwarded request: no answer, or a 5xx, counts against it.
    if (outcome === 'passed' || outcome === 'origin_error') resource?.attack.forwarded(outcome === 'origin_error' || exchange.res.statusCode >= 500, at);
    const waf = exchange.waf;
    if (waf !== undefined && resource !== undefined) deps.metrics.waf(resource.policy.id, waf.categories, waf.action);
    if (accessLog === undefined) return;
    const { req, res } = exchange;
    accessLog.write({
      resource: resource?.policy.id,
      host: exchange.host,
      method: exchange.method,
      path: exchange.path,
      status: res.statusCode,
      outcome,
      client: exchange.client,
      httpVersion: req.httpVersion,
      secure,
      durationMs: performance.now() - at,
      originMs,
      bytesSent: written < 0 ? undefined : socket.bytesWritten - written,
      userAgent: headerValue(req, 'user-agent'),
      waf,
    });
  };

  /** The proxy's own answer, then the end. */
  const send = (started: Started, reply: Answer, resource: ServedResource | undefined, extra?: Record<string, string | string[]>) => {
    answer(started.exchange.req, started.exchange.res, reply, extra);
    finish(started, resource, reply.reason);
  };

  /** `send`, after the tarpit's delay for an answer marked `hold` (at once when the tarpit is full). */
  const refuse = (started: Started, reply: Answer, resource: ServedResource | undefined, extra?: Record<string, string | string[]>) => {
    if (reply.hold === true && deps.tarpit.hold(() => send(started, reply, resource, extra))) return;
    send(started, reply, resource, extra);
  };

  const failed = (started: Started, resource: ServedResource, e: unknown) => {
    deps.logger.error({ err: e, resource: resource.policy.id }, 'the proxy failed on a request');
    refuse(started, { status: 500, reason: 'proxy_error' }, resource);
  };

  /** The steps said: refused (their answer), or forwarded. */
  const decided = (started: Started, resource: ServedResource, refusal: Verdict) => {
    if (refusal !== undefined) {
      refuse(started, refusal, resource, started.exchange.answerHeaders);
      return;
    }
    forward(started.exchange, resource, deps.settings.limits).then(
      // The origin's latency: until its answer's headers (-1: no origin answered).
      (forwarded) => finish(started, resource, forwarded.outcome, forwarded.originMs < 0 ? undefined : forwarded.originMs),
      (e: unknown) => failed(started, resource, e),
    );
  };

  return (req, res) => {
    const exchange: Exchange = exchangeOf(req, res, clientOf(req, trusted), secure);
    const started: Started = { exchange, at: performance.now(), written: req.httpVersionMajor === 1 ? req.socket.bytesWritten : -1, socket: req.socket };
    // Before anything reads it: a declared body over the limit (framing was checked as the head was read).
    const problem = declaredBodyProblem(req, maxBodySize);
    if (problem !== undefined) {
      refuse(started, problem, undefined);
      return;
    }
    const resource = table.find(exchange.host);
    if (resource === undefined) {
      refuse(started, unknownHost, undefined);
      return;
    }
    const refusal = refusalOf(table, resource, req, exchange.path, secure);
    if (refusal !== undefined) {
      refuse(started, refusal, resource);
      return;
    }
    // Under attack, the heaviest clients go before anything else is spent on them, and new clients meet the bot challenge.
    const underAttack = resource.attack.arrived(started.at);
    if (underAttack && resource.attack.heavy(clientKeyOf(exchange.client))) {
      refuse(started, shed, resource);
      return;
    }
    const steps = underAttack ? resource.stepsUnderAttack : resource.steps;
    // Synchronous while the steps are (all but a rate rule counting through Redis): no promise for nothing.
    try {
      const result = verdict(exchange, steps);
      if (result instanceof Promise) {
        result.then(
          (settled) => decided(started, resource, settled),
          (e: unknown) => failed(started, resource, e),
        );
      } else decided(started, resource, result);
    } catch (e) {
      failed(started, resource, e);
    }
  };
}

/**
 * The same pipeline for upgrade requests (WebSocket): the same client, refusals and steps, answered
 * on the raw connection. Counted in the metrics; the access log has no line for them.
 */
export function upgradePipeline(table: HostTable, deps: ThreadDeps, secure: boolean): UpgradeHandler {
  const trusted = trustedNetworks(deps.settings.trusted);
  const { maxBodySize } = deps.settings.limits;
  const finish = (resource: ServedResource | undefined, outcome: string) => deps.metrics.request(resource?.policy.id, outcome);

  async function run(req: ProxyRequest, socket: Duplex, head: Buffer, exchange: StepExchange, resource: ServedResource): Promise<void> {
    const refusal = await verdict(exchange, resource.attack.underAttack ? resource.stepsUnderAttack : resource.steps);
    if (refusal !== undefined) {
      answerUpgrade(socket, refusal, exchange.answerHeaders);
      finish(resource, refusal.reason);
      return;
    }
    const forwarded = await forwardUpgrade(req, socket, head, exchange, resource);
    finish(resource, forwarded.outcome);
  }

  return (req, socket, head) => {
    const exchange: StepExchange = exchangeOf(req, undefined, clientOf(req, trusted), secure);
    const resource = table.find(exchange.host);
    const refusal = declaredBodyProblem(req, maxBodySize) ?? (resource === undefined ? unknownHost : refusalOf(table, resource, req, exchange.path, secure));
    if (refusal !== undefined || resource === undefined) {
      answerUpgrade(socket, refusal ?? unknownHost, {});
      finish(resource, (refusal ?? unknownHost).reason);
      return;
    }
    run(req, socket, head, exchange, resource).catch((e: unknown) => {
      deps.logger.error({ err: e, resource: resource.policy.id }, 'the proxy failed on an upgrade');
      answerUpgrade(socket, { status: 500, reason: 'proxy_error' }, {});
      finish(resource, 'proxy_error');
    });
  };
}
