// rate_limier_rules: each rule with a value above 0 allows `value` requests a second per client (an
// IPv4 address, an IPv6 /64) on the requests it matches, with a burst of `value` (GCRA, as nginx's
// `limit_req rate=value burst=value nodelay`): `value` requests at once pass, the next is refused
// until 1/value s has passed. Every matching rule counts the request in its own bucket; refused by
// any, it is answered 429 with Retry-After (whole seconds, at least 1). Buckets are keyed by
// resource id, rule index and client, so no two resources or rules ever share one.
import type { Answer, StepResult } from '../exchange.ts';
import { sharedAnswer } from './answers.ts';
import { clientKeyOf } from './parsed-client.ts';
import { normalizedPath } from './path-pattern.ts';
import { compileRuleMatch, type RuleMatcher } from './rule-match.ts';
import type { StepCompiler } from './step-deps.ts';

interface CompiledRule {
  matches: RuleMatcher;
  perSecond: number;
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

export const rateRulesStep: StepCompiler = (policy, deps) => {
  const rules: CompiledRule[] = [];
  for (const [index, rule] of policy.rules.entries()) {
    if (rule.value > 0) rules.push({ matches: compileRuleMatch(rule), perSecond: rule.value, keyPrefix: `${policy.id}:${index}:` });
  }
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
      const taken = counters.take(key, rule.perSecond, rule.perSecond);
      if (typeof taken === 'number') wait = Math.max(wait, taken);
      else (pending ??= []).push(taken);
    }
    if (pending === undefined) return limited(wait);
    return Promise.all(pending).then((waits) => limited(largest(waits, wait)));
  };
};
