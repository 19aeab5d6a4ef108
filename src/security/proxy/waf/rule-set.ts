// The Core Rule Set's request rules (phases 1 and 2) compiled from its .conf files, once per
// process: each SecRule and SecAction into a Rule (chained rules into their head's chain), each
// SecMarker into a marker skipAfter can jump past. A rule using what the engine does not implement
// (an operator such as @geoLookup, a variable such as a persistent collection's) is left out whole,
// chain and all, and named in `skipped`: the loader logs them at start.
import fs from 'node:fs';
import path from 'node:path';
import { compileOperator, operatorLiterals, UnsupportedOperator, type Operator } from './operators.ts';
import { Prefilter } from './prefilter.ts';
import type { RequestMemos } from './request-fields.ts';
import { RuleHits } from './rule-hits.ts';
import { parseActions, parseSecLang, type Directive } from './seclang.ts';
import { TransformChains } from './transform-chains.ts';
import { transformations } from './transformations.ts';
import { headCollections, newHeadView } from './head-view.ts';
import { RepeatStore } from './repeat-store.ts';
import { ValueMemos } from './value-memo.ts';

/**
 * How the engine spares work it can prove does not change a verdict. The tests run the rules both
 * ways over the same requests: `reference` (every rule in file order, nothing remembered between
 * requests) is what the tuned one is checked against.
 */
export interface RuleSetTuning {
  /** Run the rules through a plan per settings (rule-plan.ts) instead of every rule in order. */
  plan: boolean;
  /** Run only the value-wise rules that match one of their values (rule-hits.ts), instead of every rule on every value. */
  hits: boolean;
  /** Values remembered per thread in each of the stable and volatile memos, and the longest remembered (value-memo.ts). */
  memoCapacity: number;
  memoMaxLength: number;
  /** Requests' heads remembered per thread, and the longest remembered (head-view.ts). */
  headCapacity: number;
  headMaxLength: number;
  /** Clients' addresses remembered per thread (REMOTE_ADDR's memo). */
  addressCapacity: number;
}

const tuned: RuleSetTuning = { plan: true, hits: true, memoCapacity: 4096, memoMaxLength: 1024, headCapacity: 256, headMaxLength: 8192, addressCapacity: 1024 };
export const reference: RuleSetTuning = { plan: false, hits: false, memoCapacity: 0, memoMaxLength: 0, headCapacity: 0, headMaxLength: 0, addressCapacity: 0 };

/** One variable a rule reads: `ARGS`, `ARGS:q`, `REQUEST_HEADERS:/^x-/`, `&TX:score`. */
export interface Target {
  collection: string;
  /** Lower-case name; a RegExp for `/…/`; undefined: the whole collection. */
  selector: string | RegExp | undefined;
  /** `&`: the number of values, not the values. */
  count: boolean;
  /** Where a request keeps the target's selected fields (engine.ts); unique per target text, -1 for the targets a ctl names. */
  slot: number;
  /** It reads a collection made from the request's head alone (head-view.ts). */
  head: boolean;
}

/** TX:0 … TX:9: what `capture` sets, the match then the regex's groups. */
export const captureNames: readonly string[] = Array.from({ length: 10 }, (_, i) => String(i));

export interface SetVar {
  /** The TX variable, lower case; its name may hold macros. */
  name: string;
  /** `=`, `=+`, `=-`, or `!` (unset). */
  op: '=' | '+' | '-' | '!';
  value: string;
}

export interface Ctl {
  name: string;
  value: string;
}

export interface Rule {
  /** The chain's head's id for the rules chained to it. */
  id: number;
  phase: number;
  targets: Target[];
  exclusions: Target[];
  operatorName: string;
  /** The operator's argument as written (its macros are what rule-plan.ts reads). */
  operatorArg: string;
  operator: Operator;
  negated: boolean;
  /** Where the chain of transformations ends in the rule set's TransformChains. */
  transformNode: number;
  /** Literals one of which the operator cannot match without (required-literals.ts); undefined: none known. */
  literals: string[] | undefined;
  /** The rule's bit in the rule set's Prefilter; -1 when the prefilter does not answer for it. */
  prefilterBit: number;
  /** The rule's bit in the rule set's RuleHits (rule-hits.ts); -1 when its match is not found value by value. */
  hitBit: number;
  /** Where a value's memo keeps this rule's result (value-memo.ts); -1: not kept (its operator reads the request's TX, or multiMatch). */
  memoSlot: number;
  multiMatch: boolean;
  capture: boolean;
  setvars: SetVar[];
  ctls: Ctl[];
  skipAfter: string | undefined;
  /** `deny`/`drop` stop the request; `block` follows the default action (CRS's anomaly mode: pass). */
  disruptive: 'deny' | 'block' | 'pass' | 'allow' | undefined;
  log: boolean;
  msg: string;
  tags: string[];
  chain: Rule | undefined;
}

