// Runs a rule set's phases 1 and 2 over one request as ModSecurity does with the Core Rule Set in
// anomaly scoring mode: rules add to TX scores (`block` passes, as crs-setup.conf's default action
// says), SecMarker/skipAfter skip the rules above the paranoia level, and rule 949110 denies once
// the inbound score reaches the threshold. What the request matched (ids and categories) comes back
// for the log and the metrics.
import { Budget } from './budget.ts';
import type { Bits } from './literal-scanner.ts';
import { hasBit, type PrefilterGroup } from './prefilter.ts';
import { headChainOf, sameStrings, type ChainEvent, type Match } from './head-chain.ts';
import { perMatchOfRule } from './per-match.ts';
import type { HeadView } from './head-view.ts';
import { headViewOf, requestCollections, type Collections, type Field, type RequestVariables, type WafRequest } from './request-fields.ts';
import { templateOf, type MacroRef } from './macro.ts';
import { requiredLiterals } from './required-literals.ts';
import { isDetection, isMarker, isPreset, markerPositions, planPhases, planRules, type PlanItem, type Preset } from './rule-plan.ts';
import { captureNames, targetSlots, type Rule, type RuleSet, type SetVar, type Target } from './rule-set.ts';
import type { TransformStep } from './transform-chains.ts';
import { triggersIn } from './transform-triggers.ts';
import type { HitGroup } from './rule-hits.ts';
import { TxVars } from './tx-vars.ts';
import { newMemo, type TxWrite, type ValueMemo } from './value-memo.ts';
import { verdictSlot } from './verdict-memo.ts';

export interface WafSettings {
  /** tx.paranoia_level (1–4). */
  paranoia: number;
  /** tx.inbound_anomaly_score_threshold. */
  threshold: number;
  /** Milliseconds the inspection may take: past them it stops, and the request is denied. */
  budgetMs: number;
}

export interface Verdict {
  /** A rule denied the request (the anomaly score reached the threshold). */
  denied: boolean;
  /** The inbound anomaly score. */
  score: number;
  /** Detection rules that matched (not the scoring rules), in order; shared by the requests a kept verdict answers (verdict-memo.ts). */
  matched: readonly number[];
  /** Denied because the inspection ran out of its budget (crafted input making the rules slow). */
  exhausted: boolean;
}

/** Where each marker is in a plan's phase, made once per phase: skipAfter goes on past it. */
const markerIndexes = new WeakMap<PlanItem[], Map<string, number>>();
function markerIndex(list: PlanItem[], marker: string): number {
  let index = markerIndexes.get(list);
  if (index === undefined) {
    index = markerPositions(list);
    markerIndexes.set(list, index);
  }
  return index.get(marker) ?? list.length;
}

const integer = (text: string | undefined): number => {
  const n = parseInt(text ?? '', 10);
  return Number.isNaN(n) ? 0 : n;
};

const noCaptures: readonly string[] = [];
/** A match's variable's name (`ARGS:q`, `REQUEST_URI`), made only when a rule reads it: few do. */
const matchName = ({ collection, field }: Match): string => (collection === 'MATCHED_VARS' || field.name === '' ? field.name || collection : `${collection}:${field.name}`);

/** The matches of a rule that matched nothing (never written to: a match makes a new list). */
const noMatches: Match[] = [];

/**
 * What a count (`&ARGS`) reads, one field whose value is the number: the small numbers' fields
 * made once and shared (the engine adds to a field only what is a function of its value).
 */
const counts: Field[][] = Array.from({ length: 64 }, (_, n) => [{ name: '', value: String(n) }]);
const countOf = (n: number): Field[] => counts[n] ?? [{ name: '', value: String(n) }];

/**
 * Whether a TX name is one a selector's regex picks: the regex runs only on names holding one of the
 * literals (lower case) it needs.
 */
