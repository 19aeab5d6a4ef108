// The entry of one extra proxy thread: a proxy server on the shared ports, told every policy update
// by the role's main thread, which reads the store for all of them.
import { parentPort, workerData } from 'node:worker_threads';
import { Registry } from 'prom-client';
import type { LogLevel } from '../../config.ts';
import { createLogger } from '../../logger.ts';
import { releaseStartupHeap } from '../../startup-heap.ts';
import { fdDestination, streamDestination } from './access-log.ts';
import { startProxyServer, type PolicyUpdate, type ProxyThreadOptions } from './proxy-server.ts';

export interface ProxyWorkerData extends Omit<ProxyThreadOptions, 'logger' | 'metrics' | 'accessLogTo'> {
  logLevel: LogLevel;
  accessLog: AccessLogTarget;
  /** Tests only (EDGEPLANE_TEST_PROXY_EXIT_ON): the thread ends, as a defect would end it, when told of a change of the resource of this name. */
  exitOn: string | undefined;
}

/**
 * Where a worker writes its access log: the process's standard output directly, this thread's
 * stdout (which the main thread pipes to the service's output, when that is not the process's),
 * or nowhere.
 */
export type AccessLogTarget = 'stdout' | 'thread-stdout' | 'off';

export type ProxyWorkerRequest = { kind: 'update'; update: PolicyUpdate } | { kind: 'metrics' } | { kind: 'ping' } | { kind: 'stop' };
export type ToProxyWorker = ProxyWorkerRequest & { id: number };
export interface FromProxyWorker {
  kind: 'ready' | 'done' | 'failed';
  id: number;
  metrics?: unknown;
  error?: string;
}

const data = workerData as ProxyWorkerData;
const port = parentPort;
if (port === null) throw new Error('the proxy worker runs only as a worker thread');
const logger = createLogger(data.logLevel, process.stdout);
const registry = new Registry();

try {
  const accessLogTo = data.accessLog === 'off' ? undefined : data.accessLog === 'stdout' ? fdDestination(1) : streamDestination(process.stdout);
  const server = await startProxyServer({ ...data, cookieSecret: Buffer.from(data.cookieSecret), ticketKeys: Buffer.from(data.ticketKeys), logger, metrics: registry, accessLogTo });
  port.on('message', (message: ToProxyWorker) => {
    const reply = (r: Omit<FromProxyWorker, 'id'>) => port.postMessage({ ...r, id: message.id } satisfies FromProxyWorker);
    const work = async () => {
      if (message.kind === 'update') {
        // A change of it, not the whole set a restarted thread is given (which would end that one too).
        if (data.exitOn !== undefined && !message.update.full && message.update.policies.some((p) => p.name === data.exitOn)) {
          // Thrown outside any promise: uncaught, as a defect's exception would be.
          setImmediate(() => {
            throw new Error(`EDGEPLANE_TEST_PROXY_EXIT_ON: injected end of this thread at ${String(data.exitOn)}`);
          });
        }
        await server.apply(message.update);
      }
      else if (message.kind === 'metrics') return registry.getMetricsAsJSON();
      else if (message.kind === 'stop') await server.stop();
      return undefined;
    };
    work().then(
      (metrics) => reply({ kind: 'done', metrics }),
      (e: unknown) => reply({ kind: 'failed', error: (e as Error).message }),
    );
  });
  port.postMessage({ kind: 'ready', id: 0 } satisfies FromProxyWorker);
  await releaseStartupHeap();
} catch (e) {
  port.postMessage({ kind: 'failed', id: 0, error: (e as Error).message } satisfies FromProxyWorker);
}
