// The rules a request actually runs at given settings. Of the ~160 Core Rule Set rules an ordinary
// request went through at paranoia 1, about 110 read nothing of the request: they set CRS's
// defaults (`&TX:x @eq 0 → setvar`), compare the paranoia level and skip what is above it, or turn
// the application exclusion packages off. Their outcome is the same for every request with the same
// settings, so it is worked out once (the engine runs them over no request, `Simulator`) and a
// request runs only what is left: the rules that read it, with the TX values the others would
// have set put in place between them (`Preset`), in the same order.
//
// A rule is worked out in advance (static) only when that cannot change what a request sees:
// - it reads only TX variables by name (and macros naming them), none of which a rule that stays
//   for requests writes; what it writes is put in place where it stood, so a request rule writing
//   the same variable before or after it still does so in the same order (CRS's 901200 sets the
//   scores to 0 that the detections then add to);
// - no request rule can skip it (it is not between a remaining rule's skipAfter and its marker),
//   and no ctl can remove it;
// - it does nothing but set TX and skip: no ctl, no deny/allow, no detection logged.
// Those conditions are applied until nothing changes, since a rule kept for requests makes what it
// writes request-dependent in turn.
//
// A request rule whose chain starts with such a check (`TX:do_reput_block @eq 1` chained to the IP
// reputation, `&TX:max_num_args @eq 1` to the count of ARGS) and whose check fails at these
// settings can never match: it is left out of the plan, and the analysis runs again without it,
// since its skipAfter no longer makes the rules it could skip depend on the request.
//
// Rules whose only effect is to set TX variables no rule reads (CRS's 901318 hashes the
// User-Agent for the IP reputation collection, which the engine does not keep) are left out too.
import { templateOf } from './macro.ts';
import { captureNames, type Marker, type Rule } from './rule-set.ts';

/** TX assignments made in advance (undefined: the variable unset), applied where the static rules stood. */
export interface Preset {
  preset: [name: string, value: string | undefined][];
}

export type PlanItem = Rule | Marker | Preset;

export const isMarker = (item: PlanItem): item is Marker => 'marker' in item;
export const isPreset = (item: PlanItem): item is Preset => 'preset' in item;

/** The rules of a plan's phases (chain heads), in order: its markers and presets left out. */
export function* planRules(plan: readonly (readonly PlanItem[])[]): Generator<Rule> {
  for (const phase of plan) for (const item of phase) if (!isMarker(item) && !isPreset(item)) yield item;
}

/** Rules whose ids are in this band are detections (not initialisation or scoring): they are what a verdict names. */
export const isDetection = (id: number): boolean => id >= 911000 && id < 949000;

/** Runs static rules at plan time, over no request; TX as it then stands. */
export interface Simulator {
  /** The rule and its chain, actions and all: whether it matched. */
  evaluate(rule: Rule): boolean;
  /** The rule alone (not its chain), no actions: whether it matches. */
  matches(rule: Rule): boolean;
  readonly tx: { get(name: string): string | undefined };
}

/** What a rule's chain reads and writes. */
interface Effects {
  /** TX variables read by name. */
  reads: Set<string>;
  /** It reads TX by a regex or whole, or something of the request (or the engine's MATCHED_* variables). */
  readsMore: boolean;
  writes: Set<string>;
  /** Names written through a macro: any variable starting so. */
  writePrefixes: string[];
}

/** What the rule reads and writes; with `chained`, its chain's too. */
function effectsOf(head: Rule, chained: boolean): Effects {
  const fx: Effects = { reads: new Set(), readsMore: false, writes: new Set(), writePrefixes: [] };
  const readMacros = (text: string): void => {
    for (const { collection, key } of templateOf(text)?.refs ?? []) {
      if (collection === 'TX' && key !== undefined) fx.reads.add(key);
      else if (collection !== 'RULE' || key !== 'id') fx.readsMore = true;
    }
  };
  for (let r: Rule | undefined = head; r !== undefined; r = chained ? r.chain : undefined) {
    for (const t of r.targets) {
      if (t.collection === 'TX' && typeof t.selector === 'string') fx.reads.add(t.selector);
      else fx.readsMore = true;
    }
    readMacros(r.operatorArg);
    if (r.capture) for (const name of captureNames) fx.writes.add(name);
    for (const v of r.setvars) {
      readMacros(v.name);
      readMacros(v.value);
      const macro = v.name.indexOf('%{');
      if (macro >= 0) fx.writePrefixes.push(v.name.slice(0, macro));
      else {
        fx.writes.add(v.name);
        // `=+1` reads what it adds to.
        if (v.op === '+' || v.op === '-') fx.reads.add(v.name);
      }
    }
  }
  return fx;
}

