// What a resource's steps need from their proxy thread, and the shape of a step's compiler. The
// thread's ThreadDeps (thread-deps.ts) holds all of it; steps ask for no more, so they can be built
// and tested alone.
import type { GeoLookup } from '../../../geo/geoip.ts';
import type { Step } from '../exchange.ts';
import type { ResourcePolicy } from '../policy.ts';
import type { RateCounters } from '../rate/rate-counters.ts';
import type { Waf } from '../waf/waf.ts';

export interface StepDeps {
  geo: GeoLookup;
  counters: RateCounters;
  /** Signs test_cookie cookies (and, derived from it, the bot challenge's): the same in every thread
   *  and node, so any of them accepts a cookie. */
  cookieSecret: Buffer;
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
  };
}

/** Compiles one feature of a policy into its step, or nothing when the policy does not use it, so
 *  an absent feature costs a request nothing. */
export type StepCompiler = (policy: ResourcePolicy, deps: StepDeps) => Step | undefined;
