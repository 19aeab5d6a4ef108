// What the WAF worked out about a value, kept across requests for the values that repeat: a
// browser sends the same User-Agent, Accept, Accept-Language, sec-ch-ua and cookies on every
// request, pages and their arguments are asked for again and again, and the Core Rule Set reads
// each value through a dozen transformation chains, its prefilter scans and libinjection-style
// detectors. All of that is a function of the value alone (an operator whose argument holds a
// macro is not kept: it depends on the request's TX), so a value seen before is answered from here
// instead: which rules match it (rule-hits.ts), and what each rule's operator found in it.
//
// A rule set keeps three stores (request-fields.ts says which value goes where): a stable one for
// what a client sends on every request (header and cookie names and values, the method, argument
// names), a volatile one for the target, argument values and the body, so that a stream of new
// targets cannot evict the headers, and one for clients' addresses. Each is a RepeatStore
// (repeat-store.ts): a value is kept the second time it comes, bounded in entries and in the length
// of a value.
import type { Bits } from './literal-scanner.ts';
import { RepeatStore } from './repeat-store.ts';
import type { SetVar } from './rule-set.ts';

/** A setvar with its macros expanded: what it writes to TX. */
export interface TxWrite {
  name: string;
  op: SetVar['op'];
  value: string;
}

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
  /** The words of `hits` that are not zero. */
  hitWords: number[];
  /** What a capturing rule's per-match setvars write when it matches the value (by the rule's slot; engine.ts PerMatch). */
  writes: Map<number, TxWrite[]> | undefined;
  /** The hit groups (by slot) whose rules have been run on the value: bit slot of word slot >> 5. */
  ran: number[];
}

export const newMemo = (): ValueMemo => ({ found: [], groups: [], triggers: -1, results: new Map(), hits: undefined, hitWords: [], writes: undefined, ran: [] });

/** A value's findings, kept from its second time on (repeat-store.ts). */
export class ValueMemos extends RepeatStore<ValueMemo> {
  /** At most `capacity` values, each at most `maxLength` bytes long (and as many seen once). */
  constructor(capacity: number, maxLength: number) {
    super(capacity, maxLength, newMemo);
  }
}
