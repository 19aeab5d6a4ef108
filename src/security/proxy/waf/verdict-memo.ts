// Verdicts of whole requests seen before. A client that polls an API, reloads a page or retries,
// a monitor, and above all a flood, sends the same request again and again: the same head (the key
// of its view, head-view.ts), the same target and the same body. When no rule of the plan reads
// what differs between two such requests (the client's address, the request id, the time spent),
// the rules can only come to the same verdict, so the verdicts are kept per plan by head view,
// target and body, and a request met again is answered by one lookup instead of its collections,
// its hit groups and the rules.
//
// Kept, like every memo of the WAF, from the second time a request comes, and bounded per plan
// (so per thread): a client sending ever new targets only evicts and pays what it would have
// paid. A verdict cut short by the inspection's budget depends on the time it took, and is never
// kept.
import type { Verdict } from './engine.ts';
import type { HeadView } from './head-view.ts';
import { templateOf } from './macro.ts';
import { RepeatStore } from './repeat-store.ts';
import { requestSpecific, type WafRequest } from './request-fields.ts';
import { planRules, type PlanItem } from './rule-plan.ts';
import type { Rule } from './rule-set.ts';
import type { TransformChains, TransformStep } from './transform-chains.ts';

/** A kept request's verdict: set once the request has been inspected. */
export interface VerdictSlot {
  verdict: Verdict | undefined;
}

/** Verdicts kept per plan (so per thread: plans are per rule set), and the longest target and body kept (together). */
const verdictCapacity = 4096;
const verdictKeyMaxLength = 1024;

/** What a plan's rules read of what differs between requests with the same head, target and body. */
interface RequestSpecificReads {
  /** Whether the plan's verdict is a function of the head, target, body and client address alone. */
  repeatable: boolean;
  /** The rules reading the client's address (CRS's exceptions for the server's own address), each operator free of macros. */
  addressRules: Rule[];
  /** The plan's verdicts, by head view, address, target and body. */
  verdicts: RepeatStore<VerdictSlot>;
  /** Whether one of the address rules may match an address, by address (at most `addressesKept`; emptied when full). */
  addressesMatched: Map<string, boolean>;
}

/** Addresses whose answer to the address rules is kept per plan: a client sends many requests, and the rules cost a microsecond a request. */
const addressesKept = 1024;

const addressCollection = 'REMOTE_ADDR';

/** What the plan's rules, chained ones included, read of the request's own variables (request-fields.ts): by a target, or a macro where it expands. Worked out once per plan. */
const readsOfPlans = new WeakMap<PlanItem[][], RequestSpecificReads>();
function readsOf(plan: PlanItem[][]): RequestSpecificReads {
  let reads = readsOfPlans.get(plan);
  if (reads !== undefined) return reads;
  reads = { repeatable: true, addressRules: [], addressesMatched: new Map(), verdicts: new RepeatStore(verdictCapacity, verdictKeyMaxLength + 80, () => ({ verdict: undefined })) };
  const inMacros = (text: string): boolean => templateOf(text)?.refs.some((ref) => requestSpecific.has(ref.collection)) ?? false;
  for (const head of planRules(plan)) {
    for (let r: Rule | undefined = head; r !== undefined; r = r.chain) {
      if (inMacros(r.operatorArg) || r.setvars.some((v) => inMacros(v.name) || inMacros(v.value)) || r.ctls.some((c) => inMacros(c.value))) reads.repeatable = false;
      for (const target of r.targets) {
        if (!requestSpecific.has(target.collection) || target.count) continue;
        // The address through an operator of its own: whether it matches is a function of the address alone.
        if (target.collection === addressCollection && !r.operatorArg.includes('%{')) reads.addressRules.push(r);
        else reads.repeatable = false;
      }
    }
  }
  readsOfPlans.set(plan, reads);
  return reads;
}

/**
 * Whether one of the rules reading the client's address may match it, through any step of its
 * transformations: a rule not matching a value leaves nothing of it behind (no match, no capture,
 * no action), so an address no such rule matches cannot change the verdict.
 */
function addressMayMatch(rules: readonly Rule[], address: string, chains: TransformChains): boolean {
  for (const rule of rules) {
    let value = address;
    for (const node of chains.path(rule.transformNode)) {
      if (node !== 0) value = (chains.steps[node] as TransformStep).apply(value);
      if ((rule.operator(value, noExpansion) !== undefined) !== rule.negated) return true;
    }
  }
  return false;
}

/** addressMayMatch, kept per address. */
function addressMatched(reads: RequestSpecificReads, address: string, chains: TransformChains): boolean {
  let matched = reads.addressesMatched.get(address);
  if (matched === undefined) {
    matched = addressMayMatch(reads.addressRules, address, chains);
    if (reads.addressesMatched.size >= addressesKept) reads.addressesMatched.clear();
    reads.addressesMatched.set(address, matched);
  }
  return matched;
}

/** The expansion of an operator without macros: never called. */
const noExpansion = (text: string): string => text;

/**
 * The slot of the request's verdict (its head's view, target and body): holding the verdict when
 * the request was inspected before, empty when it is to be kept once inspected; undefined when it
 * is not kept (seen for the first time, too long, or a plan reading the request's own variables
 * other than the address through a fixed operator). The address is part of the key only
 * when one of the rules reading it may match it.
 */
export function verdictSlot(view: HeadView, plan: PlanItem[][], req: WafRequest, chains: TransformChains): VerdictSlot | undefined {
  const reads = readsOf(plan);
  if (req.url.length + req.body.length > verdictKeyMaxLength || !reads.repeatable) return undefined;
  // The view's id first, then the body's length (a target and a body cannot then read as another
  // target and body), and before both the address when a rule may match it (`@` starts no number).
  const address = reads.addressRules.length > 0 && addressMatched(reads, req.client, chains) ? `@${req.client}\n` : '';
  return reads.verdicts.of(`${address}${String(view.id)} ${String(req.body.length)} ${req.url}${req.body.length === 0 ? '' : req.body.toString('latin1')}`);
}
