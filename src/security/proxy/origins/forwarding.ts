// One request's way to an origin, whatever the client side is (an HTTP answer, a WebSocket): which
// origin, what a failure means, whether to try again. A failure before any byte reached an origin
// (no connection: refused, unreachable, timed out, a non-public address) is retried on the next
// origin, for idempotent requests without a body only (a body read once cannot be sent again),
// the way nginx's `proxy_next_upstream error timeout` does before anything reaches the client; any
// failure of the origin's counts against its passive health. A request on a kept-alive connection
// the origin had closed (its idle close racing the request: reset or ended before any answer
// byte) is sent once more on a fresh connection to the same origin, on the same conditions, as
// nginx and undici do: not the origin's failure. The connection's handler (origin-connection.ts)
// is this object itself: no closure per request, and the result the caller awaits is this object too.
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { OriginConnection, OriginHandler } from './origin-connection.ts';
import { OriginError } from './origin-connection.ts';
import type { OriginPool } from './origin-pools.ts';
import type { OriginSet } from './origin-set.ts';
import type { ResponseHead } from './response-head.ts';

/**
 * `passed`: the origin's answer was relayed (whatever its status); `origin_error`: no origin
 * answered (the proxy answered 502, 503 or 504) or one failed in mid-answer; `client_closed`: the client left
 * first; `bad_request`: the request could not be sent as it was (the proxy answered 400);
 * `body_too_large`, `body_too_slow`: the request body broke the limits (413, 408: body-limit.ts).
 */
export type ForwardOutcome = 'passed' | 'origin_error' | 'client_closed' | 'bad_request' | 'body_too_large' | 'body_too_slow';

export interface ForwardResult {
  outcome: ForwardOutcome;
  /** The status the client was sent; 499 when it left first (nginx's convention). */
  status: number;
  /** From the request sent to the answering origin's response headers, in ms; -1 when none answered. */
  originMs: number;
}

/** What a resource offers to forwarding: its origins (host-table.ts's ServedResource has more). */
export interface ForwardTarget {
  origins: OriginSet;
}

/** The client side of an exchange as forwarding needs it. */
export interface ForwardClient {
  /** The real client's address. */
  client: string;
  secure: boolean;
  method: string;
  answerHeaders: Record<string, string | string[]>;
}

/** How a failure is treated: by whom it was caused; `busy`: the origin's connections are all taken (not a failure of its). */
type Fault = 'client' | 'origin' | 'proxy' | 'busy';

/** Methods whose repetition is harmless (RFC 9110 §9.2.2). */
const idempotent = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** Errors that come from the request as the client sent it, not from the origin. */
const clientErrorCodes = new Set(['EDGEPLANE_REQUEST_INVALID', 'EDGEPLANE_REQUEST_BODY_LENGTH']);
const timeoutCodes = new Set(['EDGEPLANE_ORIGIN_CONNECT_TIMEOUT', 'EDGEPLANE_ORIGIN_HEADERS_TIMEOUT', 'ETIMEDOUT']);

const codeOf = (error: Error) => (error as NodeJS.ErrnoException).code;

const invalidRequest = new OriginError('EDGEPLANE_REQUEST_INVALID', 'the request cannot be sent to an origin as it is');
const bodyCut = new Error('the request body ended before it was whole');

export abstract class Forwarding implements OriginHandler, ForwardResult {
  outcome: ForwardOutcome = 'passed';
  status = 0;
  originMs = -1;
  readonly head: string;
  readonly body: Readable | null;
  readonly bodyLength: number;
  readonly headRequest: boolean;
  readonly upgrading: boolean;
  connection: OriginConnection | undefined;
  protected readonly origins: OriginSet;
  protected readonly exchange: ForwardClient;
  /** The origin of the current attempt, its pool, and when the request was sent to it. */
  protected index = -1;
  protected pool: OriginPool | undefined;
  protected sentAt = 0;
  /** The client's side has been answered or has gone: nothing more is written to it. */
  protected done = false;
  /** Headers (or a 101) have gone to the client: a failure from now on can only cut it off. */
  protected responding = false;
  /** The current attempt got onto a connection to its origin: whatever fails next may have reached it, so it is not retried. */
  #onOrigin = false;
  #tried: number[] | undefined;
  readonly #retryable: boolean;
  /** The request was sent again after a kept-alive connection lost it. */
  #resent = false;
  /** What failed the request body, if it did. */
  #bodyError: Error | undefined;
  #resolve: ((result: ForwardResult) => void) | undefined;

