// The clients sending the most requests lately, in bounded memory whatever the number of clients:
// the Space-Saving algorithm (Metwally et al.) over `capacity` counters. A client not counted takes
// the place of the least-counted one, inheriting its count as its possible overcount (`error`), so
// `count - error` never overstates what a client sent: a flood from thousands of addresses cannot
// get a light client shed. Counts halve every `decay()` (each second): recent traffic weighs most.

interface Counter {
  count: number;
  /** How much of `count` may belong to the clients this counter replaced. */
  error: number;
}

export class HeavyHitters {
  readonly #capacity: number;
  readonly #counters = new Map<string, Counter>();
  /** Requests counted (decayed alike). */
  #total = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get total(): number {
    return this.#total;
  }

  /** Counts one request of `client`; returns what it surely sent (decayed). */
  add(client: string): number {
    this.#total++;
    let counter = this.#counters.get(client);
    if (counter === undefined) {
      if (this.#counters.size < this.#capacity) counter = { count: 0, error: 0 };
      else counter = this.#evictLeast();
      this.#counters.set(client, counter);
    }
    counter.count++;
    return counter.count - counter.error;
  }

  /** Halves every count; forgets clients left with nothing sure. */
  decay(): void {
    this.#total /= 2;
    for (const [client, counter] of this.#counters) {
      counter.count /= 2;
      counter.error /= 2;
      if (counter.count - counter.error < 0.5) this.#counters.delete(client);
    }
  }

  clear(): void {
    this.#counters.clear();
    this.#total = 0;
  }

  /** Takes the least counter away from its client: its count becomes the newcomer's possible overcount. */
  #evictLeast(): Counter {
    let least: string | undefined;
    let min = Infinity;
    for (const [client, counter] of this.#counters) {
      if (counter.count < min) {
        min = counter.count;
        least = client;
      }
    }
    if (least !== undefined) this.#counters.delete(least);
    return { count: min, error: min };
  }
}