export interface Marker {
  marker: string;
}

export interface RuleSet {
  /** Rules and markers of each phase (1, 2), in file order. */
  phases: Map<number, (Rule | Marker)[]>;
  /** Rules left out, with why. */
  skipped: { id: number; reason: string }[];
  ruleCount: number;
  /** The .conf files read, in the order they were. */
  files: string[];
  chains: TransformChains;
  prefilter: Prefilter;
  hits: RuleHits;
  /** What the rules found in values seen before (value-memo.ts, request-fields.ts). */
  memos: RequestMemos;
  /** Whether the engine runs a plan (rule-plan.ts) or every rule. */
  planned: boolean;
}

export class UnsupportedRule extends Error {}

/** The collections the engine knows, each name by itself (the literals here are the one string each name is then). */
const supportedCollections = new Map(
  [
    'ARGS', 'ARGS_NAMES', 'ARGS_GET', 'ARGS_GET_NAMES', 'ARGS_POST', 'ARGS_POST_NAMES', 'ARGS_COMBINED_SIZE',
    'REQUEST_HEADERS', 'REQUEST_HEADERS_NAMES', 'REQUEST_COOKIES', 'REQUEST_COOKIES_NAMES', 'REQUEST_METHOD',
    'REQUEST_PROTOCOL', 'REQUEST_URI', 'REQUEST_URI_RAW', 'REQUEST_LINE', 'REQUEST_FILENAME', 'REQUEST_BASENAME',
    'QUERY_STRING', 'REQUEST_BODY', 'REQUEST_BODY_LENGTH', 'REQBODY_PROCESSOR', 'REQBODY_ERROR', 'FILES', 'FILES_NAMES',
    'FILES_COMBINED_SIZE', 'MULTIPART_PART_HEADERS', 'REMOTE_ADDR', 'UNIQUE_ID', 'DURATION', 'XML', 'IP', 'GLOBAL',
    'SESSION', 'USER', 'GEO', 'RESOURCE', 'TX', 'MATCHED_VAR', 'MATCHED_VAR_NAME', 'MATCHED_VARS', 'MATCHED_VARS_NAMES',
  ].map((name) => [name, name]),
);

/** Targets by their text: rules reading the same variable share one Target, which the engine selects once per request. */
const targetsByText = new Map<string, Target>();

/** How many targets have a slot: a request's selections are an array this long. */
export const targetSlots = (): number => targetsByText.size;

function parseTarget(text: string): Target {
  const known = targetsByText.get(text);
  if (known !== undefined) return known;
  const count = text.startsWith('&');
  const body = count ? text.slice(1) : text;
  const colon = body.indexOf(':');
  const name = (colon < 0 ? body : body.slice(0, colon)).toUpperCase();
  // The name as written in supportedCollections: one string, which property reads find at once.
  const collection = supportedCollections.get(name);
  if (collection === undefined) throw new UnsupportedRule(`variable ${name}`);
  const raw = colon < 0 ? undefined : body.slice(colon + 1);
  let selector: string | RegExp | undefined;
  if (raw === undefined || raw === '') selector = undefined;
  else if (raw.length >= 2 && raw.startsWith('/') && raw.endsWith('/')) selector = new RegExp(raw.slice(1, -1), 'i');
  else selector = raw.replace(/^'|'$/g, '').toLowerCase();
  const target = { collection, selector, count, slot: targetsByText.size, head: headCollections.has(collection) };
  targetsByText.set(text, target);
  return target;
}