  /**
   * `head`: the whole request head as each origin tried is sent it (forwarded-headers.ts), empty
   * when the request cannot be sent as it is (answered 400); `body` and its declared length (-1:
   * sent chunked); `upgrading`: the head asks for an upgrade.
   */
  constructor(origins: OriginSet, exchange: ForwardClient, head: string, body: Readable | null, bodyLength: number, upgrading: boolean) {
    this.origins = origins;
    this.exchange = exchange;
    this.head = head;
    this.body = body;
    this.bodyLength = bodyLength;
    this.upgrading = upgrading;
    this.headRequest = exchange.method === 'HEAD';
    this.#retryable = body === null && idempotent.has(exchange.method);
    if (body !== null) {
      // A body failing (its limit's refusal, the client gone) fails the request wherever it is; the
      // origin connection it was going out on is closed: the origin must not take a cut body for a whole one.
      body.on('error', (error: Error) => this.#bodyFailed(error));
      body.on('close', () => {
        if (!body.readableEnded) this.#bodyFailed(bodyCut);
      });
    }
  }

  /** Sends the request to the first available origin; resolves when the client's side is over. */
  start(): Promise<ForwardResult> {
    const result = new Promise<ForwardResult>((resolve) => (this.#resolve = resolve));
    if (this.head.length === 0) this.#failed(invalidRequest, 'client');
    else this.#attempt(performance.now(), undefined);
    return result;
  }

  #attempt(now: number, lastError: Error | undefined): void {
    const index = this.origins.pick(this.exchange.client, this.#tried, now);
    if (index === -1) {
      this.#unanswered(lastError);
      return;
    }
    this.index = index;
    this.sentAt = now;
    this.#onOrigin = false;
    this.#resent = false;
    const pools = this.origins.pools(index);
    if (pools.refusal !== undefined) {
      this.#failed(pools.refusal, 'origin');
      return;
    }
    const pool = pools.pool(this.exchange.secure && !this.origins.httpsToHttp);
    this.pool = pool;
    pool.dispatch(this, false);
  }

  /** No origin answered: 504 when the last one timed out, 503 when it was busy, else 502. */
  #unanswered(lastError: Error | undefined): void {
    const code = lastError === undefined ? '' : (codeOf(lastError) ?? '');
    if (timeoutCodes.has(code)) this.answer(504, 'Gateway Timeout: the origin did not answer in time\n', 'origin_error');
    else if (code === 'EDGEPLANE_ORIGIN_BUSY') this.answer(503, 'Service Unavailable: the origin is busy\n', 'origin_error');
    else this.answer(502, 'Bad Gateway: no answer from the origin\n', 'origin_error');
  }

  onRequestStart(): void {
    this.#onOrigin = true;
  }

  onResponseError(error: Error, stale: boolean): void {
    const code = codeOf(error) ?? '';
    if (code === 'EDGEPLANE_POOL_CLOSED') {
      this.#failed(error, 'proxy');
    } else if (code === 'EDGEPLANE_ORIGIN_BUSY') {
      this.#failed(error, 'busy');
    } else if (clientErrorCodes.has(code) || this.refusedBody(error) !== undefined || this.clientError(error)) {
      this.#failed(error, 'client');
    } else if (stale && this.#retryable && !this.#resent && !this.done && this.pool !== undefined) {
      this.#resent = true;
      this.#onOrigin = false;
      this.pool.dispatch(this, true);
    } else {
      this.#failed(error, 'origin');
    }
  }

  /** The request body's stream failed: its limit's refusal, or the client's stream broke (it went away, its framing failed). */
  #bodyFailed(error: Error): void {
    if (this.done) return;
    this.#bodyError = error;
    this.pool?.cancel(this);
    this.#failed(error, 'client');
  }

  #failed(error: Error, fault: Fault): void {
    const now = performance.now();
    // Once the answer is under way the origin's health is not at stake: nginx too counts only
    // failures to get an answer's headers.
    if (fault === 'origin' && !this.responding) this.origins.failed(this.index, now);
    if (this.done) return;
    if (this.responding) {
      this.cutOff();
      this.finish('origin_error', this.status);
      return;
    }
    if (fault === 'client') {
      const refused = this.refusedBody(error);
      if (refused !== undefined) {
        this.answer(refused.status, `${refused.message}\n`, refused.reason);
      } else if (error === this.#bodyError || this.clientError(error)) {
        this.cutOff();
        this.finish('client_closed', 499);
      } else {
        this.answer(400, 'Bad Request\n', 'bad_request');
      }
      return;
    }
    if ((fault === 'origin' || fault === 'busy') && !this.#onOrigin && this.#retryable) {
      (this.#tried ??= []).push(this.index);
      this.#attempt(now, error);
      return;
    }
    this.#unanswered(error);
  }

  /** A final answer's head arrived from the origin: whether it goes to the client (not when the client already left). */
  protected finalAnswer(): boolean {
    if (this.done) {
      this.pool?.cancel(this);
      return false;
    }
    this.answered();
    return true;
  }

  /** The origin answered (headers of a final status, or a 101): count it, measure it. */
  protected answered(): void {
    this.originMs = performance.now() - this.sentAt;
    this.origins.answered(this.index, this.sentAt);
  }

  /** The client left: give up whatever goes on with the origin. */
  protected clientClosed(): void {
    if (this.done) return;
    this.finish('client_closed', 499);
    this.pool?.cancel(this);
  }

  protected finish(outcome: ForwardOutcome, status: number): void {
    this.done = true;
    this.outcome = outcome;
    this.status = status;
    this.#resolve?.(this);
  }

  abstract onResponseStart(head: ResponseHead): void;
  abstract onResponseData(chunk: Buffer): boolean;
  abstract onResponseEnd(last: Buffer | undefined): void;

  /** Only an upgrading request gets a 101 (websocket.ts); the connection refuses it for others. */
  onUpgrade(_head: ResponseHead, socket: Socket, _rest: Buffer): void {
    socket.destroy();
  }

  /** Whether an error is the client side's own: it went away. */
  protected abstract clientError(error: Error): boolean;
  /** The body limit's refusal, when that is what the error is (a WebSocket has none). */
  protected abstract refusedBody(error: Error): { status: number; message: string; reason: ForwardOutcome } | undefined;
  /** Answers the client with the proxy's own short answer, and finishes. */
  protected abstract answer(status: number, body: string, outcome: ForwardOutcome): void;
  /** Cuts the client off in mid-answer (it must not take a truncated answer for a whole one). */
  protected abstract cutOff(): void;
}
