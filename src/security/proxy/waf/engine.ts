// Runs a rule set's phases 1 and 2 over one request as ModSecurity does with the Core Rule Set in
// anomaly scoring mode: rules add to TX scores (`block` passes, as crs-setup.conf's default action
// says), SecMarker/skipAfter skip the rules above the paranoia level, and rule 949110 denies once
// the inbound score reaches the threshold. What the request matched (ids and categories) comes back
// for the log and the metrics.
import type { Bits } from './literal-scanner.ts';
import { hasBit } from './prefilter.ts';
import { requestCollections, type Collections, type Field, type WafRequest } from './request-fields.ts';
import type { Marker, Rule, RuleSet, SetVar, Target } from './rule-set.ts';
import type { TransformStep } from './transform-chains.ts';
import { triggersIn } from './transform-triggers.ts';

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
  /** Detection rules that matched (not the scoring rules), in order. */
  matched: number[];
  /** Denied because the inspection ran out of its budget (crafted input making the rules slow). */
  exhausted: boolean;
}

const isMarker = (item: Rule | Marker): item is Marker => 'marker' in item;

/** A setvar naming what one match found (`%{tx.0}`…, `%{matched_var}`): it runs at each match, not once per rule. */
const namesAMatch = /%\{(?:tx\.\d|matched_var)/i;
const perMatchOf = new WeakMap<Rule, SetVar[]>();
function perMatchSetVars(rule: Rule): SetVar[] {
  let found = perMatchOf.get(rule);
  if (found === undefined) {
    found = rule.setvars.filter((v) => namesAMatch.test(v.name) || namesAMatch.test(v.value));
    perMatchOf.set(rule, found);
  }
  return found;
}

/** Where each marker is in a phase's list: skipAfter goes on past it. */
const markerIndexes = new WeakMap<(Rule | Marker)[], Map<string, number>>();
function markerIndex(list: (Rule | Marker)[], marker: string): number {
  let index = markerIndexes.get(list);
  if (index === undefined) {
    index = new Map();
    list.forEach((item, i) => {
      if (isMarker(item) && !index?.has(item.marker)) index?.set(item.marker, i);
    });
    markerIndexes.set(list, index);
  }
  return index.get(marker) ?? list.length;
}

const integer = (text: string | undefined): number => {
  const n = parseInt(text ?? '', 10);
  return Number.isNaN(n) ? 0 : n;
};

/** Rules whose ids are in this band are detections (not initialisation or scoring): they are what a verdict names. */
const isDetection = (id: number): boolean => id >= 911000 && id < 949000;

const selects = (selector: Target['selector'], name: string): boolean =>
  selector === undefined || (typeof selector === 'string' ? name.toLowerCase() === selector : selector.test(name));

class Transaction {
  readonly #rules: RuleSet;
  readonly #collections: Collections;
  readonly #tx = new Map<string, string>();
  /** The prefiltered rules that could match this request. */
  readonly #candidates: Bits;
  #matchedVar = '';
  #matchedVarName = '';
  #matchedVars: Field[] = [];
  #ruleId = 0;
  readonly #removedIds: [number, number][] = [];
  readonly #removedTags = new Set<string>();
  readonly #removedTargets: { id?: number; tag?: string; target: Target }[] = [];
  #stopped = false;
  readonly matched: number[] = [];

  /** `deadline`: the inspection's (performance.now()); the prefilter's pass stops past it too. */
  constructor(rules: RuleSet, collections: Collections, settings: WafSettings, deadline: number) {
    this.#rules = rules;
    this.#collections = collections;
    // What crs-setup.conf sets (rule 900990) and the operator's choices; rule 901 sets CRS's defaults for the rest.
    this.#tx.set('crs_setup_version', '334');
    this.#tx.set('paranoia_level', String(settings.paranoia));
    this.#tx.set('executing_paranoia_level', String(settings.paranoia));
    this.#tx.set('inbound_anomaly_score_threshold', String(settings.threshold));
    this.#candidates = this.#couldMatch(settings.paranoia, deadline);
  }

  get score(): number {
    return integer(this.#tx.get('anomaly_score'));
  }

  /** Expands `%{tx.x}`, `%{matched_var}`, `%{request_headers.host}`, ... for this request. */
  readonly expand = (text: string): string => {
    if (!text.includes('%{')) return text;
    return text.replace(/%\{([^}]+)\}/g, (_, name: string) => {
      const dot = name.indexOf('.');
      const collection = (dot < 0 ? name : name.slice(0, dot)).toUpperCase();
      const key = dot < 0 ? undefined : name.slice(dot + 1).toLowerCase();
      if (collection === 'TX') return this.#tx.get(key ?? '') ?? '';
      if (collection === 'MATCHED_VAR') return this.#matchedVar;
      if (collection === 'MATCHED_VAR_NAME') return this.#matchedVarName;
      if (collection === 'RULE') return key === 'id' ? String(this.#ruleId) : '';
      const fields = this.#collections.get(collection) ?? [];
      return fields.find((f) => key === undefined || f.name.toLowerCase() === key)?.value ?? '';
    });
  };

  #fieldsOf(collection: string): Field[] {
    switch (collection) {
      case 'TX':
        return [...this.#tx].map(([name, value]) => ({ name, value }));
      case 'MATCHED_VAR':
        return [{ name: '', value: this.#matchedVar }];
      case 'MATCHED_VAR_NAME':
        return [{ name: '', value: this.#matchedVarName }];
      case 'MATCHED_VARS':
        return this.#matchedVars;
      case 'MATCHED_VARS_NAMES':
        return this.#matchedVars.map((f) => ({ name: f.name, value: f.name }));
      default:
        return this.#collections.get(collection) ?? [];
    }
  }

  /** A target's fields; a TX variable by name without listing TX (most rules read one). */
  #select(target: Target): Field[] {
    const selector = target.selector;
    if (target.collection === 'TX' && typeof selector === 'string') {
      const value = this.#tx.get(selector);
      return value === undefined ? [] : [{ name: selector, value }];
    }
    const all = this.#fieldsOf(target.collection);
    return selector === undefined ? all : all.filter((f) => selects(selector, f.name));
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

  /** The prefiltered rules with one of their literals in one of the values they read (prefilter.ts). */
  #couldMatch(paranoia: number, deadline: number): Bits {
    const found = new Uint32Array(this.#rules.prefilter.scanner.words);
    for (const group of this.#rules.prefilter.groups(paranoia)) {
      // Its cost grows with the request's values, as the rules' does: bounded by the same budget.
      if (performance.now() > deadline) {
        this.exhausted = true;
        return found;
      }
      const fields = this.#select(group.target);
      if (fields.length === 0) continue;
      for (const { node, rules } of group.chains) {
        for (const field of fields) {
          const hits = this.#found(field, node);
          for (let w = 0; w < found.length; w++) found[w] = (found[w] as number) | ((hits[w] as number) & (rules[w] as number));
        }
      }
    }
    return found;
  }

  /** The prefiltered rules with a literal in a field's value through one transformation chain. */
  #found(field: Field, node: number): Bits {
    const memo = (field.found ??= []);
    let hits = memo[node];
    if (hits === undefined) {
      // The scan ignores case: a chain that changes the value in case only finds what the value does.
      if (node !== 0 && ((field.triggers ??= triggersIn(field.value)) & (this.#rules.chains.steps[node] as TransformStep).triggers) === 0) {
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

  /** The value of `field` the rule's operator matched (each transformation's result, with multiMatch), or undefined. */
  #test(rule: Rule, field: Field): { value: string; captured: string[] } | undefined {
    if (!rule.multiMatch) {
      const value = this.#transformed(field, rule.transformNode);
      const captured = rule.operator(value, this.expand);
      if ((captured !== undefined) === rule.negated) return undefined;
      return { value, captured: captured ?? [] };
    }
    // multiMatch: the value as it is, then after each transformation that changed it.
    let previous: string | undefined;
    for (const node of this.#rules.chains.path(rule.transformNode)) {
      const value = this.#transformed(field, node);
      if (value === previous) continue;
      previous = value;
      const captured = rule.operator(value, this.expand);
      if ((captured !== undefined) !== rule.negated) return { value, captured: captured ?? [] };
    }
    return undefined;
  }

  /** Whether one rule of a chain matches: any of its values (MATCHED_VAR set to the last that did). */
  #ruleMatches(rule: Rule): boolean {
    this.#ruleId = rule.id;
    if (rule.targets.length === 0) return rule.operator('', this.expand) !== undefined !== rule.negated;
    let matchedNow: Field[] | undefined;
    for (const target of rule.targets) {
      const all = this.#select(target);
      const fields = target.count ? [{ name: '', value: String(all.length) }] : all;
      for (const field of fields) {
        if (!target.count && this.#excluded(rule, target.collection, field)) continue;
        const match = this.#test(rule, field);
        if (match === undefined) continue;
        const name = target.collection === 'MATCHED_VARS' || field.name === '' ? field.name || target.collection : `${target.collection}:${field.name}`;
        this.#matchedVar = match.value;
        this.#matchedVarName = name;
        (matchedNow ??= []).push({ name, value: match.value });
        if (rule.capture && !rule.negated) {
          for (let i = 0; i < 10; i++) {
            if (i < match.captured.length) this.#tx.set(String(i), match.captured[i] ?? '');
            else this.#tx.delete(String(i));
          }
        }
        // What names this match (a capture, the matched variable) is set now, for each match, as
        // ModSecurity 2 does: CRS's 920450 records every header name this way for its chained rule.
        for (const v of perMatchSetVars(rule)) this.#setVar(v);
      }
    }
    if (matchedNow === undefined) return false;
    this.#matchedVars = matchedNow;
    return true;
  }

  /** The rule and its chain match: their actions run, head first. */
  #chainMatches(rule: Rule): boolean {
    this.#matchedVars = [];
    for (let r: Rule | undefined = rule; r !== undefined; r = r.chain) if (!this.#ruleMatches(r)) return false;
    for (let r: Rule | undefined = rule; r !== undefined; r = r.chain) this.#act(r);
    return true;
  }

  #act(rule: Rule): void {
    const perMatch = perMatchSetVars(rule);
    for (const v of rule.setvars) if (!perMatch.includes(v)) this.#setVar(v);
    for (const { name, value } of rule.ctls) this.#control(name, value);
  }

  #setVar(v: SetVar): void {
    const name = this.expand(v.name).toLowerCase();
    if (v.op === '!') this.#tx.delete(name);
    else if (v.op === '=') this.#tx.set(name, this.expand(v.value));
    else {
      const delta = integer(this.expand(v.value));
      this.#tx.set(name, String(integer(this.#tx.get(name)) + (v.op === '+' ? delta : -delta)));
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
    const target: Target = { collection, selector: selectorText, count: false };
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
   * Runs one phase; true when a rule denied the request, or the clock passed `deadline` (looked at
   * every 8 rules: a clock read per rule would cost more than most rules).
   */
  run(list: (Rule | Marker)[], deadline: number): boolean {
    for (let i = 0; i < list.length && !this.#stopped; i++) {
      if ((i & 7) === 0 && performance.now() > deadline) {
        this.exhausted = true;
        return true;
      }
      const item = list[i] as Rule | Marker;
      if (isMarker(item) || this.#removed(item)) continue;
      if (item.prefilterBit >= 0 && !hasBit(this.#candidates, item.prefilterBit)) {
        // It cannot match: as if it had run and not (MATCHED_VARS is per rule).
        this.#matchedVars = [];
        continue;
      }
      if (!this.#chainMatches(item)) continue;
      if (item.log && isDetection(item.id)) this.matched.push(item.id);
      if (item.disruptive === 'deny') return true;
      if (item.disruptive === 'allow') {
        this.#stopped = true;
        return false;
      }
      if (item.skipAfter !== undefined) i = markerIndex(list, item.skipAfter);
    }
    return false;
  }
}

/** Inspects one request with the rule set. */
export function inspect(rules: RuleSet, req: WafRequest, settings: WafSettings): Verdict {
  const started = performance.now();
  const deadline = started + settings.budgetMs;
  const t = new Transaction(rules, requestCollections(req, started), settings, deadline);
  // The prefilter's pass may already have spent the budget.
  let denied = t.exhausted;
  for (const phase of [1, 2]) {
    if (denied) break;
    denied = t.run(rules.phases.get(phase) ?? [], deadline);
  }
  return { denied, score: t.score, matched: t.matched, exhausted: t.exhausted };
}
