// A request body as it is forwarded, counted and timed as it streams: more bytes than the limit (a
// chunked body, whose size nobody declared; a declared one over the limit is refused before a byte
// of it is read: declaredBodyProblem), or a body trickled too slowly to hold a connection and an origin's request
// open for long (slowloris on the body), ends the stream with a BodyRefused error. The pace rule is
// Apache's mod_reqtimeout's (body=…,MinRate=…): the body may pause at most `bodyTimeoutMs`, and
// after its first `bodyTimeoutMs` it must have averaged `bodyMinRate` bytes a second. Time the
// origin is not reading (backpressure) is not held against the client.
import { Transform, type TransformCallback } from 'node:stream';
import { headerValue, type Answer, type ProxyRequest } from './exchange.ts';
import type { ProxyLimits } from './server-limits.ts';

export type BodyRefusal = 'body_too_large' | 'body_too_slow';

/** Ends a limited body: the client is answered `status` (if nothing was answered yet) and its connection closed. */
export class BodyRefused extends Error {
  readonly status: 413 | 408;
  readonly reason: BodyRefusal;

  constructor(reason: BodyRefusal, limits: Pick<ProxyLimits, 'maxBodySize' | 'bodyMinRate'>) {
    super(reason === 'body_too_large' ? `request body larger than ${String(limits.maxBodySize)} bytes` : `request body slower than ${String(limits.bodyMinRate)} bytes/s`);
    this.reason = reason;
    this.status = reason === 'body_too_large' ? 413 : 408;
  }
}

type Limits = Pick<ProxyLimits, 'maxBodySize' | 'bodyTimeoutMs' | 'bodyMinRate'>;

export class BodyLimit extends Transform {
  readonly #limits: Limits;
  #received = 0;
  /** When the body began, moved later by the time the reader was not reading. */
  #start = performance.now();
  #lastRead = this.#start;
  /** Since when the reader has not wanted more; -1: it does. */
  #stalledSince = -1;
  #timer: NodeJS.Timeout | undefined;

  constructor(limits: Limits) {
    super();
    this.#limits = limits;
    this.#timer = setTimeout(() => this.#check(), limits.bodyTimeoutMs);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#received += chunk.length;
    this.#lastRead = performance.now();
    const max = this.#limits.maxBodySize;
    if (max > 0 && this.#received > max) {
      done(new BodyRefused('body_too_large', this.#limits));
      return;
    }
    if (!this.push(chunk) && this.#stalledSince < 0) this.#stalledSince = this.#lastRead;
    done();
  }

  override _read(size: number): void {
    if (this.#stalledSince >= 0) {
      const now = performance.now();
      this.#start += now - this.#stalledSince;
      this.#lastRead = now;
      this.#stalledSince = -1;
    }
    super._read(size);
  }

  override _flush(done: TransformCallback): void {
    clearTimeout(this.#timer);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    clearTimeout(this.#timer);
    done(error);
  }

  /** At the earliest moment the body could be too slow: is it, and if not, when to look again. */
  #check(): void {
    const { bodyTimeoutMs, bodyMinRate } = this.#limits;
    const now = performance.now();
    const deadline = this.#stalledSince >= 0 ? now + bodyTimeoutMs : Math.min(this.#lastRead + bodyTimeoutMs, this.#start + bodyTimeoutMs + (this.#received / bodyMinRate) * 1000);
    if (now < deadline) {
      this.#timer = setTimeout(() => this.#check(), deadline - now);
      return;
    }
    this.destroy(new BodyRefused('body_too_slow', this.#limits));
  }
}

/** The body to forward: `req` through a BodyLimit, whose errors (a refusal, the client gone) end it. */
export function limitBody(req: ProxyRequest, limits: Limits): BodyLimit {
  const limited = new BodyLimit(limits);
  req.on('error', (error) => limited.destroy(error));
  // The client went away before its body was whole: the origin must not take it for complete.
  req.on('close', () => {
    if (!req.complete) limited.destroy(new Error('client closed its request before its body ended'));
  });
  req.pipe(limited);
  return limited;
}

/** A declared Content-Length over the limit: 413 before a byte of the body is read (a chunked body is counted as it comes). */
export function declaredBodyProblem(req: ProxyRequest, maxBodySize: number): Answer | undefined {
  const length = headerValue(req, 'content-length');
  if (maxBodySize === 0 || length === undefined || Number(length) <= maxBodySize) return undefined;
  return { status: 413, reason: 'body_too_large', body: `Request body larger than ${String(maxBodySize)} bytes\n` };
}
