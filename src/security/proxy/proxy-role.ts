// The proxy role: this thread serves, and `workers - 1` threads serve beside it on the same ports.
// This thread alone reads the store: at start, for every resource change (the API of this process
// publishes them; other nodes' arrive by PostgreSQL NOTIFY), in full whenever a zone appears or
// goes (which hosts a resource holds may move with it), and in full when a periodic look at the
// store finds it changed behind our back (another process on the same SQLite file, a lost NOTIFY).
// A change is acknowledged once every thread serves it: the API answers a write after that.
import { hkdfSync, randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { sql } from 'kysely';
import { Counter } from 'prom-client';
import type { GeoData } from '../../geo/geoip.ts';
import type { Config, LogLevel } from '../../config.ts';
import type { Sealer } from '../../crypto/sealed.ts';
import { noticeHandler, notifyChannel, resourceChangeFromNotice, resourceChannel, zoneChangeFromNotice, type ChangeFeed, type ResourceChange, type ZoneChange } from '../../events/change-feed.ts';
import type { Metrics } from '../../metrics.ts';
import { sharedCaps } from '../../net/connection-admission.ts';
import type { Store } from '../../store/database.ts';
import { listenTo } from '../../store/pg-listener.ts';
import { fdDestination, streamDestination } from './access-log.ts';
import type { ResourcePolicy } from './policy.ts';
import { loadPolicies } from './policy-loader.ts';
import { startProxyServer, type PolicyUpdate } from './proxy-server.ts';
import { requestsMetric, startRequestStats, type ThreadCounters } from './request-stats.ts';
import type { AccessLogTarget, FromProxyWorker, ProxyWorkerData, ProxyWorkerRequest } from './worker-main.ts';
import type { ProxySettings } from './thread-deps.ts';
import { acmeDirectoryOf } from './tls/acme-account.ts';
import { createAcmeManager, type AcmeManager } from './tls/acme-manager.ts';
import { within } from '../../within.ts';
import { serving, ThreadSlot } from '../../thread-slot.ts';
import { spawnWorkerThread, type WorkerThread } from '../../worker-thread.ts';

/** A proxy worker thread as this role drives it (worker-main.ts). */
type ProxyThread = WorkerThread<ProxyWorkerRequest, FromProxyWorker>;

/** How long a write waits for every proxy thread before the API answers anyway. */
const applyWaitMs = 10_000;
/** How often the store is looked at for changes nobody told us of. */
const resyncEveryMs = 5_000;

export interface ProxyRoleOptions {
  store: Store;
  sealer: Sealer;
  secretKey: Uint8Array;
  config: Config;
  /** The process's GeoIP data, for every proxy thread. */
  geo: GeoData;
  logger: Logger;
  metrics: Metrics;
  logLevel: LogLevel;
  output: Writable;
  /** The API of this process publishes its changes here; undefined: no API in this process. */
  resourceChanges: ChangeFeed<ResourceChange> | undefined;
  zoneChanges: ChangeFeed | undefined;
}

export interface ProxyRole {
  httpPort: number;
  httpsPort: number;
  stop(): Promise<void>;
}

/** The test_cookie secret: the same on every node that shares the service's secret key. */
function cookieSecretOf(secretKey: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, new Uint8Array(0), 'edgeplane proxy test_cookie', 32));
}

