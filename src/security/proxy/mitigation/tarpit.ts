// Where shed requests wait before their answer. A flood source that is answered at once asks again
// at once: answering it 429 as fast as it can send keeps the proxy's thread busy for nothing, and
// the users' requests queue behind its refusals. Held, its connection carries no other request (an
// HTTP/1 connection asks one thing at a time; the engine reads no further until it is answered), so
// each of its connections costs one request per delay. What it costs us: a held request's memory,
// on a connection the connection caps already count; and at most `capacity` are held, past which
// requests are answered at once as before.
//
// The delay is the same for every request, so the held ones are due in the order they came: one
// queue and one timer, however many are held.

interface Held {
  due: number;
  run: () => void;
}

export class Tarpit {
  readonly #delayMs: number;
  readonly #capacity: number;
  readonly #now: () => number;
  #queue: Held[] = [];
  /** The first not yet run in #queue (runs shift nothing). */
  #head = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(delayMs: number, capacity: number, now: () => number = () => performance.now()) {
    this.#delayMs = delayMs;
    this.#capacity = capacity;
    this.#now = now;
  }

  get held(): number {
    return this.#queue.length - this.#head;
  }

  /** Runs `run` after the delay: true; false when the tarpit is full (or has no delay): the caller answers now. */
  hold(run: () => void): boolean {
    if (this.#delayMs <= 0 || this.held >= this.#capacity) return false;
    this.#queue.push({ due: this.#now() + this.#delayMs, run });
    this.#timer ??= this.#schedule(this.#delayMs);
    return true;
  }

  /** Drops every held request unanswered: the thread is stopping and closing their connections. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue = [];
    this.#head = 0;
  }

  #schedule(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.#timer = undefined;
      this.#release(this.#now());
      const next = this.#queue[this.#head];
      if (next !== undefined) this.#timer = this.#schedule(Math.max(1, next.due - this.#now()));
    }, ms);
    // Held requests do not keep a stopping thread alive.
    timer.unref();
    return timer;
  }

  #release(now: number): void {
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const held = queue[this.#head];
      if (held === undefined || held.due > now) break;
      this.#head++;
      held.run();
    }
    if (this.#head === queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > queue.length) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
  }
}