const selectorTests = new WeakMap<RegExp, (name: string) => boolean>();
function selectorTest(selector: RegExp): (name: string) => boolean {
  let test = selectorTests.get(selector);
  if (test === undefined) {
    const literals = requiredLiterals(selector.source);
    test = (name) => (literals === undefined || literals.some((literal) => name.includes(literal))) && selector.test(name);
    selectorTests.set(selector, test);
  }
  return test;
}

// Lower-casing keeps a byte string's length: a name of another length is not the selector's.
const selects = (selector: Target['selector'], name: string): boolean =>
  selector === undefined || (typeof selector === 'string' ? name.length === selector.length && (name === selector || name.toLowerCase() === selector) : selector.test(name));

class Transaction {
  readonly #rules: RuleSet;
  readonly #collections: Collections;
  /** The view of the request's head, when it is kept (head-view.ts): what is selected of it and what its values match, shared by the requests sending it. */
  readonly #head: HeadView | undefined;
  readonly #tx: TxVars;
  /** The value-wise rules that match one of the values they read (rule-hits.ts). */
  readonly #hits: Bits;
  /** Each target's fields of the request, once selected, by the target's slot (targets are shared by the rules reading them: rule-set.ts). */
  readonly #selected: (Field[] | undefined)[] = new Array<Field[] | undefined>(targetSlots()).fill(undefined);
  /** What the last #test that matched matched: the value and what the operator captured. */
  #testValue = '';
  #testCaptured: readonly string[] = [];
  /** The last match of any rule (MATCHED_VAR, MATCHED_VAR_NAME), and the last rule's matches (MATCHED_VARS). */
  #lastMatch: Match | undefined;
  #matches: Match[] = noMatches;
  #ruleId = 0;
  /** While a head chain runs for the first time: what it does to TX, in order (head-chain.ts). */
  #recording: ChainEvent[] | undefined;
  /** TX:0 … TX:n-1 may be set (by a capture or a setvar): the next capture unsets those past its own. */
  #captures = 0;
  readonly #removedIds: [number, number][] = [];
  readonly #removedTags = new Set<string>();
  readonly #removedTargets: { id?: number; tag?: string; target: Target }[] = [];
  #stopped = false;
  readonly matched: number[] = [];

  /** `budget`: the inspection's (budget.ts); the prefilter's pass stops past it too. */
  /** `groups`: the value-wise rules the request's plan runs (rule-hits.ts). */
  /** `start`: TX before the first rule runs (startOf). */
  constructor(rules: RuleSet, variables: RequestVariables, start: ReadonlyMap<string, string>, budget: Budget, groups: readonly HitGroup[]) {
    this.#rules = rules;
    this.#collections = variables.collections;
    this.#head = variables.head;
    this.#tx = new TxVars(start);
    this.#hits = this.#matching(groups, budget);
  }

  /** TX as it stands (the plan's simulation reads it). */
  get tx(): Pick<TxVars, 'get'> {
    return this.#tx;
  }

  /** Runs one rule and its chain, actions and all; whether it matched (the plan's simulation of static rules). */
  evaluate(rule: Rule): boolean {
    return this.#chainMatches(rule);
  }

  /** Whether one rule matches, its chain and actions left aside (the plan's simulation). */
  matches(rule: Rule): boolean {
    return this.#ruleMatches(rule);
  }