export function proxySettings(config: Config): ProxySettings {
  return {
    allowPrivateOrigins: config.proxyAllowPrivateOrigins,
    trusted: config.proxyTrusted,
    globalWhitelist: config.proxyGlobalWhitelist,
    publicHttpsPort: config.proxyHttpsListen.port === 8443 || config.proxyHttpsListen.port === 0 ? 443 : config.proxyHttpsListen.port,
    botExemptPaths: config.proxyBotExemptPaths,
    botClearanceSeconds: config.proxyBotClearanceSeconds,
    shedDelayMs: config.proxyAttackShedDelayMs,
    attackLimits: { clientRate: config.proxyAttackClientRate, clientBurst: config.proxyAttackClientBurst, ruleShare: config.proxyAttackRulePercent / 100 },
    proxyProtocol: { http: config.proxyHttpProxyProtocol, https: config.proxyHttpsProxyProtocol },
    // Counted once for both listeners and every thread: each call makes fresh counters.
    connectionCaps: sharedCaps({ maxClients: config.proxyMaxConnections, maxPerClient: config.proxyMaxConnectionsPerClient }),
    limits: {
      headerTimeoutMs: config.proxyHeaderTimeoutMs,
      idleTimeoutMs: config.proxyIdleTimeoutMs,
      bodyTimeoutMs: config.proxyBodyTimeoutMs,
      bodyMinRate: config.proxyBodyMinRate,
      maxHeaderSize: config.proxyMaxHeaderSize,
      maxBodySize: config.proxyMaxBodySize,
    },
    redisUrl: config.redisUrl,
    waf: { crsDir: config.wafCrsDir, mode: config.wafMode, paranoia: config.wafParanoia, threshold: config.wafAnomalyThreshold, bodyLimit: config.wafBodyLimit, budgetMs: config.wafBudgetMs },
    attack: {
      minRate: config.proxyAttackMinRate,
      rateFactor: config.proxyAttackRateFactor,
      errorRatio: config.proxyAttackErrorPercent / 100,
      holdMs: config.proxyAttackHoldSeconds * 1000,
      shedShare: config.proxyAttackShedPercent / 100,
    },
    origins: {
      maxFails: config.proxyOriginMaxFails,
      failTimeoutMs: config.proxyOriginFailTimeoutSeconds * 1000,
      connectTimeoutMs: config.proxyOriginConnectTimeoutSeconds * 1000,
      headersTimeoutMs: config.proxyOriginReadTimeoutSeconds * 1000,
      bodyTimeoutMs: config.proxyOriginReadTimeoutSeconds * 1000,
    },
  };
}

/** What says the store changed: resources' count and last update, and the zones' version. */
async function storeFingerprint(store: Store): Promise<string> {
  const { rows } = await sql<{ n: number; last: string | null; v: number | null }>`
    select count(*) as n, max(updated_at) as last, (select version from zone_version where id = 1) as v from resources`.execute(store.db);
  const row = rows[0];
  return `${String(row?.n)} ${String(row?.last)} ${String(row?.v)}`;
}