/** `ARGS|!ARGS:x|&TX:y` into what is read and what is left out. */
export function parseTargets(text: string): { targets: Target[]; exclusions: Target[] } {
  const targets: Target[] = [];
  const exclusions: Target[] = [];
  for (const part of text.split('|')) {
    if (part === '') continue;
    if (part.startsWith('!')) exclusions.push(parseTarget(part.slice(1)));
    else targets.push(parseTarget(part));
  }
  return { targets, exclusions };
}

function parseSetVar(arg: string): SetVar {
  if (arg.startsWith('!')) return { name: arg.slice(4).toLowerCase(), op: '!', value: '' };
  const eq = arg.indexOf('=');
  const lhs = eq < 0 ? arg : arg.slice(0, eq);
  let value = eq < 0 ? '1' : arg.slice(eq + 1);
  let op: SetVar['op'] = '=';
  if (value.startsWith('+') || value.startsWith('-')) {
    op = value[0] as '+' | '-';
    value = value.slice(1);
  }
  return { name: lhs.slice(3).toLowerCase(), op, value };
}

/** setvar on TX; on a persistent collection (ip., global.: reputation, DoS counting), which the engine does not keep, nothing. */
const onTx = (arg: string): boolean => /^!?tx\./i.test(arg);

/** ctl options the engine applies; others (audit logging, body processor choices it makes itself) are ignored. */
const appliedCtls = new Set(['ruleremovebyid', 'ruleremovebytag', 'ruleremovetargetbyid', 'ruleremovetargetbytag', 'ruleengine']);

interface Built {
  rule: Rule;
  /** The next SecRule continues this chain. */
  chained: boolean;
  /** Its operator's result depends on the value alone: a value's memo can keep it. */
  pure: boolean;
}

function buildRule(d: Directive, defaultPhase: number, dataDir: string, chains: TransformChains): Built {
  const isAction = d.name === 'SecAction';
  const [variables, operatorText, actionText] = isAction ? ['', '@unconditionalMatch', d.args[0] ?? ''] : [d.args[0] ?? '', d.args[1] ?? '', d.args[2] ?? ''];
  const { targets, exclusions } = isAction ? { targets: [], exclusions: [] } : parseTargets(variables);
  let op = operatorText;
  const negated = op.startsWith('!');
  if (negated) op = op.slice(1);
  // A bare pattern is @rx.
  const m = /^@(\w+)\s*([\s\S]*)$/.exec(op);
  const operatorName = m?.[1] ?? 'rx';
  const operatorArg = m === null ? op : (m[2] ?? '');
  let operator: Operator;
  try {
    operator = compileOperator(operatorName, operatorArg, dataDir);
  } catch (e) {
    if (e instanceof UnsupportedOperator) throw new UnsupportedRule(`operator ${e.message}`);
    throw new UnsupportedRule(`operator @${operatorName} (${(e as Error).message})`);
  }
  const rule: Rule = {
    id: 0,
    phase: defaultPhase,
    targets,
    exclusions,
    operatorName,
    operatorArg,
    operator,
    negated,
    transformNode: 0,
    literals: negated ? undefined : operatorLiterals(operatorName, operatorArg, dataDir),
    prefilterBit: -1,
    hitBit: -1,
    memoSlot: -1,
    multiMatch: false,
    capture: false,
    setvars: [],
    ctls: [],
    skipAfter: undefined,
    disruptive: undefined,
    log: true,
    msg: '',
    tags: [],
    chain: undefined,
  };
  let chained = false;
  const transformNames: string[] = [];
  for (const { name, arg = '' } of parseActions(actionText)) {
    switch (name.toLowerCase()) {
      case 'id':
        rule.id = Number(arg);
        break;
      case 'phase':
        rule.phase = arg === 'request' ? 2 : arg === 'response' ? 4 : arg === 'logging' ? 5 : Number(arg);
        break;
      case 't': {
        if (arg.toLowerCase() === 'none') {
          transformNames.length = 0;
          break;
        }
        if (!transformations.has(arg.toLowerCase())) throw new UnsupportedRule(`transformation t:${arg}`);
        transformNames.push(arg.toLowerCase());
        break;
      }
      case 'chain':
        chained = true;
        break;
      case 'setvar':
        if (onTx(arg)) rule.setvars.push(parseSetVar(arg));
        break;
      case 'ctl': {
        const eq = arg.indexOf('=');
        const ctlName = arg.slice(0, eq).toLowerCase();
        if (appliedCtls.has(ctlName)) rule.ctls.push({ name: ctlName, value: arg.slice(eq + 1) });
        break;
      }
      case 'skipafter':
        rule.skipAfter = arg;
        break;
      case 'capture':
        rule.capture = true;
        break;
      case 'multimatch':
        rule.multiMatch = true;
        break;
      case 'deny':
      case 'drop':
        rule.disruptive = 'deny';
        break;
      case 'block':
      case 'pass':
      case 'allow':
        rule.disruptive = name.toLowerCase() as 'block' | 'pass' | 'allow';
        break;
      case 'nolog':
        rule.log = false;
        break;
      case 'msg':
        rule.msg = arg;
        break;
      case 'tag':
        rule.tags.push(arg);
        break;
      case 'expirevar':
      case 'initcol':
      case 'setsid':
      case 'setuid':
        // Persistent collections: the rules using them (IP reputation, DoS counting) read nothing here.
        break;
      default:
        // msg-like metadata (ver, severity, logdata, status, auditlog, ...): nothing to enforce.
        break;
    }
  }
  rule.transformNode = chains.node(transformNames);
  return { rule, chained, pure: !operatorArg.includes('%{') && !rule.multiMatch };
}

