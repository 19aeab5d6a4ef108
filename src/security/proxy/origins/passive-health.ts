// Passive health of one origin, as nginx's upstream `max_fails`/`fail_timeout` do it: the proxy
// sends no probes of its own; the failures of real requests (no connection, a timeout, an error
// before the answer's headers) take an origin out. `maxFails` failures within `failTimeoutMs` take
// it out for `failTimeoutMs`; then one request is let through as a probe (the others still avoid
// it), and the origin is given back whole when that probe is answered, or out again when it fails.

export interface HealthOptions {
  /** Failures within the window that take an origin out; 0: never out (nginx's `max_fails=0`). Default 1. */
  maxFails: number;
  /** The window the failures are counted in, and how long an origin stays out. Default 10 s. */
  failTimeoutMs: number;
}

export const defaultHealth: HealthOptions = { maxFails: 1, failTimeoutMs: 10_000 };

export class PassiveHealth {
  readonly #maxFails: number;
  readonly #failTimeoutMs: number;
  /** Failures in the window starting at #windowStart; at or above #maxFails the origin is out. */
  #fails = 0;
  #windowStart = -Infinity;
  /** While out: until when nothing is sent to it (then one probe, which moves this on again). */
  #outUntil = 0;
  /** When the origin was last taken out: an answer to a request sent before it does not give it back. */
  #outSince = 0;

  /** `enabled` false: the only origin a resource has is never taken out (nginx ignores max_fails for a lone server). */
  constructor(options: HealthOptions, enabled: boolean) {
    this.#maxFails = enabled ? options.maxFails : 0;
    this.#failTimeoutMs = options.failTimeoutMs;
  }

  /** Whether the origin may be chosen at `now` (performance.now() milliseconds). */
  available(now: number): boolean {
    return this.#maxFails === 0 || this.#fails < this.#maxFails || now >= this.#outUntil;
  }

  /** The origin was chosen: when it is out, this request is its probe, and nothing else goes there meanwhile. */
  chosen(now: number): void {
    if (this.#maxFails !== 0 && this.#fails >= this.#maxFails) this.#outUntil = now + this.#failTimeoutMs;
  }

  /** A request sent at `now` failed to get an answer from it. */
  failed(now: number): void {
    if (this.#maxFails === 0) return;
    if (this.#fails < this.#maxFails && now - this.#windowStart > this.#failTimeoutMs) {
      this.#fails = 0;
      this.#windowStart = now;
    }
    this.#fails++;
    if (this.#fails >= this.#maxFails) {
      if (this.#fails === this.#maxFails) this.#outSince = now;
      this.#outUntil = now + this.#failTimeoutMs;
    }
  }

  /** The origin answered a request sent at `sentAt`: a probe's answer gives it back. */
  answered(sentAt: number): void {
    if (this.#fails >= this.#maxFails && this.#maxFails !== 0 && sentAt >= this.#outSince) {
      this.#fails = 0;
      this.#outUntil = 0;
    }
  }
}