export async function startProxyRole(options: ProxyRoleOptions): Promise<ProxyRole> {
  const { store, sealer, config, logger } = options;
  const settings = proxySettings(config);
  const cookieSecret = cookieSecretOf(options.secretKey);
  // This process's threads resume each other's TLS sessions; a restart starts afresh (forward secrecy).
  const ticketKeys = randomBytes(48);
  let fingerprint = await storeFingerprint(store);
  const initial = await loadPolicies(store.db, sealer);
  // What every thread serves, by id, as JSON: a full reload sends only what differs.
  const held = new Map(initial.map((p) => [p.id, JSON.stringify(p)]));
  // The process's standard output is written directly (through libuv's thread pool) rather than
  // through process.stdout, whose writes to a pipe block on Linux; a test's output stream as it is.
  const accessLog: AccessLogTarget = !config.proxyAccessLog ? 'off' : options.output === process.stdout ? 'stdout' : 'thread-stdout';
  const local = await startProxyServer({
    httpListen: config.proxyHttpListen,
    httpsListen: config.proxyHttpsListen,
    settings,
    cookieSecret,
    ticketKeys,
    geo: options.geo,
    policies: initial,
    logger,
    metrics: options.metrics.registry,
    accessLogTo: accessLog === 'off' ? undefined : accessLog === 'stdout' ? fdDestination(1) : streamDestination(options.output),
  });
  const slots: ThreadSlot<ProxyThread>[] = [];
  const stops: (() => Promise<void>)[] = [() => local.stop()];
  const stop = async () => {
    for (const s of stops.reverse()) await s();
  };
  try {
    const onFailure = (e: unknown) => logger.error({ err: e }, 'proxy worker failed');
    const restarts = new Counter({
      name: 'edgeplane_proxy_worker_restarts_total',
      help: 'Proxy worker threads started again after one ended by itself (docs/proxy.md, "Threads and changes")',
      registers: [options.metrics.registry],
    });
    // What the first threads start with; kept no longer than that (deleted resources' keys with it).
    let startPolicies: ResourcePolicy[] | undefined = initial;
    for (let i = 1; i < config.proxyWorkers; i++) {
      // A replacement starts with the resources read from the store, is given them again in the
      // queue of changes (below), and joins the threads changes go to there: none passes it by.
      const slot = new ThreadSlot<ProxyThread>({
        name: `proxy worker ${String(i)}`,
        start: async (onExit, replacement) => {
          const policies = (replacement ? undefined : startPolicies) ?? (await loadPolicies(store.db, sealer));
          const data: ProxyWorkerData = {
            httpListen: { host: config.proxyHttpListen.host, port: local.httpPort },
            httpsListen: { host: config.proxyHttpsListen.host, port: local.httpsPort },
            settings,
            cookieSecret,
            ticketKeys,
            geo: options.geo,
            policies,
            logLevel: options.logLevel,
            accessLog,
            exitOn: config.testProxyExitOn,
          };
          return spawnWorkerThread<ProxyWorkerRequest, FromProxyWorker>({ name: 'proxy worker', entry: new URL('./worker-main.ts', import.meta.url), data, output: options.output, onFailure, onExit });
        },
        logger,
        replaced: (thread, join) =>
          serialised(async () => {
            await thread.request({ kind: 'update', update: { policies: await loadPolicies(store.db, sealer), gone: [], full: true } });
            join();
          }),
        onRestart: () => restarts.inc(),
        heartbeat: config.testThreadHeartbeat,
      });
      await slot.begin();
      slots.push(slot);
      stops.push(() => slot.stop());
    }
    startPolicies = undefined;
    const threads = () => serving(slots);
    /**
     * Each worker thread's metrics, by slot (a thread's counters keep their place while another
     * restarts); undefined for a thread that did not answer, or one starting again.
     */
    const workerMetrics = () =>
      Promise.all(
        slots.map(async (slot) => {
          const reply = await slot.current?.request({ kind: 'metrics' });
          return reply?.kind === 'done' ? reply.metrics : undefined;
        }),
      );
    options.metrics.addSource(async () => (await workerMetrics()).filter((m) => m !== undefined).map((m) => m as never));
    // Each thread's request counters, this one's first: a worker that does not answer (gone, or
    // starting again) counts nothing this time, and its replacement counts from 0.
    const counters = async (): Promise<(ThreadCounters | undefined)[]> => {
      const own = await options.metrics.registry.getSingleMetric(requestsMetric)?.get();
      return [own === undefined ? [] : [own], ...(await workerMetrics()).map((m) => m as ThreadCounters | undefined)];
    };
    const requestStats = await startRequestStats({ db: store.db, collect: counters, logger, flushSeconds: config.statsFlushSeconds, retentionDays: config.statsRetentionDays });
    stops.push(() => requestStats.stop());

    const broadcast = async (update: PolicyUpdate) => {
      const applied = Promise.all([local.apply(update), ...threads().map((t) => t.request({ kind: 'update', update }))]);
      if ((await within(applied, applyWaitMs)) === undefined) logger.warn('the API answers before every proxy thread serves a resource change: applying it took over 10 s');
    };
    // Changes are applied one at a time, in the order heard: a reload never overtakes a later one.
    let queue = Promise.resolve();
    const serialised = (work: () => Promise<void>) => {
      const done = queue.then(work).catch((e: unknown) => logger.error({ err: e }, 'the proxy could not apply a change; the periodic check retries'));
      queue = done;
      return done;
    };
    /** Of these policies just read, those that differ from what the threads hold; `held` takes them. */
    const takeChanged = (policies: ResourcePolicy[]) =>
      policies.filter((p) => {
        const json = JSON.stringify(p);
        if (held.get(p.id) === json) return false;
        held.set(p.id, json);
        return true;
      });
    // A change heard twice (from this process's API and by NOTIFY) is applied once.
    const reloadOne = (change: ResourceChange) =>
      serialised(async () => {
        const loaded = await loadPolicies(store.db, sealer, [change.resourceId]);
        const policies = takeChanged(loaded);
        const gone = loaded.length === 0 && held.delete(change.resourceId) ? [change.resourceId] : [];
        if (policies.length > 0 || gone.length > 0) await broadcast({ policies, gone, full: false });
      });
    const reloadAll = () =>
      serialised(async () => {
        fingerprint = await storeFingerprint(store);
        const all = await loadPolicies(store.db, sealer);
        const changed = takeChanged(all);
        const present = new Set(all.map((p) => p.id));
        const gone = [...held.keys()].filter((id) => !present.has(id));
        for (const id of gone) held.delete(id);
        if (changed.length > 0 || gone.length > 0) await broadcast({ policies: changed, gone, full: false });
      });
    // Managed certificates: written like an API write and published the same way.
    let acme: AcmeManager | undefined;
    if (config.acme) {
      acme = createAcmeManager({
        store,
        sealer,
        logger,
        directory: acmeDirectoryOf(config),
        loadPolicies: (ids) => loadPolicies(store.db, sealer, ids),
        publish: (change) => options.resourceChanges?.publish(change) ?? reloadOne(change),
        // Other nodes serve a posted challenge once the NOTIFY reached them.
        timing: { settleMs: store.engine === 'postgres' ? 500 : 0 },
      });
      const manager = acme;
      stops.push(() => manager.stop());
    }
    const resourceChanged = (change: ResourceChange) => {
      acme?.wake();
      return reloadOne(change);
    };
    const zoneChanged = async (change: ZoneChange) => {
      // Records do not move host ownership; a zone appearing or going may.
      if (change.names === undefined) await reloadAll();
    };
    const unsubscribe = [options.resourceChanges?.subscribe(resourceChanged), options.zoneChanges?.subscribe(zoneChanged)];
    stops.push(async () => {
      for (const u of unsubscribe) u?.();
    });
    // Other nodes' changes (and, again, this process's own: applied once, above).
    if (store.engine === 'postgres' && config.databaseUrl !== undefined) {
      const listener = await listenTo(
        config.databaseUrl,
        {
          [resourceChannel]: noticeHandler('resource change', resourceChangeFromNotice, (change) => void resourceChanged(change), logger),
          [notifyChannel]: noticeHandler('zone change', zoneChangeFromNotice, (change) => void zoneChanged(change), logger),
        },
        logger,
      );
      stops.push(() => listener.stop());
    }
    const timer = setInterval(() => {
      void serialised(async () => {
        if ((await storeFingerprint(store)) !== fingerprint) void reloadAll();
      });
    }, resyncEveryMs);
    timer.unref();
    stops.push(() => {
      clearInterval(timer);
      return queue;
    });
    acme?.start();
  } catch (e) {
    await stop();
    throw e;
  }
  const at = (address: { host: string }, port: number) => `${address.host}:${String(port)}`;
  logger.info(
    { http: at(config.proxyHttpListen, local.httpPort), https: at(config.proxyHttpsListen, local.httpsPort), workers: config.proxyWorkers, resources: held.size },
    `proxy listening on http ${at(config.proxyHttpListen, local.httpPort)} and https ${at(config.proxyHttpsListen, local.httpsPort)} with ${String(config.proxyWorkers)} thread(s)`,
  );
  return { httpPort: local.httpPort, httpsPort: local.httpsPort, stop };
}
