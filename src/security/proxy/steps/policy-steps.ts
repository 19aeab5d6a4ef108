// A resource's policy compiled into the steps a request goes through (the pipeline runs guards, then
// rewrites, then forwards). Guards, in the order decisions.md gives: whitelist (passes: the rest
// of the guards are skipped) → blacklist → geo → methods → bot challenge → test_cookie → rate rules
// (a client that has not passed the bot challenge is not counted by the rate rules) → WAF (last: the
// cheap checks first, and what it holds of a body only for requests they let through). HSTS goes
// first: it only adds a header, and so the proxy's own refusals over HTTPS carry it too.
// Rewrites: the redirect to HTTPS, then www.X → X. Features a policy does not use add no step, but
// for the bot challenge's verify path, which every resource answers (automatic mitigation may
// challenge any of them: bot-challenge.ts).
import type { Step } from '../exchange.ts';
import type { ResourcePolicy } from '../policy.ts';
import { blacklistStep } from './blacklist.ts';
import { botChallenge, botChallengeStep, isBotProtected } from './bot-challenge.ts';
import { geoStep } from './geo.ts';
import { hstsStep } from './hsts.ts';
import { httpsRedirectStep } from './https-redirect.ts';
import { methodsStep } from './methods.ts';
import { rateRulesStep, tightenedRateRules } from './rate-rules.ts';
import type { StepCompiler, StepDeps } from './step-deps.ts';
import { testCookieStep } from './test-cookie.ts';
import { wafStep } from './waf.ts';
import { whitelistStep } from './whitelist.ts';
import { wwwRedirectStep } from './www-redirect.ts';

const guardCompilers: StepCompiler[] = [hstsStep, whitelistStep, blacklistStep, geoStep, methodsStep, botChallengeStep, testCookieStep, rateRulesStep, wafStep];
const rewriteCompilers: StepCompiler[] = [httpsRedirectStep, wwwRedirectStep];

const compile = (compilers: StepCompiler[], policy: ResourcePolicy, deps: StepDeps): Step[] =>
  compilers.map((compiler) => compiler(policy, deps)).filter((step) => step !== undefined);

/** A guard's variant under attack, given the calm one (which it may reuse). */
type UnderAttackCompiler = (policy: ResourcePolicy, deps: StepDeps, calm: Step | undefined) => Step | undefined;

/** The guards that differ while a resource is under attack: the bot challenge whatever the switch says, tighter rate limits. */
const underAttackVariants = new Map<StepCompiler, UnderAttackCompiler>([
  [botChallengeStep, (policy, deps, calm) => (isBotProtected(policy) ? calm : botChallenge(policy, deps))],
  [rateRulesStep, tightenedRateRules],
]);

/** A resource's steps, and its guards while it is under attack. */
export interface CompiledSteps {
  guards: Step[];
  rewrites: Step[];
  /** The same guard steps, with the bot challenge on whatever service_botprotect says and the rate limits tightened (mitigation/attack-watch.ts). */
  guardsUnderAttack: Step[];
}

/** The steps of a calm resource. Throws when an access list holds an entry that is not an address or CIDR (the API never stores one). */
export function policySteps(policy: ResourcePolicy, deps: StepDeps): { guards: Step[]; rewrites: Step[] } {
  const { guards, rewrites } = compiledSteps(policy, deps);
  return { guards, rewrites };
}

/** Every step compiled once: the under-attack guards share the others' but for their own variants (a blacklist's tables are built once). */
export function compiledSteps(policy: ResourcePolicy, deps: StepDeps): CompiledSteps {
  const guards: Step[] = [];
  const guardsUnderAttack: Step[] = [];
  for (const compiler of guardCompilers) {
    const step = compiler(policy, deps);
    if (step !== undefined) guards.push(step);
    const variant = underAttackVariants.get(compiler);
    const underAttack = variant === undefined ? step : variant(policy, deps, step);
    if (underAttack !== undefined) guardsUnderAttack.push(underAttack);
  }
  return { guards, rewrites: compile(rewriteCompilers, policy, deps), guardsUnderAttack };
}
