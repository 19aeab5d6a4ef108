// The clients sending the most requests lately, in bounded memory whatever the number of clients:
// the Space-Saving algorithm (Metwally et al.) over `capacity` counters. A client not counted takes
// the place of the least-counted one, inheriting its count as its possible overcount (`error`), so
// `count - error` never overstates what a client sent: a flood from thousands of addresses cannot
// get a light client shed. Counts halve every `decay()` (each second): recent traffic weighs most.
//
// The counters are a binary min-heap by count, so finding the least one is O(1) and each count
// moves in O(log capacity): a flood from more addresses than there are counters replaces one at
// nearly every request (a scan of the counters for the least, as the first version did, was a
// tenth of the proxy's time under such a flood).

interface Counter {
  client: string;
  count: number;
  /** How much of `count` may belong to the clients this counter replaced. */
  error: number;
  /** Its place in the heap. */
  at: number;
}

export class HeavyHitters {
  readonly #capacity: number;
  readonly #byClient = new Map<string, Counter>();
  /** Min-heap by count: #heap[0] is the least-counted. */
  #heap: Counter[] = [];
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
    let counter = this.#byClient.get(client);
    if (counter === undefined) {
      const heap = this.#heap;
      const least = heap[0];
      if (heap.length < this.#capacity || least === undefined) {
        counter = { client, count: 0, error: 0, at: heap.length };
        heap.push(counter);
      } else {
        // The least counter changes hands: its count becomes the newcomer's possible overcount.
        counter = least;
        this.#byClient.delete(counter.client);
        counter.client = client;
        counter.error = counter.count;
      }
      this.#byClient.set(client, counter);
    }
    counter.count++;
    this.#down(counter);
    return counter.count - counter.error;
  }

  /** Halves every count; forgets clients left with nothing sure. Halving keeps the heap's order. */
  decay(): void {
    this.#total /= 2;
    let kept = 0;
    const heap = this.#heap;
    for (const counter of heap) {
      counter.count /= 2;
      counter.error /= 2;
      if (counter.count - counter.error < 0.5) this.#byClient.delete(counter.client);
      else heap[kept++] = counter;
    }
    if (kept === heap.length) return;
    heap.length = kept;
    heap.forEach((counter, i) => (counter.at = i));
    for (let i = (kept >>> 1) - 1; i >= 0; i--) {
      const counter = heap[i];
      if (counter !== undefined) this.#down(counter);
    }
  }

  clear(): void {
    this.#byClient.clear();
    this.#heap = [];
    this.#total = 0;
  }

  /** A counter whose count grew moves down past the smaller children. */
  #down(counter: Counter): void {
    const heap = this.#heap;
    let at = counter.at;
    for (;;) {
      const left = heap[2 * at + 1];
      if (left === undefined) break;
      const right = heap[2 * at + 2];
      const smaller = right !== undefined && right.count < left.count ? right : left;
      if (smaller.count >= counter.count) break;
      const child = smaller.at;
      heap[at] = smaller;
      smaller.at = at;
      at = child;
    }
    heap[at] = counter;
    counter.at = at;
  }
}