/** Whether anything of the chain but TX writes and skips could show: ctls, deny/allow, a logged detection. */
function actsBeyondTx(head: Rule): boolean {
  for (let r: Rule | undefined = head; r !== undefined; r = r.chain) {
    if (r.ctls.length > 0 || r.disruptive === 'deny' || r.disruptive === 'allow') return true;
  }
  return head.log && isDetection(head.id);
}

/** The rules a ctl of any rule could remove (by id or tag, whole or a target); all of them when a ctl's value has a macro. */
function removable(heads: readonly Rule[]): (rule: Rule) => boolean {
  const ranges: [number, number][] = [];
  const tags = new Set<string>();
  let any = false;
  for (const head of heads) {
    for (let r: Rule | undefined = head; r !== undefined; r = r.chain) {
      for (const { name, value } of r.ctls) {
        if (value.includes('%{')) any = true;
        if (name === 'ruleremovebyid' || name === 'ruleremovetargetbyid') {
          const ids = name === 'ruleremovebyid' ? value : value.slice(0, value.indexOf(';'));
          for (const part of ids.split(/[\s,]+/)) {
            const [lo, hi] = part.split('-').map(Number);
            if (lo !== undefined && !Number.isNaN(lo)) ranges.push([lo, hi ?? lo]);
          }
        } else if (name === 'ruleremovebytag' || name === 'ruleremovetargetbytag') {
          tags.add(name === 'ruleremovebytag' ? value : value.slice(0, value.indexOf(';')));
        }
      }
    }
  }
  return (rule) => any || ranges.some(([lo, hi]) => rule.id >= lo && rule.id <= hi) || rule.tags.some((tag) => tags.has(tag));
}

/** Where each marker of a list is (its first place). */
export function markerPositions(list: readonly PlanItem[]): Map<string, number> {
  const at = new Map<string, number>();
  list.forEach((item, i) => {
    if (isMarker(item) && !at.has(item.marker)) at.set(item.marker, i);
  });
  return at;
}

interface RuleRoles {
  /** Worked out once per settings. */
  statics: Set<Rule>;
  /** Run for no one: they only write what nothing reads. */
  dead: Set<Rule>;
  /** Request rules whose head reads only what static rules set: the plan can tell whether it can match. */
  staticHeads: Set<Rule>;
}

/** Which rules of the phases' lists are static and which dead (see the head of this file). */
function ruleRoles(lists: readonly (readonly (Rule | Marker)[])[]): RuleRoles {
  const heads = lists.flatMap((list) => list.filter((item): item is Rule => !isMarker(item)));
  const effects = new Map(heads.map((rule) => [rule, effectsOf(rule, true)]));
  const canRemove = removable(heads);
  const statics = new Set(
    heads.filter((rule) => {
      const fx = effects.get(rule) as Effects;
      return !fx.readsMore && fx.writePrefixes.length === 0 && !actsBeyondTx(rule) && !canRemove(rule);
    }),
  );
  const positions = lists.map(markerPositions);
  let isDirty: (name: string) => boolean = () => false;
  for (let changed = true; changed; ) {
    changed = false;
    const dirty = new Set<string>();
    const dirtyPrefixes: string[] = [];
    for (const rule of heads) {
      if (statics.has(rule)) continue;
      const fx = effects.get(rule) as Effects;
      for (const name of fx.writes) dirty.add(name);
      dirtyPrefixes.push(...fx.writePrefixes);
    }
    isDirty = (name) => dirty.has(name) || dirtyPrefixes.some((p) => name.startsWith(p));
    const demote = (rule: Rule): void => {
      if (statics.delete(rule)) changed = true;
    };
    for (const rule of statics) {
      const fx = effects.get(rule) as Effects;
      if ([...fx.reads].some(isDirty)) demote(rule);
    }
    // A rule a request rule may skip runs or not by the request.
    lists.forEach((list, l) => {
      list.forEach((item, i) => {
        if (isMarker(item) || statics.has(item) || item.skipAfter === undefined) return;
        const end = positions[l]?.get(item.skipAfter) ?? list.length;
        for (let k = i + 1; k <= end && k < list.length; k++) {
          const skipped = list[k] as Rule | Marker;
          if (!isMarker(skipped)) demote(skipped);
        }
      });
    });
  }
  const staticHeads = new Set<Rule>();
  for (const rule of heads) {
    if (statics.has(rule)) continue;
    const fx = effectsOf(rule, false);
    if (!fx.readsMore && ![...fx.reads].some(isDirty)) staticHeads.add(rule);
  }
  return { statics, dead: deadRules(heads, statics, effects), staticHeads };
}

