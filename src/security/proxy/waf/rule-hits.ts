// Which rules match a request, found value by value before the rules run. Most Core Rule Set
// detections test each value they read on its own (`ARGS|REQUEST_HEADERS "@rx …"`), through a
// transformation chain, with an operator whose argument holds no macro: whether such a rule
// matches a value depends on the value alone. Each value's memo (value-memo.ts) keeps which of the
// rules reading it match it, so a request is one pass over its values, each looked up, and the
// rule list then runs only the rules that matched one of their values. A header or cookie value
// seen before costs a lookup; a value seen for the first time runs the rules reading it once
// (their prefilter first: prefilter.ts).
//
// Like the prefilter, the check is a superset: it ignores a rule's exclusions (`!ARGS:x`) and the
// targets a ctl removes, so a rule may run and then not match; never the other way round.
import type { Bits } from './literal-scanner.ts';
import { levelOf, targetKey, type Prefilter, type PrefilterGroup } from './prefilter.ts';
import { engineCollections } from './request-fields.ts';
import type { Rule, Target } from './rule-set.ts';

/**
 * A rule whose match is a function of each value it reads alone: it reads the request's values
 * (not their count, not the engine's variables) and its operator's argument holds no macro.
 */
function valueWise(rule: Rule): boolean {
  return rule.targets.length > 0 && !rule.operatorArg.includes('%{') && rule.targets.every((t) => !t.count && !engineCollections.has(t.collection));
}

/** One target's values, and the value-wise rules of a plan that read it. */
export interface HitGroup {
  /** Where a value's memo marks this group's rules as run on it (value-memo.ts); unique across plans. */
  slot: number;
  target: Target;
  /** The readers' hit bits. */
  mask: Bits;
  /** The readers the prefilter does not answer for: each runs on every value. */
  unfiltered: Rule[];
  /** The prefilter's group of the same target at the plan's paranoia level, and the readers' bits in it: each of them runs on a value holding one of its literals. */
  prefilter: PrefilterGroup | undefined;
  prefiltered: Bits;
}

export class RuleHits {
  /** Hit bitsets are this many words long. */
  readonly words: number;
  readonly #groups = new WeakMap<object, HitGroup[]>();
  #slots = 0;

  /** `heads`: the chains' heads (a chain cannot match unless its head does); gives each value-wise one its hit bit. */
  constructor(heads: readonly Rule[]) {
    let bits = 0;
    for (const rule of heads) if (valueWise(rule)) rule.hitBit = bits++;
    this.words = Math.max(1, Math.ceil(bits / 32));
  }

  /**
   * The groups of the value-wise rules a plan runs (`rules()`; only those: a rule the plan leaves out
   * must not cost a request anything), made the first time `plan` asks; `prefilter` at `paranoia`.
   */
  groups(plan: object, rules: () => Iterable<Rule>, prefilter: Prefilter, paranoia: number): HitGroup[] {
    let groups = this.#groups.get(plan);
    if (groups !== undefined) return groups;
    // By target key: rules may name one variable in different ways (`User-Agent`, `user-agent`).
    const readers = new Map<string, { target: Target; rules: Rule[] }>();
    for (const rule of rules()) {
      if (rule.hitBit < 0) continue;
      for (const key of new Set(rule.targets.map(targetKey))) {
        let entry = readers.get(key);
        if (entry === undefined) {
          entry = { target: rule.targets.find((t) => targetKey(t) === key) as Target, rules: [] };
          readers.set(key, entry);
        }
        entry.rules.push(rule);
      }
    }
    const prefilterGroups = new Map(prefilter.groups(paranoia).map((g) => [targetKey(g.target), g]));
    groups = [];
    for (const [key, entry] of readers) {
      const group: HitGroup = {
        slot: this.#slots++,
        target: entry.target,
        mask: new Uint32Array(this.words),
        unfiltered: [],
        prefilter: prefilterGroups.get(key),
        prefiltered: new Uint32Array(prefilter.scanner.words),
      };
      for (const rule of entry.rules) {
        setBit(group.mask, rule.hitBit);
        // The prefilter's groups at a level scan for the rules of that level only.
        if (rule.prefilterBit >= 0 && group.prefilter !== undefined && levelOf(rule) <= paranoia) setBit(group.prefiltered, rule.prefilterBit);
        else group.unfiltered.push(rule);
      }
      groups.push(group);
    }
    this.#groups.set(plan, groups);
    return groups;
  }
}

const setBit = (bits: Bits, bit: number): void => {
  bits[bit >>> 5] = (bits[bit >>> 5] as number) | (1 << (bit & 31));
};
