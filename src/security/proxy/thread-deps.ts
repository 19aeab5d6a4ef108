// What every proxy thread holds once and hands to the resources it compiles: the GeoIP data, the
// rate counters, the test_cookie secret, the proxy's settings, its metrics and log.
import type { Logger } from 'pino';
import type { GeoLookup } from '../../geo/geoip.ts';
import type { SharedCaps } from '../../net/connection-admission.ts';
import type { AttackLimits } from './steps/step-deps.ts';
import type { AttackOptions } from './mitigation/attack-watch.ts';
import type { RepeatCounter } from './mitigation/repeat-counter.ts';
import type { Tarpit } from './mitigation/tarpit.ts';
import type { OriginOptions } from './origins/origin-set.ts';
import type { ProxyMetrics } from './proxy-metrics.ts';
import type { RateCounters } from './rate/rate-counters.ts';
import type { ProxyLimits } from './server-limits.ts';
import type { Waf, WafOptions } from './waf/waf.ts';

/** The proxy's configuration as its threads need it (structured-cloneable: it goes to worker threads). */
export interface ProxySettings {
  allowPrivateOrigins: boolean;
  /** Load balancers whose X-Forwarded-For is believed. */
  trusted: string[];
  /** Passes every check of resources with service_global_whitelist 1. */
  globalWhitelist: string[];
  /** The HTTPS port clients use, for redirects to HTTPS (443 unless the proxy is reached on another). */
  publicHttpsPort: number;
  /** Path patterns the bot challenge lets through (APIs); how long its clearance cookie is valid, in seconds. */
  botExemptPaths: string[];
  botClearanceSeconds: number;
  /** How the rate limits tighten while a resource is under attack (steps/rate-rules.ts). */
  attackLimits: AttackLimits;
  /** How long a shed request waits for its answer (mitigation/tarpit.ts); 0: answered at once. */
  shedDelayMs: number;
  /** Listeners whose connections start with a PROXY protocol header (connection-guard.ts). */
  proxyProtocol: { http: boolean; https: boolean };
  /** Caps on client connections, with the counters every proxy thread of the process shares. */
  connectionCaps: SharedCaps;
  /** Timeouts and sizes (server-limits.ts). */
  limits: ProxyLimits;
  /** Rate-limit counters shared through this Redis (rate/redis-counters.ts); undefined: this thread's own. */
  redisUrl: string | undefined;
  /** When a resource counts as under attack, and whom mitigation sheds (mitigation/attack-watch.ts). */
  attack?: Partial<AttackOptions>;
  /** Passive health and timeouts towards origins; what is left out takes its default (origins/origin-set.ts). */
  origins?: Partial<OriginOptions>;
  /** The WAF of resources with is_waf_enabled; undefined: none (their requests are not inspected). */
  waf?: WafOptions;
}

export interface ThreadDeps {
  geo: GeoLookup;
  counters: RateCounters;
  /** 32 bytes, the same in every thread and node: test_cookie cookies made by one are valid at all. */
  cookieSecret: Buffer;
  settings: ProxySettings;
  metrics: ProxyMetrics;
  logger: Logger;
  /** The bot challenges each client was served lately (steps/bot-challenge.ts). */
  challengesServed: RepeatCounter;
  /** The thread's WAF, made at the first call (waf/waf.ts); throws before `loadWaf` is done. */
  waf: () => Waf | undefined;
  /** Imports the WAF's code, once: awaited before a resource with the WAF on is compiled. */
  loadWaf: () => Promise<void>;
  /** Where the thread's shed requests wait (mitigation/tarpit.ts). */
  tarpit: Tarpit;
}
