// What a resource's steps need from their proxy thread, and the shape of a step's compiler. The
// thread's ThreadDeps (thread-deps.ts) holds all of it; steps ask for no more, so they can be built
// and tested alone.
import type { GeoLookup } from '../../../geo/geoip.ts';
import type { Step } from '../exchange.ts';
import type { ResourcePolicy } from '../policy.ts';
import type { RepeatCounter } from '../mitigation/repeat-counter.ts';
import type { RateCounters } from '../rate/rate-counters.ts';
import type { Waf } from '../waf/waf.ts';

export interface StepDeps {
  geo: GeoLookup;
  counters: RateCounters;
  /** Signs test_cookie cookies (and, derived from it, the bot challenge's): the same in every thread
   *  and node, so any of them accepts a cookie. */
  cookieSecret: Buffer;
  /** The bot challenges each client was served lately, over every resource of the thread (bot-challenge.ts). */
  challengesServed: RepeatCounter;
  /** The thread's WAF, the Core Rule Set read at the first call; undefined: the WAF is not configured. Throws when the rules cannot be read. */
  waf: () => Waf | undefined;
  settings: {
    /** EDGEPLANE_PROXY_GLOBAL_WHITELIST: networks passing every resource with service_global_whitelist 1. */
    globalWhitelist: readonly string[];
    /** The port clients reach the proxy's HTTPS on (443 behind a port mapping to 8443): redirects name it. */
    publicHttpsPort: number;
    /** EDGEPLANE_PROXY_BOT_EXEMPT_PATHS: path patterns (path-pattern.ts) the bot challenge lets through. */
    botExemptPaths: readonly string[];
    /** EDGEPLANE_PROXY_BOT_CLEARANCE: seconds a passed bot challenge's cookie is valid. */
    botClearanceSeconds: number;
    /** EDGEPLANE_PROXY_ATTACK_CLIENT_RATE/_BURST/_RULE_PERCENT: the limits while under attack. */
    attackLimits: AttackLimits;
  };
}

/** How the rate limits tighten while a resource is under attack (mitigation/attack-watch.ts decides when). */
export interface AttackLimits {
  /** Every client's requests a second to the resource; 0: no ceiling. */
  clientRate: number;
  /** What a client may send at once before `clientRate` applies. */
  clientBurst: number;
  /** The share of each rate rule's value (rate and burst) that still passes, 0–1. */
  ruleShare: number;
}

/** Compiles one feature of a policy into its step, or nothing when the policy does not use it, so
 *  an absent feature costs a request nothing. */
export type StepCompiler = (policy: ResourcePolicy, deps: StepDeps) => Step | undefined;