/** The request rules of every `REQUEST-*.conf` in `dir`, in file name order, as ModSecurity includes them. */
export function loadRuleSet(dir: string, tuning: RuleSetTuning = tuned): RuleSet {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('REQUEST-') && f.endsWith('.conf'))
    .sort();
  const phases = new Map<number, (Rule | Marker)[]>([
    [1, []],
    [2, []],
  ]);
  const skipped: { id: number; reason: string }[] = [];
  const chains = new TransformChains();
  let ruleCount = 0;
  let memoSlots = 0;
  for (const file of files) {
    const directives = parseSecLang(fs.readFileSync(path.join(dir, file), 'latin1'), file);
    let head: Rule | undefined;
    let tail: Rule | undefined;
    let broken: string | undefined;
    let chainOpen = false;
    for (const d of directives) {
      if (d.name === 'SecMarker') {
        const marker = { marker: (d.args[0] ?? '').replace(/^'|'$/g, '') };
        for (const list of phases.values()) list.push(marker);
        continue;
      }
      if (d.name !== 'SecRule' && d.name !== 'SecAction') continue;
      let built: Built | undefined;
      try {
        built = buildRule(d, head !== undefined && chainOpen ? head.phase : 2, dir, chains);
        if (built.pure) built.rule.memoSlot = memoSlots++;
      } catch (e) {
        if (!(e instanceof UnsupportedRule)) throw e;
        broken ??= e.message;
      }
      if (!chainOpen) {
        head = built?.rule;
        tail = head;
        if (built === undefined) {
          const id = /\bid:(\d+)/.exec(d.args[d.name === 'SecAction' ? 0 : 2] ?? '')?.[1];
          head = { id: Number(id ?? 0) } as Rule;
        }
      } else if (tail !== undefined && built !== undefined) {
        built.rule.id = head?.id ?? 0;
        tail.chain = built.rule;
        tail = built.rule;
      }
      chainOpen = built?.chained ?? /\bchain\b/.test(d.args[2] ?? '');
      if (chainOpen || head === undefined) continue;
      if (broken !== undefined) skipped.push({ id: head.id, reason: broken });
      else if (head.phase === 1 || head.phase === 2) {
        phases.get(head.phase)?.push(head);
        ruleCount++;
      }
      broken = undefined;
      head = undefined;
    }
  }
  const heads = [...phases.values()].flat().filter((item): item is Rule => !('marker' in item));
  return {
    phases,
    skipped,
    ruleCount,
    files,
    chains,
    prefilter: new Prefilter(heads, chains),
    hits: new RuleHits(tuning.hits ? heads : []),
    memos: {
      stable: new ValueMemos(tuning.memoCapacity, tuning.memoMaxLength),
      volatile: new ValueMemos(tuning.memoCapacity, tuning.memoMaxLength),
      heads: new RepeatStore(tuning.headCapacity, tuning.headMaxLength, newHeadView),
      // An address is at most 45 characters (IPv6 with an embedded IPv4).
      addresses: new ValueMemos(tuning.addressCapacity, 45),
    },
    planned: tuning.plan,
  };
}
