// Forwards a request to the resource's origins and streams the answer back, for HTTP/1.1 clients
// (node:http) and HTTP/2 clients (node:http2's compatibility API) alike. Neither body is held
// whole: the request body is undici's to read from the client's stream at the origin's pace, and
// the answer is written as it comes, the origin paused while the client's side is full. When the
// client leaves, the origin request is aborted; when the origin fails in mid-answer, the client is
// cut off rather than given a truncated answer as a whole one.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { BodyRefused, limitBody } from '../body-limit.ts';
import { h2Stream, type Exchange, type ProxyRequest, type ProxyResponse } from '../exchange.ts';
import type { ProxyLimits } from '../server-limits.ts';
import { clientResponseHeaders, originRequestHeaders, originTarget, ownAnswerHeaders } from './forwarded-headers.ts';
import { Forwarding, type ForwardOutcome, type ForwardResult, type ForwardTarget } from './forwarding.ts';

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

/** Whether a request has no body: undici then has nothing to read, and it may be sent again. */
function bodiless(req: ProxyRequest): boolean {
  const stream = h2Stream(req);
  if (stream !== undefined) return stream.endAfterHeaders;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

class HttpForwarding extends Forwarding {
  readonly #req: ProxyRequest;
  readonly #res: ResponseSink;
  #drainListened = false;

  constructor(exchange: Exchange, target: ForwardTarget, options: Dispatcher.DispatchOptions) {
    super(target.origins, exchange, options);
    this.#req = exchange.req;
    this.#res = exchange.res;
    this.#res[forwardingOf] = this;
    this.#res.on('close', onClientClose);
  }

  closed(): void {
    this.clientClosed();
  }

  drained(): void {
    this.controller?.resume();
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (!this.finalAnswer(controller, statusCode)) return;
    try {
      this.#res.writeHead(statusCode, clientResponseHeaders(headers, this.exchange.answerHeaders));
    } catch {
      // A header the client's protocol cannot carry (HTTP/2 is stricter than HTTP/1.1).
      controller.abort(new Error('the origin answered headers that cannot be relayed'));
      return;
    }
    this.responding = true;
    this.status = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#res.write(chunk)) return;
    controller.pause();
    if (!this.#drainListened) {
      this.#drainListened = true;
      this.#res.on('drain', onClientDrain);
    }
  }

  onResponseEnd(): void {
    if (this.done) return;
    this.#res.end();
    this.finish('passed', this.status);
  }

  protected clientError(error: Error): boolean {
    return this.#req.errored === error || clientGone(this.#req);
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
  const options: Dispatcher.DispatchOptions = {
    method: exchange.method,
    path: originTarget(req.url ?? '/'),
    headers: originRequestHeaders(req, exchange),
    // Counted and timed as it streams: a chunked body over the size limit, or one trickled too slowly.
    body: bodiless(req) ? null : limitBody(req, limits),
  };
  return new HttpForwarding(exchange, resource, options).start();
}
