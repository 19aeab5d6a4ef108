// What the WAF worked out about a value, kept across requests for the values that repeat: a
// browser sends the same User-Agent, Accept, Accept-Language, sec-ch-ua and cookies on every
// request, and the Core Rule Set reads each of them through a dozen transformation chains, its
// prefilter scans and libinjection-style detectors. All of that is a function of the value alone
// (an operator whose argument holds a macro is not kept: it depends on the request's TX), so a
// value seen before is answered from here instead.
//
// Only header and cookie names and values, the method and the protocol are kept
// (request-fields.ts): the target, the arguments and the body vary from request to request in
// ordinary traffic and are worked out afresh. The store is bounded in entries and in the length of a value; a client sending ever new
// values only evicts (oldest first) and pays what it would have paid without it.
import type { Bits } from './literal-scanner.ts';

/** One value's findings. */
export interface ValueMemo {
  /** The prefilter's findings in the value through each transformation chain node (engine.ts). */
  found: Bits[];
  /** Each prefilter group's rules found in the value through their chains (by the group's slot); null: none. */
  groups: (Bits | null)[];
  /** The transformation triggers in the value (transform-triggers.ts); -1 until looked for. */
  triggers: number;
  /** Each memoised rule's operator on the value through its chain: what it captured, or null for no match. */
  results: (readonly string[] | null)[];
}

export const newMemo = (): ValueMemo => ({ found: [], groups: [], triggers: -1, results: [] });

export class ValueMemos {
  readonly #entries = new Map<string, ValueMemo>();
  readonly #capacity: number;
  readonly #maxLength: number;

  /** At most `capacity` values, each at most `maxLength` bytes long. */
  constructor(capacity: number, maxLength: number) {
    this.#capacity = capacity;
    this.#maxLength = maxLength;
  }

  /** The memo of `value`, made now if it is new; undefined for a value too long to keep (or when none is kept). */
  of(value: string): ValueMemo | undefined {
    if (value.length > this.#maxLength || this.#capacity === 0) return undefined;
    let memo = this.#entries.get(value);
    if (memo === undefined) {
      if (this.#entries.size >= this.#capacity) {
        // A Map iterates in insertion order: its first key is the oldest entry.
        for (const oldest of this.#entries.keys()) {
          this.#entries.delete(oldest);
          break;
        }
      }
      memo = newMemo();
      this.#entries.set(value, memo);
    }
    return memo;
  }

  get size(): number {
    return this.#entries.size;
  }
}
