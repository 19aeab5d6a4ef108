// The entry of one extra DNS worker thread: its own store connection, zone view and sockets on the
// shared port. The main thread forwards each change and waits for the worker to acknowledge it; the
// worker also keeps up with the store by itself (zone-sync.ts) and says when that changed a zone.
import { parentPort, workerData } from 'node:worker_threads';
import { Registry } from 'prom-client';
import type { LogLevel } from '../../config.ts';
import type { GeoData } from '../../geo/geoip.ts';
import type { ZoneChange } from '../../events/change-feed.ts';
import type { HealthReport } from '../health/checker.ts';
import { createLogger } from '../../logger.ts';
import { releaseStartupHeap } from '../../startup-heap.ts';
import { openStore } from '../../store/database.ts';
import { startDnsServer, type DnsSettings } from './dns-server.ts';
import type { SharedZone } from './load.ts';

export interface WorkerData {
  dataDir: string;
  host: string;
  port: number;
  logLevel: LogLevel;
  /** This DNS thread's number (1 and up; the main thread is 0). */
  thread: number;
  /** The API in this process: the main thread hands over each change as it commits. */
  fed: boolean;
  settings: DnsSettings;
  /** The process's GeoIP data: shared memory, the same bytes as every other thread's. */
  geo: GeoData;
  /** The zones the main thread loaded: their images are shared memory too (load.ts). */
  zones: SharedZone[];
}

export type WorkerRequest =
  | { kind: 'change'; change: ZoneChange }
  | { kind: 'health'; report: HealthReport }
  /** The answer to this worker's `image-wanted` number `ask`: the main thread's image, if it has one. */
  | { kind: 'image'; ask: number; zone: SharedZone | undefined }
  | { kind: 'metrics' }
  | { kind: 'ping' }
  | { kind: 'stop' };
export type ToWorker = WorkerRequest & { id: number };
export interface FromWorker {
  /**
   * `caught-up` (id 0): the worker brought a zone to the store's version by itself. `image-wanted`
   * (id 0): it is about to read `zone` whole for `version`; the main thread answers with an `image`.
   */
  kind: 'ready' | 'done' | 'failed' | 'caught-up' | 'image-wanted';
  id: number;
  metrics?: unknown;
  error?: string;
  /** A change: whether the worker serves it (false: it gave up for now, and keeps trying). */
  applied?: boolean;
  /** `caught-up`: the change it caught up on, and whether it serves the zone. */
  change?: ZoneChange;
  served?: boolean;
  /** `image-wanted`: the zone, the version the worker needs, and the number its answer comes back with. */
  zone?: string;
  version?: number;
  ask?: number;
}

const data = workerData as WorkerData;
const port = parentPort;
if (port === null) throw new Error('worker-main runs only as a worker thread');
// Through this thread's stdout stream, which the main thread pipes to the service's output (pino's
// default destination would write to the process's file descriptor 1 directly).
const logger = createLogger(data.logLevel, process.stdout);
const store = openStore({ dataDir: data.dataDir, databaseUrl: data.settings.databaseUrl }, logger);
// Process-wide metrics (memory, CPU) are the main thread's; a worker counts only its queries.
const registry = new Registry();
/** This worker's `image-wanted` still unanswered, by number. */
const asks = new Map<number, (zone: SharedZone | undefined) => void>();
let lastAsk = 0;
const askImage = (zone: string, version: number) =>
  new Promise<SharedZone | undefined>((resolve) => {
    const ask = ++lastAsk;
    asks.set(ask, resolve);
    port.postMessage({ kind: 'image-wanted', id: 0, zone, version, ask } satisfies FromWorker);
  });

try {
  const server = await startDnsServer({
    store,
    listen: { host: data.host, port: data.port },
    logger,
    fed: data.fed,
    thread: data.thread,
    metrics: registry,
    shared: true,
    settings: data.settings,
    geo: data.geo,
    // Handed over, not kept in workerData: the view keeps what it needs of them.
    loadedZones: data.zones.splice(0),
    askImage,
    onCaughtUp: (change, served) => port.postMessage({ kind: 'caught-up', id: 0, change, served } satisfies FromWorker),
  });
  const handle = async (message: WorkerRequest): Promise<Partial<FromWorker>> => {
    switch (message.kind) {
      case 'change':
        return { applied: await server.apply(message.change) };
      case 'health':
        server.setHealth(message.report);
        return {};
      case 'image':
        asks.get(message.ask)?.(message.zone);
        asks.delete(message.ask);
        return {};
      case 'metrics':
        return { metrics: await registry.getMetricsAsJSON() };
      case 'ping':
        return {};
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
  await releaseStartupHeap();
} catch (e) {
  port.postMessage({ kind: 'failed', id: 0, error: e instanceof Error ? e.message : String(e) } satisfies FromWorker);
  await store.close();
}
