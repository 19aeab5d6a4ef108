// One proxy thread: its host table, its two listeners and what its resources share (thread-deps.ts).
// The role's main thread runs one and each worker thread another (proxy-role.ts).
import { createHash } from 'node:crypto';
import type { Server } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ListenAddress } from '../../config.ts';
import { geoLookup, type GeoData } from '../../geo/geoip.ts';
import { HostTable } from './host-table.ts';
import { AccessLog, type AccessLogDestination } from './access-log.ts';
import { RepeatCounter } from './mitigation/repeat-counter.ts';
import { Tarpit } from './mitigation/tarpit.ts';
import { ConnectionGuard, connectionClient } from './connection-guard.ts';
import { RequestTurns } from './http1/request-turns.ts';
import { http1Serving, httpListener, httpsListener, listenShared } from './listeners.ts';
import type { ResourcePolicy } from './policy.ts';
import { proxyMetrics, type ListenerName } from './proxy-metrics.ts';
import { localCounters } from './rate/local-counters.ts';
import type { RateCounters } from './rate/rate-counters.ts';
import { requestPipeline, upgradePipeline } from './request-pipeline.ts';
import { closeIdleSessions } from './server-limits.ts';
import type { ProxySettings, ThreadDeps } from './thread-deps.ts';
import type { Waf } from './waf/waf.ts';
import type * as wafCode from './waf/waf.ts';

export interface ProxyThreadOptions {
  httpListen: ListenAddress;
  httpsListen: ListenAddress;
  settings: ProxySettings;
  cookieSecret: Buffer;
  /** TLS session ticket keys (48 bytes), the same in every thread of the process. */
  ticketKeys: Buffer;
  /** The process's GeoIP data (loaded once, shared by every thread). */
  geo: GeoData;
  /** The resources at start. */
  policies: ResourcePolicy[];
  logger: Logger;
  metrics: Registry;
  /** Where the access log goes; undefined: no access log. */
  accessLogTo?: AccessLogDestination | undefined;
}

/** Bytes of access log lines a thread holds for a destination that does not keep up, before it drops lines. */
const accessLogPending = 4 * 1024 * 1024;
/** Shed requests held at once per thread (each on a connection the caps count); past it, answered at once. */
const tarpitCapacity = 10_000;

/** What one thread's host table is told: these policies replace theirs, `gone` go; `full`: nothing else stays. */
export interface PolicyUpdate {
  policies: ResourcePolicy[];
  gone: number[];
  full: boolean;
}

export interface ProxyServer {
  httpPort: number;
  httpsPort: number;
  apply(update: PolicyUpdate): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Each thread counts alone, or through Redis with a connection of its own (and its own counters while
 * Redis is away). Bucket keys start with a tag of this deployment, derived from its secret (every node
 * of one deployment has the same, and no other has): two deployments sharing a Redis, whose resource
 * ids overlap, never share buckets.
 */
async function countersOf(settings: ProxySettings, cookieSecret: Buffer, logger: Logger): Promise<RateCounters> {
  if (settings.redisUrl === undefined) return localCounters();
  const deployment = createHash('sha256').update('edgeplane rate counters').update(cookieSecret).digest('hex').slice(0, 16);
  // Imported only with Redis configured: ioredis is over 1 MB of every proxy thread's heap.
  const { redisCounters } = await import('./rate/redis-counters.ts');
  return redisCounters({ url: settings.redisUrl, prefix: `edgeplane:rate:${deployment}:`, fallback: localCounters(), logger });
}

/**
 * The thread's WAF: its code (over 1.5 MB of heap, with the regexp parser it checks the rules with)
 * imported when the first resource that turns it on arrives, and the Core Rule Set read when that
 * resource is compiled. A proxy without such resources holds neither.
 */
function wafOf(settings: ProxySettings, logger: Logger): Pick<ThreadDeps, 'waf' | 'loadWaf'> {
  let code: typeof wafCode | undefined;
  let waf: Waf | undefined;
  return {
    loadWaf: async () => {
      code ??= await import('./waf/waf.ts');
    },
    waf: () => {
      if (settings.waf === undefined) return undefined;
      // A resource compiled without the code would be served unprotected: it fails to compile instead.
      if (code === undefined) throw new Error('the WAF\'s code is not loaded');
      waf ??= new code.Waf(code.ruleSetOf(settings.waf.crsDir, logger), settings.waf, settings.limits);
      return waf;
    },
  };
}

export async function startProxyServer(options: ProxyThreadOptions): Promise<ProxyServer> {
  const deps: ThreadDeps = {
    geo: geoLookup(options.geo),
    counters: await countersOf(options.settings, options.cookieSecret, options.logger),
    cookieSecret: options.cookieSecret,
    settings: options.settings,
    metrics: proxyMetrics(options.metrics),
    logger: options.logger,
    ...wafOf(options.settings, options.logger),
    tarpit: new Tarpit(options.settings.shedDelayMs, tarpitCapacity),
    challengesServed: new RepeatCounter(),
  };
  const table = new HostTable(deps);
  deps.metrics.attackStates(() => table.attackStates());
  await table.apply(options.policies, [], true);
  const { limits } = options.settings;
  const accessLog = options.accessLogTo === undefined ? undefined : new AccessLog(options.accessLogTo, { maxPending: accessLogPending, dropped: (lines) => deps.metrics.accessLogDropped(lines) });
  // One for both listeners: the turns are the thread's event loop's.
  const turns = new RequestTurns();
  const serving = (listener: ListenerName, secure: boolean) =>
    http1Serving(
      {
        request: requestPipeline(table, deps, secure, accessLog),
        upgrade: upgradePipeline(table, deps, secure),
        clientError: (reason, status, socket) => {
          deps.metrics.clientError(listener, reason);
          // Answered by the engine itself (the head was refused or too slow): logged without what it could not read.
          if (status > 0) accessLog?.write({ resource: undefined, host: '', method: '', path: '', status, outcome: reason, client: connectionClient(socket), httpVersion: '1.1', secure, durationMs: 0 });
        },
        failed: (error, socket) => {
          deps.metrics.clientError(listener, 'internal_error');
          deps.logger.error({ err: error, listener, client: connectionClient(socket) }, 'the proxy failed on a connection (a defect): answered 500 and closed it');
        },
      },
      limits,
      turns,
    );
  const http1 = [serving('http', false), serving('https', true)] as const;
  const plain = httpListener(http1[0]);
  // h2 requests go through the same pipeline as HTTPS ones over HTTP/1.x.
  const secure = httpsListener(table, requestPipeline(table, deps, true, accessLog), http1[1], options.ticketKeys, limits);
  closeIdleSessions(secure, limits.idleTimeoutMs);
  // Every connection passes its listener's guard first (PROXY protocol, connection caps).
  const guard = (target: Server, listener: ListenerName) =>
    new ConnectionGuard(target, {
      proxyProtocol: options.settings.proxyProtocol[listener],
      headerTimeoutMs: limits.headerTimeoutMs,
      caps: options.settings.connectionCaps,
      events: deps.metrics.connections(listener),
    });
  const guards = [guard(plain, 'http'), guard(secure, 'https')] as const;
  const stop = async () => {
    await Promise.all(guards.map((g) => g.close()));
    for (const serving of http1) serving.stop();
    deps.tarpit.clear();
    await accessLog?.flushed();
    await table.close();
    await deps.counters.close();
  };
  try {
    const httpPort = await listenShared(guards[0].server, options.httpListen);
    const httpsPort = await listenShared(guards[1].server, options.httpsListen);
    return { httpPort, httpsPort, apply: (u) => table.apply(u.policies, u.gone, u.full), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
