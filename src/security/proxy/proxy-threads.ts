// The proxy's worker threads as the role's main thread drives them: one request at a time per
// message, each answered by id; a thread that exits answers everything still waiting with `failed`
// (and the role starts another: thread-slot.ts).
import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { FromProxyWorker, ProxyWorkerData, ProxyWorkerRequest, ToProxyWorker } from './worker-main.ts';
import { workerEnv } from '../../compile-cache.ts';
import { within } from '../../within.ts';

export interface ProxyThread {
  request(message: ProxyWorkerRequest): Promise<FromProxyWorker>;
  stop(): Promise<void>;
  ping(): Promise<unknown>;
  kill(): Promise<void>;
}

/** How long a thread has to stop its server before it is ended anyway. */
const stopWaitMs = 10_000;

/** Starts a worker thread; `onExit` hears of its end once it served, unless stop() ended it. */
export function spawnProxyThread(data: ProxyWorkerData, output: Writable, onFailure: (e: unknown) => void, onExit: (code: number) => void): Promise<ProxyThread> {
  const worker = new Worker(new URL('./worker-main.ts', import.meta.url), { workerData: data, stdout: true, env: workerEnv() });
  // The service's output may be elsewhere than the process's stdout.
  worker.stdout.pipe(output, { end: false });
  const waiting = new Map<number, (reply: FromProxyWorker) => void>();
  let next = 1;
  let stopped = false;
  let ready = false;
  let stopping = false;
  const thread: ProxyThread = {
    request: (message) => {
      if (stopped) return Promise.resolve({ kind: 'failed', id: 0, error: 'worker stopped' });
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        worker.postMessage({ ...message, id } satisfies ToProxyWorker);
      });
    },
    stop: async () => {
      stopping = true;
      // A thread that no longer answers is ended all the same.
      await within(thread.request({ kind: 'stop' }), stopWaitMs);
      await worker.terminate();
    },
    ping: () => thread.request({ kind: 'ping' }),
    kill: async () => {
      await worker.terminate();
    },
  };
  return new Promise((resolve, reject) => {
    worker.on('message', (reply: FromProxyWorker) => {
      if (reply.id !== 0) {
        waiting.get(reply.id)?.(reply);
        waiting.delete(reply.id);
      } else if (reply.kind === 'ready') {
        ready = true;
        resolve(thread);
      } else {
        reject(new Error(`proxy worker failed to start: ${reply.error ?? ''}`));
        void worker.terminate();
      }
    });
    worker.on('error', onFailure);
    worker.on('exit', (code) => {
      stopped = true;
      for (const resolveWaiting of waiting.values()) resolveWaiting({ kind: 'failed', id: 0, error: `worker exited (${String(code)})` });
      waiting.clear();
      reject(new Error(`proxy worker exited (${String(code)}) before it was ready`));
      if (ready && !stopping) onExit(code);
    });
  });
}
