// The deadlines of a listener's HTTP/1 connections (a head to finish, an idle connection to close),
// checked by one sweep instead of a timer per connection and request: a request only sets a number.
// The sweep runs a few times per header timeout (server-limits.ts's headersCheckingInterval), so a
// connection is cut at most that much after its deadline, as node:http's own checks do.

export interface Timed {
  /** performance.now() after which the connection is past its time; Infinity: none (a request under way). */
  deadline: number;
  expired(): void;
}

export class ConnectionClock {
  readonly #connections = new Set<Timed>();
  readonly #timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.#timer = setInterval(() => this.#sweep(), intervalMs);
    this.#timer.unref();
  }

  add(connection: Timed): void {
    this.#connections.add(connection);
  }

  delete(connection: Timed): void {
    this.#connections.delete(connection);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #sweep(): void {
    const now = performance.now();
    for (const connection of this.#connections) {
      if (connection.deadline <= now) {
        this.#connections.delete(connection);
        connection.expired();
      }
    }
  }
}
