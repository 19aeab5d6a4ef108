// The DNS role: this thread serves, and `count - 1` worker threads serve beside it on the same port
// (SO_REUSEPORT: the kernel spreads queries across them). Every change is applied by all of them
// before it is acknowledged, so the API answers once every thread serves the change; a thread that
// cannot apply it keeps trying on its own (zone-sync.ts), and the API waits for it at most 10 s, and
// not at all while it is late on an earlier change.
import type { Writable } from 'node:stream';
import { Counter, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { noticeHandler, noticeOrigin, notifyChannel, zoneChangeFromNotice, type ChangeFeed, type ZoneChange } from '../../events/change-feed.ts';
import { listenTo } from '../../store/pg-listener.ts';
import type { ListenAddress, LogLevel } from '../../config.ts';
import { startDnsServer, type DnsServerOptions } from './dns-server.ts';
import { udpBatchUnavailable } from './udp-batch.ts';
import { HealthChecker } from '../health/checker.ts';
import { alone, postgresCoordination } from '../health/coordination.ts';
import type { Thresholds } from '../health/hysteresis.ts';
import { notifySecondaries } from './notify.ts';
import { parseTsigKey } from './tsig.ts';
import type { FromWorker, WorkerData, WorkerRequest } from './worker-main.ts';
import type { SharedZone } from './load.ts';
import { within } from '../../within.ts';
import { serving, ThreadSlot, type Heartbeat } from '../../thread-slot.ts';
import { spawnWorkerThread, type WorkerThread } from '../../worker-thread.ts';

/** How long the API waits for every DNS thread to serve a change before it answers anyway. */
const applyWaitMs = 10_000;

export interface DnsRoleOptions extends Omit<DnsServerOptions, 'shared' | 'fed' | 'thread' | 'onZoneChange' | 'onCaughtUp'> {
  /** The API of this process publishes its changes here; undefined: no API in this process. */
  changes: ChangeFeed | undefined;
  workers: number;
  /** Health checks may probe loopback and private addresses. */
  healthcheckAllowPrivate: boolean;
  /** Failures and successes in a row that change a checked record's state. */
  healthcheckThresholds: Thresholds;
  /** How worker threads are pinged (thread-slot.ts); undefined: the default. Tests only (EDGEPLANE_TEST_THREAD_HEARTBEAT). */
  heartbeat: Heartbeat | undefined;
  /** Every check's interval instead of its `frequency`: tests only (EDGEPLANE_TEST_HEALTHCHECK_INTERVAL). */
  healthcheckTestIntervalMs: number | undefined;
  /** Secondaries to NOTIFY after each zone change. */
  notify: readonly ListenAddress[];
  dataDir: string;
  logLevel: LogLevel;
  /** Where the worker threads' log lines go: this thread's log's destination. */
  output: Writable;
}

export interface DnsRole {
  port: number;
  stop(): Promise<void>;
  /** The workers' DNS metrics, to add to this thread's. */
  workerMetrics(): Promise<MetricObjectWithValues<MetricValue<string>>[][]>;
}

type Thread = WorkerThread<WorkerRequest, FromWorker>;

export async function startDnsRole(options: DnsRoleOptions): Promise<DnsRole> {
  const shared = options.workers > 1;
  const unavailable = udpBatchUnavailable();
  if (options.settings.udpIo === 'auto' && unavailable !== undefined) options.logger.warn(`DNS uses Node dgram for UDP: ${unavailable}`);
  // One checker per process: its verdicts go to every thread. It starts once all threads serve, and
  // re-reads the checks after every zone change this thread applies that may concern them. On
  // PostgreSQL it shares the checks with the other nodes' checkers and hears their verdicts.
  const databaseUrl = options.settings.databaseUrl;
  const coordination = databaseUrl === undefined ? alone : postgresCoordination(databaseUrl, (change) => checker.heard(change), options.logger);
  const checker: HealthChecker = new HealthChecker({
    db: options.store.db,
    engine: options.store.engine,
    coordination,
    thresholds: options.healthcheckThresholds,
    intervalMs: options.healthcheckTestIntervalMs,
    allowPrivate: options.healthcheckAllowPrivate,
    logger: options.logger,
    metrics: options.metrics,
    report: async (report) => {
      local.setHealth(report);
      await Promise.all(serving(slots).map((t) => t.request({ kind: 'health', report })));
    },
  });
  let checking = false;
  const refreshChecks = () => {
    if (checking) checker.refresh().catch((e: unknown) => options.logger.error({ err: e }, 'reading the health checks failed'));
  };
  // Secondaries are told of a change once every thread serves it: their transfer may reach any.
  // With the API in this process that is known (below); a DNS-only process goes by this thread,
  // its workers following the store on their own.
  const notifyKey = options.settings.tsigKeys[0] === undefined ? undefined : parseTsigKey(options.settings.tsigKeys[0]);
  // The zone itself, and the catalog when the set of zones may have changed (a zone-wide change).
  const notifyOf = (change: ZoneChange, served: boolean) => {
    if (served && !change.deleted) notifySecondaries(change.zone, options.notify, notifyKey, options.logger);
    if (options.settings.catalog !== undefined && change.names === undefined) notifySecondaries(options.settings.catalog, options.notify, notifyKey, options.logger);
  };
  const onZoneChange = (change: ZoneChange, served: boolean) => {
    // Most RRset writes touch no health-checked RRset: no scan of the checks for those.
    if (checker.concerns(change)) refreshChecks();
    if (options.changes === undefined) notifyOf(change, served);
  };
  // A thread that caught up on a zone by itself may serve a version secondaries have not heard of.
  // (Without the API here, this thread's every change already went to onZoneChange.)
  const onCaughtUp = (thread: number) => (change: ZoneChange, served: boolean) => {
    if (thread > 0 || options.changes !== undefined) notifyOf(change, served);
  };
  const fed = options.changes !== undefined;
  const data = (thread: number, port: number, zones: SharedZone[]): WorkerData => ({
    dataDir: options.dataDir,
    host: options.listen.host,
    port,
    logLevel: options.logLevel,
    thread,
    fed,
    settings: options.settings,
    geo: options.geo,
    zones,
  });
  const onFailure = (e: unknown) => options.logger.error({ err: e }, 'DNS worker failed');
  const restarts = new Counter({
    name: 'edgeplane_dns_worker_restarts_total',
    help: 'DNS worker threads started again after one ended by itself (docs/dns-server.md, "Workers")',
    registers: [options.metrics],
  });
  // This thread loads the zones, each into one image in shared memory (docs/dns-server.md, "Memory");
  // the workers start once it serves and take the images rather than load their own copies.
  const [own] = await Promise.allSettled([startDnsServer({ ...options, shared, fed, thread: 0, shareZones: shared, onZoneChange, onCaughtUp: onCaughtUp(0) })]);
  const served = own.status === 'fulfilled' ? own.value : undefined;
  let images = served?.takeShared() ?? [];
  const port0 = served?.address.port ?? 0;
  // A worker started again (thread-slot.ts) takes the images this thread serves the zones from now,
  // with the names it holds beside them (read by the worker), where this thread is at the zone's
  // version; it reads the other zones whole. Without that each restart would hold a copy of every
  // zone changed since start, and take as long to serve as a start.
  const slots = Array.from({ length: served === undefined ? 0 : options.workers - 1 }, (_, i) => {
    return new ThreadSlot<Thread>({
      name: `DNS worker ${String(i + 1)}`,
      start: (onExit, replacement) => {
        const zones = replacement ? (served?.currentZones() ?? []) : images;
        const caughtUp = onCaughtUp(i + 1);
        const spawned: Promise<Thread> = spawnWorkerThread<WorkerRequest, FromWorker>({
          name: 'DNS worker',
          entry: new URL('./worker-main.ts', import.meta.url),
          data: data(i + 1, port0, zones),
          output: options.output,
          onFailure,
          onExit,
          onNotice: (reply) => {
            if (reply.kind === 'caught-up' && reply.change !== undefined) caughtUp(reply.change, reply.served === true);
            // A zone the worker is about to read whole: this thread's image of it instead, once it serves that version.
            if (reply.kind === 'image-wanted' && reply.ask !== undefined) {
              const { ask } = reply;
              const zone = served === undefined || reply.zone === undefined ? Promise.resolve(undefined) : served.imageOf(reply.zone, reply.version ?? 0);
              Promise.all([spawned, zone])
                .then(([thread, image]) => thread.request({ kind: 'image', ask, zone: image }))
                .catch(onFailure);
            }
          },
        });
        return spawned;
      },
      logger: options.logger,
      // Changes it missed while it started, the version check finds (zone-sync.ts, every 2 s).
      // A restarted worker starts with every record up: it is told of those this thread has down.
      replaced: async (thread) => {
        await Promise.all((served?.downReports() ?? []).map((report) => thread.request({ kind: 'health', report })));
      },
      onRestart: () => restarts.inc(),
      heartbeat: options.heartbeat,
    });
  });
  const started = await Promise.allSettled(slots.map((slot) => slot.begin()));
  // Taken by the first starts: not kept alive by this scope once the zones move on.
  images = [];
  const failed = own.status === 'rejected' ? own : started.find((s) => s.status === 'rejected');
  if (own.status !== 'fulfilled' || failed !== undefined) {
    await Promise.all(slots.map((slot) => slot.stop()));
    if (own.status === 'fulfilled') await own.value.stop();
    throw failed?.reason;
  }
  const local = own.value;
  const port = local.address.port;
  checking = true;
  refreshChecks();
  const answeredEarly = new Counter({
    name: 'edgeplane_dns_changes_answered_early_total',
    help: 'Zone changes the API answered before every DNS thread served them (a thread failed to apply one, took over 10 s, or was still late on an earlier one)',
    registers: [options.metrics],
  });
  // Worker threads that left a change unanswered past applyWaitMs: hung, or stuck on a long apply.
  // Later changes are still handed to them (they apply them in turn once they go on), but the API
  // does not wait for them again until that answer comes, so a hung thread costs one write its 10 s
  // wait rather than every write until the heartbeat ends it (thread-slot.ts).
  const late = new Set<Thread>();
  const unsubscribe = options.changes?.subscribe(async (change) => {
    const threads = serving(slots);
    const answered = new Set<Thread>();
    const replies = threads.map(async (t) => {
      const reply = await t.request({ kind: 'change', change });
      answered.add(t);
      return reply.kind === 'done' && reply.applied === true;
    });
    const awaited = replies.filter((_, i) => !late.has(threads[i] as Thread));
    const applied = Promise.all([local.apply(change), ...awaited]);
    const outcome = await within(applied, applyWaitMs);
    if (outcome === undefined || outcome.includes(false) || awaited.length < replies.length) {
      answeredEarly.inc();
      const log = { zone: change.zone, version: change.version };
      if (outcome === undefined) {
        options.logger.warn(log, `the API answers before every DNS thread serves a change: applying it took over ${String(applyWaitMs / 1000)} s`);
        threads.forEach((t, i) => {
          if (answered.has(t) || late.has(t)) return;
          late.add(t);
          options.logger.warn(log, `a DNS worker has not applied a change for ${String(applyWaitMs / 1000)} s: the API no longer waits for it until it does`);
          void replies[i]?.then(() => {
            late.delete(t);
            options.logger.warn(log, 'a late DNS worker answered (it applied the change, or it ended): the API waits for it again');
          });
        });
      } else if (outcome.includes(false)) {
        options.logger.warn(log, 'the API answers although a DNS thread could not apply a change; that thread keeps trying');
      }
    }
    // Secondaries hear of it again once every thread is done.
    if (outcome === undefined || awaited.length < replies.length) void Promise.all([applied, ...replies]).then(() => notifyOf(change, local.serves(change.zone)));
    notifyOf(change, local.serves(change.zone));
  });
  // Other nodes' changes. A DNS-only process's threads hear them by NOTIFY themselves
  // (follow-store.ts); where the threads are handed this process's changes (by `feed`), this thread
  // listens for the process and hands them the other nodes' changes, the feed's own passed over.
  const feed = options.changes;
  const fromOthers = noticeHandler(
    'zone change',
    zoneChangeFromNotice,
    (change) => {
      // Neither rejects: a thread that fails keeps trying on its own (zone-sync.ts).
      const applied = [local.apply(change), ...serving(slots).map((t) => t.request({ kind: 'change', change }))];
      void Promise.all(applied).then(() => notifyOf(change, local.serves(change.zone)));
    },
    options.logger,
  );
  const othersChanges =
    feed !== undefined && databaseUrl !== undefined
      ? await listenTo(
          databaseUrl,
          {
            [notifyChannel]: (payload) => {
              if (noticeOrigin(payload) !== feed.origin) fromOthers(payload);
            },
          },
          options.logger,
        )
      : undefined;
  options.logger.info(
    { dns: `${options.listen.host}:${String(port)}`, workers: options.workers, udp_io: local.udpIo, zones: local.zones, load_ms: local.loadMs },
    `DNS listening on udp+tcp ${options.listen.host}:${String(port)} with ${String(options.workers)} worker(s), ${local.udpIo} UDP`,
  );
  return {
    port,
    stop: async () => {
      unsubscribe?.();
      await othersChanges?.stop();
      checker.stop();
      await coordination.stop();
      await Promise.all(slots.map((slot) => slot.stop()));
      await local.stop();
    },
    workerMetrics: async () => {
      const replies = await Promise.all(serving(slots).map((t) => t.request({ kind: 'metrics' })));
      return replies.filter((r) => r.kind === 'done').map((r) => r.metrics as MetricObjectWithValues<MetricValue<string>>[]);
    },
  };
}