  get score(): number {
    return integer(this.#tx.get('anomaly_score'));
  }

  /** Expands `%{tx.x}`, `%{matched_var}`, `%{request_headers.host}`, ... for this request. */
  readonly expand = (text: string): string => {
    const template = templateOf(text);
    if (template === undefined) return text;
    let out = template.parts[0] as string;
    for (let i = 0; i < template.refs.length; i++) out += this.#macroValue(template.refs[i] as MacroRef) + (template.parts[i + 1] as string);
    return out;
  };

  #macroValue({ collection, key }: MacroRef): string {
    if (collection === 'TX') return this.#tx.get(key ?? '') ?? '';
    if (collection === 'MATCHED_VAR') return this.#lastMatch?.value ?? '';
    if (collection === 'MATCHED_VAR_NAME') return this.#lastMatch === undefined ? '' : matchName(this.#lastMatch);
    if (collection === 'RULE') return key === 'id' ? String(this.#ruleId) : '';
    const fields = this.#collections[collection] ?? [];
    return fields.find((f) => key === undefined || f.name.toLowerCase() === key)?.value ?? '';
  }

  #fieldsOf(collection: string): Field[] {
    switch (collection) {
      case 'TX':
        return this.#tx.names().map((name) => ({ name, value: this.#tx.get(name) as string }));
      case 'MATCHED_VAR':
        return [{ name: '', value: this.#lastMatch?.value ?? '' }];
      case 'MATCHED_VAR_NAME':
        return [{ name: '', value: this.#lastMatch === undefined ? '' : matchName(this.#lastMatch) }];
      case 'MATCHED_VARS':
        return this.#matches.map((m) => ({ name: matchName(m), value: m.value }));
      case 'MATCHED_VARS_NAMES':
        return this.#matches.map((m) => ({ name: matchName(m), value: matchName(m) }));
      default:
        return this.#collections[collection] ?? [];
    }
  }

  /**
   * A target's fields; a TX variable by name without listing TX (most rules read one). The
   * request's own variables do not change while it is inspected: each target is selected once.
   */
  #select(target: Target): Field[] {
    const selector = target.selector;
    const collection = target.collection;
    if (collection === 'TX') {
      if (selector instanceof RegExp) return this.#txMatching(selector);
      if (selector === undefined) return this.#fieldsOf(collection);
      const value = this.#tx.get(selector);
      return value === undefined ? [] : [{ name: selector, value }];
    }
    if (collection.startsWith('MATCHED_')) {
      const all = this.#fieldsOf(collection);
      return selector === undefined ? all : all.filter((f) => selects(selector, f.name));
    }
    // What is selected of the head is the same for every request sending it: kept with the head.
    const selected = this.#head !== undefined && target.head ? this.#head.selected : this.#selected;
    let fields = selected[target.slot];
    if (fields === undefined) {
      const all = this.#collections[collection] ?? [];
      fields = selector === undefined ? all : all.filter((f) => selects(selector, f.name));
      selected[target.slot] = fields;
    }
    return fields;
  }

  /** TX variables whose names a regex selects (`TX:/^HEADER_NAME_/`): the regex runs only on names holding one of its literals. */
  #txMatching(selector: RegExp): Field[] {
    return this.#tx.namesWhere(selector, selectorTest(selector)).map((name) => ({ name, value: this.#tx.get(name) as string }));
  }

  #removedTarget(rule: Rule, collection: string, name: string): boolean {
    for (const r of this.#removedTargets) {
      if (r.id !== undefined && r.id !== rule.id) continue;
      if (r.tag !== undefined && !rule.tags.includes(r.tag)) continue;
      if (r.target.collection === collection && selects(r.target.selector, name)) return true;
    }
    return false;
  }

  /** A field's value through the transformation chain ending at `node`, each step computed once per field. */
  #transformed(field: Field, node: number): string {
    if (node === 0) return field.value;
    const memo = (field.transformed ??= []);
    let out = memo[node];
    if (out === undefined) {
      const step = this.#rules.chains.steps[node] as TransformStep;
      out = step.apply(this.#transformed(field, step.parent));
      memo[node] = out;
    }
    return out;
  }

  /**
   * The value-wise rules (rule-hits.ts) that match one of the values they read: each value's memo
   * says which of a group's rules match it, the rules run on it the first time it is seen.
   */
  #matching(groups: readonly HitGroup[], budget: Budget): Bits {
    const words = this.#rules.hits.words;
    const found = new Uint32Array(words);
    // A head seen before: what its values match is known (head-view.ts); found now, it is kept.
    const known = this.#head?.hits.get(groups);
    if (known !== undefined) for (let w = 0; w < words; w++) found[w] = known[w] as number;
    const fromHead = this.#head !== undefined && known === undefined ? new Uint32Array(words) : undefined;
    let runs = 0;
    for (const group of groups) {
      const word = group.slot >>> 5;
      const bit = 1 << (group.slot & 31);
      const mask = group.mask;
      let into = found;
      if (group.target.head) {
        if (known !== undefined) continue;
        into = fromHead ?? found;
      }
      for (const field of this.#select(group.target)) {
        const memo = (field.memo ??= newMemo());
        if (((memo.ran[word] ?? 0) & bit) === 0) {
          // Its cost grows with the request's new values, as the rules' does: bounded by the same
          // budget, the clock read every 8 values run (most requests run none: their values are known).
          if ((runs++ & 7) === 0 && budget.over()) {
            this.exhausted = true;
            return found;
          }
          this.#runOn(field, memo, group);
          memo.ran[word] = (memo.ran[word] ?? 0) | bit;
        }
        const hits = memo.hits;
        if (hits === undefined) continue;
        // A value matches a few rules: only the words holding them.
        for (const w of memo.hitWords) into[w] = (into[w] as number) | ((hits[w] as number) & (mask[w] as number));
      }
    }
    if (fromHead !== undefined) {
      this.#head?.hits.set(groups, fromHead);
      for (let w = 0; w < words; w++) found[w] = (found[w] as number) | (fromHead[w] as number);
    }
    return found;
  }

