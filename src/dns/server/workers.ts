// The DNS role: this thread serves, and `count - 1` worker threads serve beside it on the same port
// (SO_REUSEPORT: the kernel spreads queries across them). Every change is applied by all of them
// before it is acknowledged, so the API still answers only once every worker serves the change.
import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { ZoneChange } from '../../events/change-feed.ts';
import type { ListenAddress, LogLevel } from '../../config.ts';
import { startDnsServer, type DnsServerOptions } from './dns-server.ts';
import { udpBatchUnavailable } from './udp-batch.ts';
import { HealthChecker } from '../health/checker.ts';
import { notifySecondaries } from './notify.ts';
import { parseTsigKey } from './tsig.ts';
import type { FromWorker, ToWorker, WorkerData, WorkerRequest } from './worker-main.ts';

export interface DnsRoleOptions extends Omit<DnsServerOptions, 'shared'> {
  workers: number;
  /** Health checks may probe loopback and private addresses. */
  healthcheckAllowPrivate: boolean;
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

interface Thread {
  request(message: WorkerRequest): Promise<FromWorker>;
  /** Stops the thread's server, then the thread: the process may go on without it. */
  stop(): Promise<void>;
  stopped: boolean;
}

function spawn(data: WorkerData, output: Writable, onFailure: (e: unknown) => void): Promise<Thread> {
  // A worker's stdout would go to the process's; the service's output may be elsewhere.
  const worker = new Worker(new URL('./worker-main.ts', import.meta.url), { workerData: data, stdout: true });
  worker.stdout.pipe(output, { end: false });
  const waiting = new Map<number, (reply: FromWorker) => void>();
  let next = 1;
  const thread: Thread = {
    stopped: false,
    request: (message) => {
      if (thread.stopped) return Promise.resolve({ kind: 'failed', id: 0, error: 'worker stopped' });
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        worker.postMessage({ ...message, id } satisfies ToWorker);
      });
    },
    stop: async () => {
      await thread.request({ kind: 'stop' });
      await worker.terminate();
    },
  };
  return new Promise((resolve, reject) => {
    worker.on('message', (reply: FromWorker) => {
      if (reply.id === 0) {
        if (reply.kind === 'ready') resolve(thread);
        else {
          reject(new Error(`DNS worker failed to start: ${reply.error ?? ''}`));
          void worker.terminate();
        }
        return;
      }
      waiting.get(reply.id)?.(reply);
      waiting.delete(reply.id);
    });
    worker.on('error', onFailure);
    worker.on('exit', (code) => {
      thread.stopped = true;
      // Nobody waits forever on a worker that is gone: the API must still answer.
      for (const resolveWaiting of waiting.values()) resolveWaiting({ kind: 'failed', id: 0, error: `worker exited (${String(code)})` });
      waiting.clear();
      reject(new Error(`DNS worker exited (${String(code)}) before it was ready`));
    });
  });
}

export async function startDnsRole(options: DnsRoleOptions): Promise<DnsRole> {
  const shared = options.workers > 1;
  const unavailable = udpBatchUnavailable();
  if (options.settings.udpIo === 'auto' && unavailable !== undefined) options.logger.warn(`DNS uses Node dgram for UDP: ${unavailable}`);
  // One checker per process: its verdicts go to every thread. It starts once all threads serve, and
  // re-reads the checks after every zone change this thread applies, however it heard of it.
  const checker = new HealthChecker({
    db: options.store.db,
    allowPrivate: options.healthcheckAllowPrivate,
    logger: options.logger,
    metrics: options.metrics,
    report: async (report) => {
      local.setHealth(report);
      await Promise.all(threads.map((t) => t.request({ kind: 'health', report })));
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
    refreshChecks();
    if (options.changes === undefined) notifyOf(change, served);
  };
  const local = await startDnsServer({ ...options, shared, onZoneChange });
  const port = local.address.port;
  const data: WorkerData = {
    dataDir: options.dataDir,
    host: options.listen.host,
    port,
    logLevel: options.logLevel,
    follow: options.changes === undefined,
    settings: options.settings,
  };
  const onFailure = (e: unknown) => options.logger.error({ err: e }, 'DNS worker failed');
  const started = await Promise.allSettled(Array.from({ length: options.workers - 1 }, () => spawn(data, options.output, onFailure)));
  const threads = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(threads.map((t) => t.stop()));
    await local.stop();
    throw failed.reason;
  }
  checking = true;
  refreshChecks();
  const unsubscribe = options.changes?.subscribe(async (change) => {
    const [replies] = await Promise.all([Promise.all(threads.map((t) => t.request({ kind: 'change', change }))), local.settled(change.zone)]);
    for (const reply of replies) if (reply.kind === 'failed') options.logger.error({ error: reply.error }, 'a DNS worker did not apply a change');
    notifyOf(change, local.serves(change.zone));
  });
  options.logger.info(
    { dns: `${options.listen.host}:${String(port)}`, workers: options.workers, udp_io: local.udpIo, zones: local.zones, load_ms: local.loadMs },
    `DNS listening on udp+tcp ${options.listen.host}:${String(port)} with ${String(options.workers)} worker(s), ${local.udpIo} UDP`,
  );
  return {
    port,
    stop: async () => {
      unsubscribe?.();
      checker.stop();
      await Promise.all(threads.map((t) => t.stop()));
      await local.stop();
    },
    workerMetrics: async () => {
      const replies = await Promise.all(threads.map((t) => t.request({ kind: 'metrics' })));
      return replies.filter((r) => r.kind === 'done').map((r) => r.metrics as MetricObjectWithValues<MetricValue<string>>[]);
    },
  };
}
