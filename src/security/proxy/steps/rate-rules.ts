// rate_limier_rules: each rule with a value above 0 allows `value` requests a second per client (an
// IPv4 address, an IPv6 /64) on the requests it matches, with a burst of `value` (GCRA, as nginx's
// `limit_req rate=value burst=value nodelay`): `value` requests at once pass, the next is refused
// until 1/value s has passed. Every matching rule counts the request in its own bucket; refused by
// any, it is answered 429 with Retry-After (whole seconds, at least 1). Buckets are keyed by
// resource id, rule index and client, so no two resources or rules ever share one.
//
// While the resource is under attack (mitigation/attack-watch.ts) the limits tighten
// (`tightenedRateRules`): each rule allows `ruleShare` of its value, counted in the same buckets (a
// client's spent budget carries over), and every client gets a ceiling of `clientRate` a second
// with a burst of `clientBurst` on all of the resource's requests, rules or not.
import type { Answer, Step, StepResult } from '../exchange.ts';
import type { ResourcePolicy } from '../policy.ts';
import { sharedAnswer } from './answers.ts';
import { clientKeyOf } from './parsed-client.ts';
import { normalizedPath } from './path-pattern.ts';
import { compileRuleMatch, type RuleMatcher } from './rule-match.ts';
import type { StepCompiler, StepDeps } from './step-deps.ts';

interface CompiledRule {
  matches: RuleMatcher;
  perSecond: number;
  burst: number;
  /** `resource:rule:`, the client key follows. */
  keyPrefix: string;
}

const tooMany = (seconds: number): Answer =>
  sharedAnswer({ status: 429, reason: 'rate_limit', headers: { 'retry-after': String(seconds) }, body: 'Too Many Requests\n' });

/** With burst = rate a wait is at most a second; answers for longer waits (other callers) are built. */
const commonAnswers = Array.from({ length: 61 }, (_, seconds) => tooMany(seconds));

function limited(wait: number): StepResult {
  if (wait <= 0) return undefined;
  const seconds = Math.max(1, Math.ceil(wait));
  return commonAnswers[seconds] ?? tooMany(seconds);
}

const largest = (waits: number[], start: number) => waits.reduce((most, wait) => Math.max(most, wait), start);

/** The resource's rules with a value above 0, each allowing `share` of its value. */
function compileRules(policy: ResourcePolicy, share: number): CompiledRule[] {
  const rules: CompiledRule[] = [];
  for (const [index, rule] of policy.rules.entries()) {
    if (rule.value <= 0) continue;
    const allowed = rule.value * share;
    rules.push({ matches: compileRuleMatch(rule), perSecond: allowed, burst: Math.max(1, Math.floor(allowed)), keyPrefix: `${policy.id}:${index}:` });
  }
  return rules;
}

const everyRequest: RuleMatcher = () => true;

export const rateRulesStep: StepCompiler = (policy, deps) => rateStep(compileRules(policy, 1), deps);

/** The rate limits of a resource under attack: its rules tightened, and a ceiling for every client. */
export const tightenedRateRules: StepCompiler = (policy, deps) => {
  const { clientRate, clientBurst, ruleShare } = deps.settings.attackLimits;
  const rules = compileRules(policy, ruleShare);
  if (clientRate > 0) rules.push({ matches: everyRequest, perSecond: clientRate, burst: clientBurst, keyPrefix: `${policy.id}:attack:` });
  return rateStep(rules, deps);
};

function rateStep(rules: CompiledRule[], deps: StepDeps): Step | undefined {
  if (rules.length === 0) return undefined;
  const { counters } = deps;
  // The bucket keys of the last client: the requests of a keep-alive connection reuse the same
  // strings, whose hashes V8 keeps, instead of building and hashing new ones.
  let lastClient: string | undefined;
  const keys: (string | undefined)[] = new Array<string | undefined>(rules.length);
  return (exchange) => {
    const path = normalizedPath(exchange.path);
    if (exchange.client !== lastClient) {
      lastClient = exchange.client;
      keys.fill(undefined);
    }
    let wait = 0;
    let pending: Promise<number>[] | undefined;
    for (let index = 0; index < rules.length; index++) {
      const rule = rules[index];
      if (rule === undefined || !rule.matches(exchange.method, path)) continue;
      let key = keys[index];
      if (key === undefined) key = keys[index] = rule.keyPrefix + clientKeyOf(exchange.client);
      const taken = counters.take(key, rule.perSecond, rule.burst);
      if (typeof taken === 'number') wait = Math.max(wait, taken);
      else (pending ??= []).push(taken);
    }
    if (pending === undefined) return limited(wait);
    return Promise.all(pending).then((waits) => limited(largest(waits, wait)));
  };
}
