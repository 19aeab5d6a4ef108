// Forwards a request to the resource's origins and streams the answer back, for HTTP/1.1 clients
// (node:http, or the proxy's own HTTP/1.1 server) and HTTP/2 clients (node:http2's compatibility
// API) alike. Neither body is held whole: the request body is read from the client's stream at the
// origin's pace (with its Content-Length when it declared one, else chunked), and the answer is
// written as it comes, the origin paused while the client's side is full. When the client leaves,
// the origin request is aborted; when the origin fails in mid-answer, the client is cut off rather
// than given a truncated answer as a whole one.
import type { Readable } from 'node:stream';
import { BodyRefused, limitBody } from '../body-limit.ts';
import { h2Stream, requestHasBody, type Exchange, type ProxyRequest, type ProxyResponse } from '../exchange.ts';
import { ClientRequest } from '../http1/client-request.ts';
import type { ProxyLimits } from '../server-limits.ts';
import { clientResponseHeaders, originRequestHead, originTarget, ownAnswerHeaders } from './forwarded-headers.ts';
import { Forwarding, type ForwardOutcome, type ForwardResult, type ForwardTarget } from './forwarding.ts';
import type { ResponseHead } from './response-head.ts';

export type { ForwardOutcome, ForwardResult } from './forwarding.ts';

/** The forwarding a request and its response belong to, for their event listeners (shared, not per-request closures). */
const forwardingOf = Symbol('forwarding');

interface Carrier {
  [forwardingOf]?: HttpForwarding;
}

/** A response carrying its forwarding for the listeners. */
type ResponseSink = ProxyResponse & Carrier;

/**
 * The client left. For HTTP/2 this also guards uploads: a request body cut short (the stream reset)
 * still ends like a whole one in node:http2, but only after the response's 'close', which aborts
 * the origin request first.
 */
function onClientClose(this: ResponseSink): void {
  this[forwardingOf]?.closed();
}

function onClientDrain(this: ResponseSink): void {
  this[forwardingOf]?.drained();
}

/** Whether the client is gone (its connection, or its HTTP/2 stream): its response's 'close' may be past. */
function clientGone(req: ProxyRequest): boolean {
  return (h2Stream(req) ?? req.socket).destroyed;
}

/**
 * The body's length as the request declares it: -1 when it has none (nothing to read, and it may
 * be sent again), -2 when it comes chunked (an HTTP/1.1 chunked body, an HTTP/2 body without
 * Content-Length), -3 when its Content-Length is not a length.
 */
function declaredBody(req: ProxyRequest): number {
  if (req instanceof ClientRequest) {
    const head = req.head;
    return head.chunked ? -2 : head.contentLength > 0 ? head.contentLength : -1;
  }
  if (!requestHasBody(req)) return -1;
  const length = req.headers['content-length'];
  if (length === undefined) return -2;
  return /^\d{1,15}$/.test(length) ? Number(length) : -3;
}

/** Whether the client declared a Content-Length (for a bodiless request: 0). */
function declaresLength(req: ProxyRequest): boolean {
  return req instanceof ClientRequest ? req.head.contentLength >= 0 : req.headers['content-length'] !== undefined;
}

/** Methods whose requests carry a body by definition: sent `content-length: 0` when they have none. */
const payloadMethods = new Set(['POST', 'PUT', 'PATCH']);
const noBody = 'content-length: 0\r\n';
const chunkedBody = 'transfer-encoding: chunked\r\n';

class HttpForwarding extends Forwarding {
  readonly #req: ProxyRequest;
  readonly #res: ResponseSink;
  #drainListened = false;

  constructor(exchange: Exchange, target: ForwardTarget, head: string, body: Readable | null, bodyLength: number) {
    super(target.origins, exchange, head, body, bodyLength, false);
    this.#req = exchange.req;
    this.#res = exchange.res;
    this.#res[forwardingOf] = this;
    this.#res.on('close', onClientClose);
  }

  closed(): void {
    this.clientClosed();
  }

  drained(): void {
    this.connection?.resume(this);
  }

  onResponseStart(head: ResponseHead): void {
    if (!this.finalAnswer()) return;
    const status = head.status;
    try {
      this.#res.writeHead(status, clientResponseHeaders(head.headers, head.connection, this.exchange.answerHeaders));
    } catch {
      // A header the client's protocol cannot carry (HTTP/2 is stricter than HTTP/1.1): as an origin
      // failing before its answer, without counting against its health (it did answer).
      this.pool?.cancel(this);
      this.answer(502, 'Bad Gateway: the origin\'s answer cannot be relayed\n', 'origin_error');
      return;
    }
    this.responding = true;
    this.status = status;
  }

  onResponseData(chunk: Buffer): boolean {
    if (this.#res.write(chunk)) return true;
    if (!this.#drainListened) {
      this.#drainListened = true;
      this.#res.on('drain', onClientDrain);
    }
    return false;
  }

  onResponseEnd(last: Buffer | undefined): void {
    if (this.done) return;
    if (last === undefined) this.#res.end();
    else this.#res.end(last);
    this.finish('passed', this.status);
  }

  protected clientError(): boolean {
    return clientGone(this.#req);
  }

  protected refusedBody(error: Error): BodyRefused | undefined {
    return error instanceof BodyRefused ? error : undefined;
  }

  protected answer(status: number, body: string, outcome: ForwardOutcome): void {
    const res = this.#res;
    if (res.headersSent) {
      this.cutOff();
      this.finish(outcome, status);
      return;
    }
    const headers = ownAnswerHeaders(body, this.exchange.answerHeaders);
    // A body refused in mid-stream: the rest of it must not be read as the next request.
    if (this.#req.httpVersionMajor === 1 && !this.#req.complete) headers.push('connection', 'close');
    res.writeHead(status, headers);
    res.end(body);
    this.finish(outcome, status);
  }

  protected cutOff(): void {
    this.#res.destroy();
  }
}

/**
 * Forwards the exchange's request to one of the resource's origins and relays the answer (a body over
 * the size limit or too slow gets 413 or 408 when nothing was answered yet, else the client is cut off);
 * resolves once the client's side is over (answered, cut off, or gone).
 */
export function forward(exchange: Exchange, resource: ForwardTarget, limits: ProxyLimits): Promise<ForwardResult> {
  const req = exchange.req;
  // Gone while its checks ran (a slow rate-limit store, say): nothing would ever read the answer.
  if (clientGone(req)) return Promise.resolve({ outcome: 'client_closed', status: 499, originMs: -1 });
  const target = originTarget(req.url ?? '/');
  const declared = declaredBody(req);
  if (declared === -1) {
    const framing = declaresLength(req) || payloadMethods.has(exchange.method) ? noBody : '';
    return new HttpForwarding(exchange, resource, originRequestHead(exchange.method, target, req, exchange, framing) ?? '', null, 0).start();
  }
  // A declared length is kept (the origin may want it: an upload's size); else the body goes chunked.
  const head = declared === -3 ? undefined : originRequestHead(exchange.method, target, req, exchange, declared >= 0 ? `content-length: ${String(declared)}\r\n` : chunkedBody);
  if (head === undefined) return new HttpForwarding(exchange, resource, '', null, 0).start();
  // Counted and timed as it streams: a chunked body over the size limit, or one trickled too slowly
  // (already so when the WAF held its start: exchange.body).
  return new HttpForwarding(exchange, resource, head, exchange.body ?? limitBody(req, limits), declared >= 0 ? declared : -1).start();
}
