// One request's way to an origin, whatever the client side is (an HTTP answer, a WebSocket): which
// origin, what a failure means, whether to try the next one. A failure before any byte reached an
// origin (no connection: refused, unreachable, timed out, a non-public address) is retried on the
// next origin, for idempotent requests without a body only (a body read once cannot be sent
// again), the way nginx's `proxy_next_upstream error timeout` does before anything reaches the
// client; any failure of the origin's counts against its passive health. The undici handler is this
// object itself: no closure per request, and the result the caller awaits is this object too.
import type { Dispatcher } from 'undici';
import type { OriginSet } from './origin-set.ts';

/**
 * `passed`: the origin's answer was relayed (whatever its status); `origin_error`: no origin
 * answered (the proxy answered 502/504) or one failed in mid-answer; `client_closed`: the client left
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

/** How a failure is treated: by whom it was caused. */
type Fault = 'client' | 'origin' | 'proxy';

/** Methods whose repetition is harmless (RFC 9110 §9.2.2). */
const idempotent = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** The reason a request is aborted for when its client left: one object, recognised when it comes back. */
export const clientLeft = new Error('the client closed the connection');

/** Errors that come from the request as the client sent it, not from the origin. */
const clientErrorCodes = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED', 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH']);
/** The pools were closed under the request (its resource changed): nobody's fault, nothing to count. */
const closedCodes = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED']);
const timeoutCodes = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'ETIMEDOUT']);

const codeOf = (error: Error) => (error as NodeJS.ErrnoException).code;

export abstract class Forwarding implements Dispatcher.DispatchHandler, ForwardResult {
  outcome: ForwardOutcome = 'passed';
  status = 0;
  originMs = -1;
  protected readonly origins: OriginSet;
  protected readonly exchange: ForwardClient;
  /** The request as undici sends it to each origin tried; `servername` changes with the origin. */
  protected readonly options: Dispatcher.DispatchOptions & { servername?: string | undefined };
  /** The origin of the current attempt, when it was sent, and its controller once it is on a connection. */
  protected index = -1;
  protected sentAt = 0;
  protected controller: Dispatcher.DispatchController | undefined;
  /** The client's side has been answered or has gone: nothing more is written to it. */
  protected done = false;
  /** Headers (or a 101) have gone to the client: a failure from now on can only cut it off. */
  protected responding = false;
  /** The current attempt got onto a connection to its origin: whatever fails next may have reached it, so it is not retried. */
  #onOrigin = false;
  #tried: number[] | undefined;
  readonly #retryable: boolean;
  #resolve: ((result: ForwardResult) => void) | undefined;

  constructor(origins: OriginSet, exchange: ForwardClient, options: Dispatcher.DispatchOptions) {
    this.origins = origins;
    this.exchange = exchange;
    this.options = options;
    this.#retryable = options.body === null && idempotent.has(exchange.method);
  }

  /** Sends the request to the first available origin; resolves when the client's side is over. */
  start(): Promise<ForwardResult> {
    const result = new Promise<ForwardResult>((resolve) => (this.#resolve = resolve));
    this.#attempt(performance.now(), undefined);
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
    this.controller = undefined;
    this.#onOrigin = false;
    const pools = this.origins.pools(index);
    if (pools.refusal !== undefined) {
      this.#failed(pools.refusal, 'origin');
      return;
    }
    const https = this.exchange.secure && !this.origins.httpsToHttp;
    this.options.servername = https ? pools.servername : undefined;
    pools.pool(https).dispatch(this.options, this);
  }

  /** No origin answered: 504 when the last one timed out, else 502. */
  #unanswered(lastError: Error | undefined): void {
    if (lastError !== undefined && timeoutCodes.has(codeOf(lastError) ?? '')) this.answer(504, 'Gateway Timeout: the origin did not answer in time\n', 'origin_error');
    else this.answer(502, 'Bad Gateway: no answer from the origin\n', 'origin_error');
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.done) controller.abort(clientLeft);
    else this.#onOrigin = true;
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    // Aborted by the proxy because the client left: already accounted for.
    if (error === clientLeft) return;
    const code = codeOf(error) ?? '';
    if (closedCodes.has(code)) this.#failed(error, 'proxy');
    else if (clientErrorCodes.has(code) || this.refusedBody(error) !== undefined || this.clientError(error)) this.#failed(error, 'client');
    else this.#failed(error, 'origin');
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
      } else if (this.clientError(error)) {
        this.cutOff();
        this.finish('client_closed', 499);
      } else {
        this.answer(400, 'Bad Request\n', 'bad_request');
      }
      return;
    }
    if (fault === 'origin' && !this.#onOrigin && this.#retryable) {
      (this.#tried ??= []).push(this.index);
      this.#attempt(now, error);
      return;
    }
    this.#unanswered(error);
  }

  /** The origin answered (headers of a final status, or a 101): count it, measure it. */
  protected answered(): void {
    this.originMs = performance.now() - this.sentAt;
    this.origins.answered(this.index, this.sentAt);
  }

  /** The client left: abort whatever goes on with the origin. */
  protected clientClosed(): void {
    if (this.done) return;
    this.finish('client_closed', 499);
    this.controller?.abort(clientLeft);
  }

  protected finish(outcome: ForwardOutcome, status: number): void {
    this.done = true;
    this.outcome = outcome;
    this.status = status;
    this.#resolve?.(this);
  }

  /** Whether an error is the client side's own (its request stream failed: it went away). */
  protected abstract clientError(error: Error): boolean;
  /** The body limit's refusal, when that is what the error is (a WebSocket has none). */
  protected abstract refusedBody(error: Error): { status: number; message: string; reason: ForwardOutcome } | undefined;
  /** Answers the client with the proxy's own short answer, and finishes. */
  protected abstract answer(status: number, body: string, outcome: ForwardOutcome): void;
  /** Cuts the client off in mid-answer (it must not take a truncated answer for a whole one). */
  protected abstract cutOff(): void;
}
