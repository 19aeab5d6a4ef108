// Established connections first when the thread is overloaded. A flood opens its connections when it
// begins, hundreds at once, and their first requests arrive in the same turns of the event loop as
// the requests of users whose connections are older: a turn takes them in the order the kernel
// reports them, so a user's request waits behind every flood request of its turn (measured: turns of
// 25–50 ms in a flood's first second, where users' p99 went from 5 to 130–450 ms; docs/proxy.md,
// "Established connections first").
//
// So each turn has a budget: once the requests started in a turn have taken `budgetMs` of it, the
// requests of connections younger than `establishedMs` wait, first come first served, for the next
// turns, which start them within the same budget after the turn's I/O is handled. A request of an
// established connection is always started at once. Nothing waits while the thread keeps up: a turn
// under budget starts everything, and a connection's head is parsed only when its turn comes.
// What waits is bounded by the connections themselves (the connection caps count them); a waiting
// connection reads nothing more and keeps its idle deadline.

export interface TurnOptions {
  /** Time a turn spends starting requests before young connections' requests wait. */
  budgetMs: number;
  /** A connection this old (since it was served) is established: its requests never wait. */
  establishedMs: number;
}

export const defaultTurnOptions: TurnOptions = { budgetMs: 5, establishedMs: 5_000 };

/** A connection whose next request is ready to start. */
export interface Waiting {
  /** The connection is still open and wants its turn; false: skipped. */
  readonly waiting: boolean;
  start(): void;
}

/** Spent entries at the queue's head before it is compacted (when they are at least half of it). */
const compactAfter = 1024;

export class RequestTurns {
  readonly #options: TurnOptions;
  /** When the current turn began starting requests; -1: no request started since the last drain. */
  #turnStart = -1;
  readonly #queue: (Waiting | undefined)[] = [];
  /** Index of the queue's head (the queue is compacted when drained or half spent, not shifted per request). */
  #head = 0;
  #scheduled = false;

  constructor(options: TurnOptions = defaultTurnOptions) {
    this.#options = options;
  }

  /** Connections waiting for a turn. */
  get waiting(): number {
    return this.#queue.length - this.#head;
  }

  /**
   * A request of a connection served since `openedAt` (performance.now()) is ready: true to start
   * it now; false when it was queued (`connection.start()` is called at its turn).
   */
  admit(connection: Waiting, openedAt: number): boolean {
    const now = performance.now();
    if (now - openedAt >= this.#options.establishedMs) {
      this.#mark(now);
      return true;
    }
    // Those already waiting go first, and a turn over its budget starts no more young requests.
    if (this.waiting === 0 && (this.#turnStart < 0 || now - this.#turnStart < this.#options.budgetMs)) {
      this.#mark(now);
      return true;
    }
    this.#queue.push(connection);
    this.#schedule();
    return false;
  }

  /** The turn began when its first request started; it ends when the check phase drains (below). */
  #mark(now: number): void {
    if (this.#turnStart >= 0) return;
    this.#turnStart = now;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // After this turn's I/O callbacks: what is left of the budget goes to the waiting connections.
    setImmediate(this.#drain);
  }

  readonly #drain = (): void => {
    this.#scheduled = false;
    const start = performance.now();
    this.#turnStart = -1;
    const queue = this.#queue;
    // At least one a turn, whatever the budget: waiting is never waiting for ever.
    let started = 0;
    while (this.#head < queue.length && (started === 0 || performance.now() - start < this.#options.budgetMs)) {
      const next = queue[this.#head];
      queue[this.#head++] = undefined;
      if (next?.waiting !== true) continue;
      next.start();
      started++;
    }
    if (this.#head === queue.length) {
      queue.length = 0;
      this.#head = 0;
    } else {
      // A queue that never empties (a flood that lasts) drops its spent head now and then, so that
      // it holds only the connections still waiting.
      if (this.#head >= compactAfter && this.#head * 2 >= queue.length) {
        queue.splice(0, this.#head);
        this.#head = 0;
      }
      // The next turn's I/O first (established connections' requests), then the rest of the queue.
      this.#turnStart = start;
      this.#schedule();
    }
  };
}
