// The entry of one extra DNS worker thread: its own store connection, zone view and sockets on the
// shared port. The main thread forwards each change and waits for the worker to acknowledge it.
import { parentPort, workerData } from 'node:worker_threads';
import { Registry } from 'prom-client';
import type { LogLevel } from '../../config.ts';
import { ChangeFeed, type ZoneChange } from '../../events/change-feed.ts';
import type { HealthReport } from '../health/checker.ts';
import { createLogger } from '../../logger.ts';
import { openStore } from '../../store/database.ts';
import { startDnsServer, type DnsSettings } from './dns-server.ts';

export interface WorkerData {
  dataDir: string;
  host: string;
  port: number;
  logLevel: LogLevel;
  /** No API in this process: follow the store instead of the main thread's changes. */
  follow: boolean;
  settings: DnsSettings;
}

export type WorkerRequest = { kind: 'change'; change: ZoneChange } | { kind: 'health'; report: HealthReport } | { kind: 'metrics' } | { kind: 'stop' };
export type ToWorker = WorkerRequest & { id: number };
export interface FromWorker {
  kind: 'ready' | 'done' | 'failed';
  id: number;
  metrics?: unknown;
  error?: string;
}

const data = workerData as WorkerData;
const port = parentPort;
if (port === null) throw new Error('worker-main runs only as a worker thread');
// Through this thread's stdout stream, which the main thread pipes to the service's output (pino's
// default destination would write to the process's file descriptor 1 directly).
const logger = createLogger(data.logLevel, process.stdout);
const store = openStore({ dataDir: data.dataDir, databaseUrl: data.settings.databaseUrl });
const changes = data.follow ? undefined : new ChangeFeed();
// Process-wide metrics (memory, CPU) are the main thread's; a worker counts only its queries.
const registry = new Registry();

try {
  const server = await startDnsServer({
    store,
    listen: { host: data.host, port: data.port },
    logger,
    changes,
    metrics: registry,
    shared: true,
    settings: data.settings,
  });
  const handle = async (message: WorkerRequest): Promise<Partial<FromWorker>> => {
    switch (message.kind) {
      case 'change':
        await changes?.publish(message.change);
        return {};
      case 'health':
        server.setHealth(message.report);
        return {};
      case 'metrics':
        return { metrics: await registry.getMetricsAsJSON() };
      case 'stop':
        await server.stop();
        await store.close();
        return {};
    }
  };
  port.on('message', (message: ToWorker) => {
    const work = handle(message);
    work.then(
      (extra) => port.postMessage({ kind: 'done', id: message.id, ...extra } satisfies FromWorker),
      (e: unknown) => port.postMessage({ kind: 'failed', id: message.id, error: String(e) } satisfies FromWorker),
    );
  });
  port.postMessage({ kind: 'ready', id: 0 } satisfies FromWorker);
} catch (e) {
  port.postMessage({ kind: 'failed', id: 0, error: e instanceof Error ? e.message : String(e) } satisfies FromWorker);
  await store.close();
}