/** Request rules whose only effect is writing TX variables that no rule reads. */
function deadRules(heads: readonly Rule[], statics: ReadonlySet<Rule>, effects: ReadonlyMap<Rule, Effects>): Set<Rule> {
  // The engine reads the score.
  const read = new Set<string>(['anomaly_score']);
  for (const fx of effects.values()) for (const name of fx.reads) read.add(name);
  const patterns: RegExp[] = [];
  let readsAll = false;
  for (const head of heads) {
    for (let r: Rule | undefined = head; r !== undefined; r = r.chain) {
      for (const t of r.targets) {
        if (t.collection !== 'TX' || typeof t.selector === 'string') continue;
        if (t.selector === undefined) readsAll = true;
        else patterns.push(t.selector);
      }
      // MATCHED_VAR read by a chain's head is the last match of an earlier rule: any rule's match counts.
      if (r === head && (r.targets.some((t) => t.collection.startsWith('MATCHED_')) || /%\{matched_var/i.test(r.operatorArg))) readsAll = true;
    }
  }
  const dead = new Set<Rule>();
  if (readsAll) return dead;
  const isRead = (name: string): boolean => read.has(name) || patterns.some((re) => re.test(name));
  for (const rule of heads) {
    if (statics.has(rule) || actsBeyondTx(rule) || rule.skipAfter !== undefined) continue;
    const fx = effects.get(rule) as Effects;
    if (fx.writePrefixes.length === 0 && ![...fx.writes].some(isRead)) dead.add(rule);
  }
  return dead;
}

/**
 * The plan of each phase's list at the settings the simulators are made with: static rules run at
 * plan time (their skipAfter followed), their TX writes turned into presets; request rules that
 * can match and markers kept. `simulator` makes a fresh one for each round of the analysis.
 */
export function planPhases(phases: readonly (readonly (Rule | Marker)[])[], simulator: () => Simulator): PlanItem[][] {
  let lists = phases;
  for (;;) {
    const roles = ruleRoles(lists);
    const sim = simulator();
    const kept = new Set<Rule>();
    const plan = lists.map((list) => phasePlan(list, roles, sim, kept));
    // Rules skipped at these settings, or that cannot match at them, leave the analysis: it may now find more static rules.
    const next = lists.map((list) => list.filter((item) => isMarker(item) || kept.has(item)));
    if (next.every((list, i) => list.length === lists[i]?.length)) return plan;
    lists = next;
  }
}

/** One phase's plan; `kept`: the rules reached that can match, static ones included. */
function phasePlan(list: readonly (Rule | Marker)[], roles: RuleRoles, sim: Simulator, kept: Set<Rule>): PlanItem[] {
  const plan: PlanItem[] = [];
  const positions = markerPositions(list);
  // What the static rules since the last request rule wrote: their values as they then stand.
  const written = new Set<string>();
  const flush = (): void => {
    if (written.size === 0) return;
    plan.push({ preset: Array.from(written, (name) => [name, sim.tx.get(name)]) });
    written.clear();
  };
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as Rule | Marker;
    if (isMarker(item)) {
      plan.push(item);
      continue;
    }
    if (roles.staticHeads.has(item) && !sim.matches(item)) continue;
    kept.add(item);
    if (roles.dead.has(item)) continue;
    if (!roles.statics.has(item)) {
      flush();
      plan.push(item);
      continue;
    }
    if (!sim.evaluate(item)) continue;
    for (let r: Rule | undefined = item; r !== undefined; r = r.chain) {
      for (const v of r.setvars) written.add(v.name);
      if (r.capture) for (const name of captureNames) written.add(name);
    }
    if (item.skipAfter !== undefined) i = positions.get(item.skipAfter) ?? list.length;
  }
  flush();
  return plan;
}