  /** Runs a group's rules on a value, the prefiltered ones only when it holds one of their literals: those matching it are set in its memo's hits. */
  #runOn(field: Field, memo: ValueMemo, group: HitGroup): void {
    for (const rule of group.unfiltered) if (this.#test(rule, field)) this.#setHit(memo, rule);
    if (group.prefilter === undefined) return;
    const literals = this.#groupHits(field, group.prefilter);
    if (literals === null) return;
    const prefiltered = this.#rules.prefilter.rules;
    for (let w = 0; w < literals.length; w++) {
      for (let bits = (literals[w] as number) & (group.prefiltered[w] as number); bits !== 0; bits &= bits - 1) {
        const rule = prefiltered[w * 32 + 31 - Math.clz32(bits & -bits)] as Rule;
        if (this.#test(rule, field)) this.#setHit(memo, rule);
      }
    }
  }

  #setHit(memo: ValueMemo, rule: Rule): void {
    const hits = (memo.hits ??= new Uint32Array(this.#rules.hits.words));
    const word = rule.hitBit >>> 5;
    if (hits[word] === 0) memo.hitWords.push(word);
    hits[word] = (hits[word] as number) | (1 << (rule.hitBit & 31));
  }

  /** The group's rules with a literal in a field's value through their chains; null for none (most values). */
  #groupHits(field: Field, group: PrefilterGroup): Bits | null {
    const memo = (field.memo ??= newMemo());
    let hits = memo.groups[group.slot];
    if (hits === undefined) {
      hits = null;
      const none = this.#rules.prefilter.scanner.none;
      for (const { node, rules } of group.chains) {
        const found = this.#found(field, node);
        if (found === none) continue;
        for (let w = 0; w < found.length; w++) {
          const bits = (found[w] as number) & (rules[w] as number);
          if (bits === 0) continue;
          hits ??= new Uint32Array(found.length);
          hits[w] = (hits[w] as number) | bits;
        }
      }
      memo.groups[group.slot] = hits;
    }
    return hits;
  }

  /** The prefiltered rules with a literal in a field's value through one transformation chain. */
  #found(field: Field, node: number): Bits {
    const fieldMemo = (field.memo ??= newMemo());
    const memo = fieldMemo.found;
    let hits = memo[node];
    if (hits === undefined) {
      if (fieldMemo.triggers < 0) fieldMemo.triggers = triggersIn(field.value);
      // The scan ignores case: a chain that changes the value in case only finds what the value does.
      if (node !== 0 && (fieldMemo.triggers & (this.#rules.chains.steps[node] as TransformStep).triggers) === 0) {
        hits = this.#found(field, 0);
        memo[node] = hits;
        return hits;
      }
      const value = this.#transformed(field, node);
      const parent = (this.#rules.chains.steps[node] as TransformStep).parent;
      // A step that left the value as it was (the same string back) finds what the step before did.
      hits = node !== 0 && value === this.#transformed(field, parent) ? this.#found(field, parent) : this.#rules.prefilter.scanner.scan(value);
      memo[node] = hits;
    }
    return hits;
  }

  #excluded(rule: Rule, collection: string, field: Field): boolean {
    for (const x of rule.exclusions) if (x.collection === collection && selects(x.selector, field.name)) return true;
    return this.#removedTargets.length > 0 && this.#removedTarget(rule, collection, field.name);
  }

  /** Whether the rule's operator matches the field; the value it matched (each transformation's result, with multiMatch) in #testValue. */
  #test(rule: Rule, field: Field): boolean {
    if (rule.memoSlot >= 0 && field.memo !== undefined) {
      const results = field.memo.results;
      let result = results.get(rule.memoSlot);
      if (result === undefined) {
        result = rule.operator(this.#transformed(field, rule.transformNode), this.expand) ?? null;
        results.set(rule.memoSlot, result);
      }
      if ((result !== null) === rule.negated) return false;
      return this.#hit(this.#transformed(field, rule.transformNode), result);
    }
    if (!rule.multiMatch) {
      const value = this.#transformed(field, rule.transformNode);
      const captured = rule.operator(value, this.expand);
      if ((captured !== undefined) === rule.negated) return false;
      return this.#hit(value, captured);
    }
    // multiMatch: the value as it is, then after each transformation that changed it.
    let previous: string | undefined;
    for (const node of this.#rules.chains.path(rule.transformNode)) {
      const value = this.#transformed(field, node);
      if (value === previous) continue;
      previous = value;
      const captured = rule.operator(value, this.expand);
      if ((captured !== undefined) !== rule.negated) return this.#hit(value, captured);
    }
    return false;
  }

  #hit(value: string, captured: readonly string[] | null | undefined): true {
    this.#testValue = value;
    this.#testCaptured = captured ?? noCaptures;
    return true;
  }

  /** Whether one rule of a chain matches: any of its values (MATCHED_VAR set to the last that did). */
  #ruleMatches(rule: Rule): boolean {
    this.#ruleId = rule.id;
    if (rule.targets.length === 0) return rule.operator('', this.expand) !== undefined !== rule.negated;
    let matchedNow: Match[] | undefined;
    for (const target of rule.targets) {
      const all = this.#select(target);
      const fields = target.count ? countOf(all.length) : all;
      for (const field of fields) {
        if (!target.count && this.#excluded(rule, target.collection, field)) continue;
        if (!this.#test(rule, field)) continue;
        const value = this.#testValue;
        const captured = this.#testCaptured;
        const match = { collection: target.collection, field, value };
        this.#lastMatch = match;
        (matchedNow ??= []).push(match);
        if (rule.capture && !rule.negated) {
          this.#capture(captured);
          this.#recording?.push(captured);
        }
        // What names this match (a capture, the matched variable) is set now, for each match, as
        // ModSecurity 2 does: CRS's 920450 records every header name this way for its chained rule.
        const perMatch = perMatchOfRule(rule);
        if (perMatch.setvars.length === 0) continue;
        if (perMatch.byValue && field.memo !== undefined) {
          const kept = (field.memo.writes ??= new Map<number, TxWrite[]>());
          let writes = kept.get(rule.memoSlot);
          if (writes === undefined) {
            writes = perMatch.setvars.map((v) => this.#expandSetVar(v));
            kept.set(rule.memoSlot, writes);
          }
          for (const write of writes) this.#assign(write);
          this.#recording?.push(...writes);
        } else {
          for (const v of perMatch.setvars) {
            const write = this.#expandSetVar(v);
            this.#assign(write);
            this.#recording?.push(write);
          }
        }
      }
    }
    if (matchedNow === undefined) return false;
    this.#matches = matchedNow;
    return true;
  }

  /** TX:0 … TX:9 as a capture sets them: its match and groups, the slots past them unset. */
  #capture(captured: readonly string[]): void {
    const count = Math.min(captured.length, captureNames.length);
    for (let i = 0; i < count; i++) this.#tx.set(captureNames[i] as string, captured[i] ?? '');
    // Only the slots set before can be set now: most captures replace TX:0 alone.
    for (let i = count; i < this.#captures; i++) this.#tx.delete(captureNames[i] as string);
    this.#captures = count;
  }

  /** The rule and its chain match: their actions run, head first. */
  #chainMatches(rule: Rule): boolean {
    if (!this.#headChainMatches(rule)) return false;
    for (let r: Rule | undefined = rule; r !== undefined; r = r.chain) this.#act(r);
    return true;
  }

  /** Whether the rule's chain matches, its actions left aside: answered from the head's view when the chain reads only the head (head-chain.ts). */
  #headChainMatches(rule: Rule): boolean {
    const view = this.#head;
    const shape = view === undefined || this.#removedTargets.length > 0 ? null : headChainOf(rule);
    if (view === undefined || shape === null) return this.#linksMatch(rule);
    // What the chain checks that is not the head: the TX values its operators expand, and that
    // the TX it selects holds nothing yet (it then holds only what the chain itself writes).
    const args = shape.macroLinks.map((r) => this.expand(r.operatorArg));
    for (const selector of shape.txSelectors) if (this.#tx.namesWhere(selector, selectorTest(selector)).length > 0) return this.#linksMatch(rule);
    const known = view.chains.get(rule);
    if (known !== undefined && sameStrings(known.args, args)) {
      this.#ruleId = rule.id;
      for (const event of known.events) {
        if (Array.isArray(event)) this.#capture(event);
        else this.#assign(event as TxWrite);
      }
      this.#matches = known.matches;
      if (known.lastMatch !== undefined) this.#lastMatch = known.lastMatch;
      return known.matched;
    }
    const before = this.#lastMatch;
    this.#recording = [];
    const matched = this.#linksMatch(rule);
    view.chains.set(rule, { args, events: this.#recording, matched, matches: this.#matches, lastMatch: this.#lastMatch === before ? undefined : this.#lastMatch });
    this.#recording = undefined;
    return matched;
  }

  /** Whether each rule of the chain matches, in turn (MATCHED_VARS the last match's). */
  #linksMatch(rule: Rule): boolean {
    this.#matches = noMatches;
    for (let r: Rule | undefined = rule; r !== undefined; r = r.chain) if (!this.#ruleMatches(r)) return false;
    return true;
  }

  #act(rule: Rule): void {
    const perMatch = perMatchOfRule(rule).setvars;
    for (const v of rule.setvars) if (!perMatch.includes(v)) this.#assign(this.#expandSetVar(v));
    for (const { name, value } of rule.ctls) this.#control(name, value);
  }

  /** A setvar with its macros expanded now. */
  #expandSetVar(v: SetVar): TxWrite {
    return { name: this.expand(v.name).toLowerCase(), op: v.op, value: v.op === '!' ? '' : this.expand(v.value) };
  }

  #assign({ name, op, value }: TxWrite): void {
    // A setvar may write a capture slot (`tx.1`): the next capture must unset it.
    if (name.length === 1 && name >= '0' && name <= '9') this.#captures = captureNames.length;
    if (op === '!') this.#tx.delete(name);
    else if (op === '=') this.#tx.set(name, value);
    else {
      const delta = integer(value);
      this.#tx.set(name, String(integer(this.#tx.get(name)) + (op === '+' ? delta : -delta)));
    }
  }

  #control(name: string, value: string): void {
    if (name === 'ruleengine') {
      if (value.toLowerCase() === 'off') this.#stopped = true;
      return;
    }
    if (name === 'ruleremovebyid') {
      for (const part of value.split(/[\s,]+/)) {
        const [lo, hi] = part.split('-').map(Number);
        if (lo !== undefined && !Number.isNaN(lo)) this.#removedIds.push([lo, hi ?? lo]);
      }
      return;
    }
    if (name === 'ruleremovebytag') {
      this.#removedTags.add(value);
      return;
    }
    const semi = value.indexOf(';');
    if (semi < 0) return;
    const what = value.slice(0, semi);
    const colon = value.indexOf(':', semi);
    const collection = (colon < 0 ? value.slice(semi + 1) : value.slice(semi + 1, colon)).toUpperCase();
    const selectorText = colon < 0 ? undefined : value.slice(colon + 1).toLowerCase();
    const target: Target = { collection, selector: selectorText, count: false, slot: -1, head: false };
    if (name === 'ruleremovetargetbyid') this.#removedTargets.push({ id: Number(what), target });
    else this.#removedTargets.push({ tag: what, target });
  }

  #removed(rule: Rule): boolean {
    for (const [lo, hi] of this.#removedIds) if (rule.id >= lo && rule.id <= hi) return true;
    if (this.#removedTags.size > 0) for (const tag of rule.tags) if (this.#removedTags.has(tag)) return true;
    return false;
  }

  /** The inspection ran past its deadline. */
  exhausted = false;

  /**
   * Runs one phase; true when a rule denied the request, or it spent its `budget` (looked at before
   * every 8th rule that runs: a clock read per rule would cost more than most rules, and the rules
   * passed over cost nothing).
   */
  run(list: PlanItem[], budget: Budget, from = 0): boolean {
    const kinds = kindsOf(list);
    let ran = 0;
    for (let i = from; i < list.length && !this.#stopped; i++) {
      const kind = kinds[i] as number;
      if (kind === marker) continue;
      if (kind >= 0 && !hasBit(this.#hits, kind)) {
        // None of its values matches it: as if it had run and not (MATCHED_VARS is per rule), unless
        // a ctl removed it. Removals are rare: most requests skip it without reading the rule.
        if (!this.#removing || !this.#removed(list[i] as Rule)) this.#matches = noMatches;
        continue;
      }
      const item = list[i] as PlanItem;
      if (kind === preset) {
        applyPreset(this.#tx, item as Preset);
        continue;
      }
      // Only the rules that run take time: the clock is read before every 8th of them.
      if ((ran++ & 7) === 0 && budget.over()) {
        this.exhausted = true;
        return true;
      }
      const rule = item as Rule;
      if (this.#removing && this.#removed(rule)) continue;
      if (!this.#chainMatches(rule)) continue;
      if (rule.log && isDetection(rule.id)) this.matched.push(rule.id);
      if (rule.disruptive === 'deny') return true;
      if (rule.disruptive === 'allow') {
        this.#stopped = true;
        return false;
      }
      if (rule.skipAfter !== undefined) i = markerIndex(list, rule.skipAfter);
    }
    return false;
  }

  /** A ctl removed rules (by id or tag) from this request. */
  get #removing(): boolean {
    return this.#removedIds.length > 0 || this.#removedTags.size > 0;
  }
}

const preset = -2;
const marker = -3;

/**
 * What each item of a plan's phase is, in one typed array: a value-wise rule's hit bit (0 and up),
 * -1 for a rule run whatever the request's values, `preset`, `marker`. A request passes over most
 * rules (their values matched nothing) reading only this, not the rules' objects: inside the proxy,
 * where the proxy's own work has evicted them from the caches, each read was a cache miss.
 */
const kindsOfList = new WeakMap<PlanItem[], Int32Array>();
function kindsOf(list: PlanItem[]): Int32Array {
  let kinds = kindsOfList.get(list);
  if (kinds === undefined) {
    kinds = Int32Array.from(list, (item) => (isPreset(item) ? preset : isMarker(item) ? marker : item.hitBit));
    kindsOfList.set(list, kinds);
  }
  return kinds;
}

/** Each rule set's plans (rule-plan.ts), by paranoia level and threshold. */
const plans = new WeakMap<RuleSet, Map<string, PlanItem[][]>>();

/** The phases' plans at `settings`, made the first time they are asked for. */
export function planOf(rules: RuleSet, settings: WafSettings): PlanItem[][] {
  let bySettings = plans.get(rules);
  if (bySettings === undefined) {
    bySettings = new Map();
    plans.set(rules, bySettings);
  }
  const key = `${String(settings.paranoia)}/${String(settings.threshold)}`;
  let plan = bySettings.get(key);
  if (plan === undefined) {
    const phases = [rules.phases.get(1) ?? [], rules.phases.get(2) ?? []];
    plan = rules.planned ? planPhases(phases, () => new Transaction(rules, { collections: {}, head: undefined }, settingsTx(settings), new Budget(0, Infinity), [])) : phases;
    bySettings.set(key, plan);
  }
  return plan;
}

/** Puts a preset's TX values in place (undefined: the variable unset), in a request's TX or a plan's start. */
function applyPreset(tx: { set(name: string, value: string): unknown; delete(name: string): unknown }, { preset }: Preset): void {
  for (const [name, value] of preset) {
    if (value === undefined) tx.delete(name);
    else tx.set(name, value);
  }
}

/** What crs-setup.conf sets (rule 900990) and the operator's choices; rule 901 sets CRS's defaults for the rest. */
function settingsTx(settings: WafSettings): Map<string, string> {
  return new Map([
    ['crs_setup_version', '334'],
    ['paranoia_level', String(settings.paranoia)],
    ['executing_paranoia_level', String(settings.paranoia)],
    ['inbound_anomaly_score_threshold', String(settings.threshold)],
  ]);
}

/** Where a plan's requests start: TX with the settings and the plan's first preset (CRS's defaults) in place, and the phase items that then remain to run. */
interface Start {
  tx: ReadonlyMap<string, string>;
  /** The first item of the first phase to run (1: its preset is in `tx`). */
  from: number;
}

const starts = new WeakMap<PlanItem[][], Start>();
function startOf(plan: PlanItem[][], settings: WafSettings): Start {
  let start = starts.get(plan);
  if (start === undefined) {
    const tx = settingsTx(settings);
    const first = plan[0]?.[0];
    const leads = first !== undefined && isPreset(first);
    if (leads) applyPreset(tx, first);
    start = { tx, from: leads ? 1 : 0 };
    starts.set(plan, start);
  }
  return start;
}

/** Inspects one request with the rule set. */
export function inspect(rules: RuleSet, req: WafRequest, settings: WafSettings): Verdict {
  const started = performance.now();
  const plan = planOf(rules, settings);
  const view = headViewOf(req, rules.memos);
  // The same head, target and body inspected before: its verdict (verdict-memo.ts).
  const slot = view === undefined ? undefined : verdictSlot(view, plan, req, rules.chains);
  if (slot?.verdict !== undefined) return slot.verdict;
  const budget = new Budget(started, settings.budgetMs);
  const groups = rules.hits.groups(plan, () => planRules(plan), rules.prefilter, settings.paranoia);
  const start = startOf(plan, settings);
  const t = new Transaction(rules, requestCollections(req, started, rules.memos, view), start.tx, budget, groups);
  // The prefilter's pass may already have spent the budget.
  let denied = t.exhausted;
  for (const [i, phase] of plan.entries()) {
    if (denied) break;
    denied = t.run(phase, budget, i === 0 ? start.from : 0);
  }
  const verdict: Verdict = { denied, score: t.score, matched: t.matched, exhausted: t.exhausted };
  // A verdict the budget cut short depends on the time it took: never kept.
  if (slot !== undefined && !verdict.exhausted) slot.verdict = verdict;
  return verdict;
}
