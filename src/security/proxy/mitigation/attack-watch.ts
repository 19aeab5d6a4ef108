// Per resource and proxy thread: whether the resource is under attack, and whom to shed while it is.
// Each second closes a bucket of requests and of forwarded requests that failed at the origin (no
// answer, or a 5xx). Over the last `windowSeconds` complete seconds, the resource is under attack
// when its request rate is at least `minRate` and `rateFactor` times its usual rate, or when at
// least `errorRatio` of at least 20 forwarded requests failed at the origin (an origin falling over
// is what a flood is for). The usual rate is learned, as an average over about five minutes of the
// seconds not under attack, starting from the first window's (no rate alarm before it is learned).
// A flood does not wait for a second to close: mitigation engages at the request that brings the
// current second's requests so far to one second's worth at the threshold, or the current tenth of
// a second's to twice a tenth's worth (a flood whose sources all send at once, as they do when it
// begins, is met after a fifth of a second's worth, not after a whole one). A window reaching its
// worth at the threshold has had such a second, unless the threshold moved meanwhile, so this
// alone meets a flood first.
// Mitigation stays on `holdMs` after the last second that looked like an attack. While on, the
// heaviest clients (more than `shedShare` of the resource's recent requests, and more than
// `minRate × shedShare` a second, while the resource still gets at least `minRate`) are shed with
// 429 before any other check; clients are counted
// only while it is on, so a calm resource pays one counter increment per request.
//
// A thread sees only its own connections: with N threads each watches about 1/N of the traffic, so
// `minRate` is per thread (docs/proxy.md).
import { HeavyHitters } from './heavy-hitters.ts';

export interface AttackOptions {
  /** Requests a second (per resource and thread) below which no rate is an attack. */
  minRate: number;
  /** A rate this many times the usual one is an attack. */
  rateFactor: number;
  /** The share of forwarded requests failing at the origin that is an attack. */
  errorRatio: number;
  /** How long mitigation stays on after the last second that looked like an attack. */
  holdMs: number;
  /** Under attack, a client with more than this share of the resource's recent requests is shed. */
  shedShare: number;
}

export const defaultAttackOptions: AttackOptions = { minRate: 1000, rateFactor: 5, errorRatio: 0.5, holdMs: 30_000, shedShare: 0.05 };

/** Complete seconds a decision looks at. */
const windowSeconds = 5;
/** The usual rate's smoothing per second: about five minutes of memory. */
const baselineWeight = 1 / 300;
/** Clients counted while under attack. */
const hittersCapacity = 128;
/** A tenth of a second's requests at this many times the threshold's share engage at once. */
const tenthBurst = 2;
/** Forwarded requests a failure ratio needs to mean anything. */
const minForwarded = 20;

export type AttackPhase = 'calm' | 'under_attack';

export class AttackWatch {
  readonly #options: AttackOptions;
  /** Per second, newest last: requests, forwarded requests, origin failures. */
  readonly #requests = new Float64Array(windowSeconds);
  readonly #forwarded = new Float64Array(windowSeconds);
  readonly #failures = new Float64Array(windowSeconds);
  /** The second (Math.floor(ms / 1000)) the current counts belong to. */
  #second = -1;
  #current = { requests: 0, forwarded: 0, failures: 0 };
  /** Requests within the current second that engage mitigation at once (the threshold); Infinity until the usual rate is learned. */
  #engageWithin = Infinity;
  /** The same within the current tenth of a second (Math.floor(ms / 100)), and its requests so far. */
  #engageWithinTenth = Infinity;
  #tenth = -1;
  #tenthRequests = 0;
  /** Complete seconds seen so far (up to the window). */
  #seconds = 0;
  /** The usual requests a second; -1 until learned. */
  #baseline = -1;
  /** Mitigation is on until this time (ms); 0: off. */
  #until = 0;
  readonly #hitters = new HeavyHitters(hittersCapacity);
  /** Told when mitigation goes on or off. */
  readonly #changed: (state: AttackPhase) => void;

  constructor(options: AttackOptions, changed: (state: AttackPhase) => void = () => undefined) {
    this.#options = options;
    this.#changed = changed;
  }

  get underAttack(): boolean {
    return this.#until > 0;
  }

