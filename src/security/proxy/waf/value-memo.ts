// What the WAF worked out about a value, kept across requests for the values that repeat: a
// browser sends the same User-Agent, Accept, Accept-Language, sec-ch-ua and cookies on every
// request, pages and their arguments are asked for again and again, and the Core Rule Set reads
// each value through a dozen transformation chains, its prefilter scans and libinjection-style
// detectors. All of that is a function of the value alone (an operator whose argument holds a
// macro is not kept: it depends on the request's TX), so a value seen before is answered from here
// instead: which rules match it (rule-hits.ts), and what each rule's operator found in it.
//
// A rule set keeps two stores (request-fields.ts says which value goes where): a stable one for
// what a client sends on every request (header and cookie names and values, the method, argument
// names) and a volatile one for the target, argument values and the body, so that a stream of new
// targets cannot evict the headers. Each is bounded in entries and in the length of a value; a
// client sending ever new values only evicts (oldest first) and pays what it would have paid
// without it.
import type { Bits } from './literal-scanner.ts';

/** One value's findings. */
export interface ValueMemo {
  /** The prefilter's findings in the value through each transformation chain node (engine.ts). */
  found: Bits[];
  /** Each prefilter group's rules found in the value through their chains (by the group's slot); null: none. */
  groups: (Bits | null)[];
  /** The transformation triggers in the value (transform-triggers.ts); -1 until looked for. */
  triggers: number;
  /** Each memoised rule's operator on the value through its chain (by the rule's slot): what it captured, or null for no match. A Map: a value meets a few dozen of the ~500 slots. */
  results: Map<number, readonly string[] | null>;
  /** The rules (by hit bit, rule-hits.ts) that match the value, among those run on it; undefined: none. */
  hits: Bits | undefined;
  /** The hit groups (by slot) whose rules have been run on the value: bit slot of word slot >> 5. */
  ran: number[];
}

export const newMemo = (): ValueMemo => ({ found: [], groups: [], triggers: -1, results: new Map(), hits: undefined, ran: [] });

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

export class ValueMemos {
  readonly #entries = new Map<string, ValueMemo>();
  /**
   * Eviction order. (Taking a Map's first key instead walks past every entry deleted before it,
   * which V8 leaves in place until it rehashes: thousands of steps an eviction once the store is full.)
   */
  readonly #order: Ring;
  /**
   * Values seen once, not yet kept: a value is kept the second time it comes. What never repeats (a
   * cache-busting argument, a request id, a flood of random values) then costs a string in this
   * ring, not a memo that lives long enough to be collected from the old generation.
   */
  readonly #seen = new Set<string>();
  readonly #seenOrder: Ring;
  readonly #maxLength: number;

  /** At most `capacity` values, each at most `maxLength` bytes long (and as many seen once). */
  constructor(capacity: number, maxLength: number) {
    this.#order = new Ring(capacity);
    this.#seenOrder = new Ring(capacity);
    this.#maxLength = capacity === 0 ? -1 : maxLength;
  }

  /** The memo of `value`, made now if it is seen for the second time; undefined for a value seen for the first time, or too long to keep (or when none is kept). */
  of(value: string): ValueMemo | undefined {
    if (value.length > this.#maxLength) return undefined;
    let memo = this.#entries.get(value);
    if (memo !== undefined) return memo;
    if (!this.#seen.delete(value)) {
      this.#seen.add(value);
      const forgotten = this.#seenOrder.add(value);
      if (forgotten !== undefined) this.#seen.delete(forgotten);
      return undefined;
    }
    memo = newMemo();
    this.#entries.set(value, memo);
    const evicted = this.#order.add(value);
    if (evicted !== undefined) this.#entries.delete(evicted);
    return memo;
  }

  get size(): number {
    return this.#entries.size;
  }
}
