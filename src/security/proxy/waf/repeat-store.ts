// A bounded store of what the WAF works out about a string that comes again and again (a header
// value, a request's whole head), kept from the second time it comes: what never repeats (a
// cache-busting argument, a request id, a flood of random values) then costs a string in a ring,
// not an entry that lives long enough to be collected from the old generation. Bounded in entries
// and in the length of a key; a client sending ever new strings only evicts (oldest first) and pays
// what it would have paid without it.

/** Strings in the order they came, at most `capacity`: the oldest goes when a new one comes. */
class Ring {
  readonly #values: string[] = [];
  #next = 0;
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Adds `value`; the value it pushed out, if the ring was full. */
  add(value: string): string | undefined {
    if (this.#values.length < this.#capacity) {
      this.#values.push(value);
      return undefined;
    }
    const oldest = this.#values[this.#next];
    this.#values[this.#next] = value;
    this.#next = (this.#next + 1) % this.#capacity;
    return oldest;
  }
}

export class RepeatStore<T> {
  readonly #entries = new Map<string, T>();
  /**
   * Eviction order. (Taking a Map's first key instead walks past every entry deleted before it,
   * which V8 leaves in place until it rehashes: thousands of steps an eviction once the store is full.)
   */
  readonly #order: Ring;
  /** Keys seen once, not yet kept: a key is kept the second time it comes. */
  readonly #seen = new Set<string>();
  readonly #seenOrder: Ring;
  readonly #maxLength: number;
  readonly #make: () => T;

  /** At most `capacity` entries, each key at most `maxLength` characters long (and as many seen once); `make` makes a new entry. */
  constructor(capacity: number, maxLength: number, make: () => T) {
    this.#order = new Ring(capacity);
    this.#seenOrder = new Ring(capacity);
    this.#maxLength = capacity === 0 ? -1 : maxLength;
    this.#make = make;
  }

  /** The entry of `key`, made now if it is seen for the second time; undefined for a key seen for the first time, or too long to keep (or when none is kept). */
  of(key: string): T | undefined {
    if (key.length > this.#maxLength) return undefined;
    let entry = this.#entries.get(key);
    if (entry !== undefined) return entry;
    if (!this.#seen.delete(key)) {
      this.#seen.add(key);
      const forgotten = this.#seenOrder.add(key);
      if (forgotten !== undefined) this.#seen.delete(forgotten);
      return undefined;
    }
    entry = this.#make();
    this.#entries.set(key, entry);
    const evicted = this.#order.add(key);
    if (evicted !== undefined) this.#entries.delete(evicted);
    return entry;
  }

  get size(): number {
    return this.#entries.size;
  }
}