  /** The request rate (a second) at which mitigation engages now. */
  get threshold(): number {
    return Math.max(this.#options.minRate, this.#options.rateFactor * Math.max(0, this.#baseline));
  }

  /** A request arrived for the resource: whether mitigation is on (then ask `heavy` about its client). */
  arrived(nowMs: number): boolean {
    this.#tick(nowMs);
    // A flood is met within its first second, not after it: once the current second's requests so
    // far reach a second's worth at the threshold, mitigation is on at once.
    const tenth = Math.floor(nowMs / 100);
    if (tenth !== this.#tenth) {
      this.#tenth = tenth;
      this.#tenthRequests = 0;
    }
    const requests = ++this.#current.requests;
    const inTenth = ++this.#tenthRequests;
    if ((requests >= this.#engageWithin || inTenth >= this.#engageWithinTenth) && this.#until === 0) this.#engage(nowMs);
    return this.#until !== 0;
  }

  /**
   * Under attack: counts a request of `client` (a client key: IPv4 address or IPv6 /64) and says
   * whether it is among the heaviest, to be shed.
   */
  heavy(client: string): boolean {
    const sure = this.#hitters.add(client);
    const total = this.#hitters.total;
    const { shedShare, minRate } = this.#options;
    // Counts halve each second: a steady sender of r a second holds about 2r. Only while the
    // traffic is still at least the minimum rate: once a flood stops, its stragglers are let be.
    return total >= 2 * minRate && sure > 2 * minRate * shedShare && sure > shedShare * total;
  }

  /** Brings the watch up to `nowMs` without a request (for the metrics: a resource gone quiet calms down). */
  settle(nowMs: number): void {
    this.#tick(nowMs);
  }

  /** A forwarded request ended: `failed` when the origin gave no answer or a 5xx. */
  forwarded(failed: boolean, nowMs: number): void {
    this.#tick(nowMs);
    this.#current.forwarded++;
    if (failed) this.#current.failures++;
  }

  /** Mitigation on (or held on) until a hold from now. */
  #engage(nowMs: number): void {
    if (this.#until === 0) {
      this.#hitters.clear();
      this.#changed('under_attack');
    }
    this.#until = nowMs + this.#options.holdMs;
  }

  /** Closes the seconds past since the last request, deciding at each. */
  #tick(nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    if (second === this.#second) return;
    if (this.#second < 0) {
      this.#second = second;
      return;
    }
    // Seconds without a request count as empty ones (at most a window's worth matters).
    const steps = Math.min(second - this.#second, windowSeconds + 1);
    for (let s = 0; s < steps; s++) {
      this.#close();
      this.#current = { requests: 0, forwarded: 0, failures: 0 };
    }
    this.#second = second;
    this.#decide(nowMs);
  }

  #close(): void {
    this.#requests.copyWithin(0, 1);
    this.#forwarded.copyWithin(0, 1);
    this.#failures.copyWithin(0, 1);
    this.#requests[windowSeconds - 1] = this.#current.requests;
    this.#forwarded[windowSeconds - 1] = this.#current.forwarded;
    this.#failures[windowSeconds - 1] = this.#current.failures;
    if (this.#seconds < windowSeconds) this.#seconds++;
    this.#hitters.decay();
  }

  #decide(nowMs: number): void {
    if (this.#seconds < windowSeconds) return;
    const sum = (values: Float64Array) => values.reduce((a, b) => a + b, 0);
    const rate = sum(this.#requests) / windowSeconds;
    const forwarded = sum(this.#forwarded);
    const { rateFactor, minRate, errorRatio } = this.#options;
    const learned = this.#baseline >= 0;
    const flooded = learned && rate >= minRate && rate >= rateFactor * this.#baseline;
    const failing = forwarded >= minForwarded && sum(this.#failures) / forwarded >= errorRatio;
    if (flooded || failing) {
      this.#engage(nowMs);
      return;
    }
    this.#baseline = learned ? this.#baseline + (rate - this.#baseline) * baselineWeight : rate;
    this.#engageWithin = this.threshold;
    this.#engageWithinTenth = (tenthBurst * this.#engageWithin) / 10;
    if (this.#until !== 0 && nowMs >= this.#until) {
      this.#until = 0;
      this.#hitters.clear();
      this.#changed('calm');
    }
  }
}
