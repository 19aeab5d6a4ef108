// The setvars a rule runs at each of its matches, not once when its chain matched: those naming
// what one match found (`%{tx.0}`, `%{matched_var}`), as ModSecurity 2 runs them (CRS's 920450
// records every header name of a request this way, for its chained rule to look up).
import { templateOf } from './macro.ts';
import { captureNames, type Rule, type SetVar } from './rule-set.ts';

/** A setvar naming what one match found (`%{tx.0}`…, `%{matched_var}`): it runs at each match, not once per rule. */
const namesAMatch = /%\{(?:tx\.\d|matched_var)/i;

/** A rule's setvars run at each match. */
export interface PerMatch {
  setvars: SetVar[];
  /**
   * What they write is a function of the matched value alone: they name only the match's captures
   * and MATCHED_VAR, and the rule captures and keeps its operator's result in a value's memo. A
   * value's memo then keeps them expanded (CRS's 920450 writes one per header name of every request).
   */
  byValue: boolean;
  /** What they write is a function of the match (or there are none): a head chain's writes replay (head-chain.ts). */
  fromTheMatch: boolean;
}

/** Macros naming only what a match of a capturing rule sets: TX:0 … TX:9 and MATCHED_VAR. */
const onlyTheMatch = (text: string): boolean =>
  (templateOf(text)?.refs ?? []).every(({ collection, key }) => collection === 'MATCHED_VAR' || (collection === 'TX' && key !== undefined && captureNames.includes(key)));

const perMatchOf = new WeakMap<Rule, PerMatch>();
export function perMatchOfRule(rule: Rule): PerMatch {
  let found = perMatchOf.get(rule);
  if (found === undefined) {
    const setvars = rule.setvars.filter((v) => namesAMatch.test(v.name) || namesAMatch.test(v.value));
    const fromTheMatch = setvars.length === 0 || (rule.capture && !rule.negated && setvars.every((v) => onlyTheMatch(v.name) && onlyTheMatch(v.value)));
    found = { setvars, byValue: fromTheMatch && setvars.length > 0 && rule.memoSlot >= 0, fromTheMatch };
    perMatchOf.set(rule, found);
  }
  return found;
}
