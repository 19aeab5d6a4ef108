// A role's worker thread as its main thread drives it (the DNS and proxy roles): requests posted
// with an id, each answered by that id; `ready` (id 0) once it serves, `failed` (id 0) if it could
// not start. A thread that exits answers everything still waiting with `failed`, so nobody waits
// for ever on a thread that is gone; its slot (thread-slot.ts) hears of an end it did not ask for.
import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { workerEnv } from './compile-cache.ts';
import type { SlotThread } from './thread-slot.ts';
import { within } from './within.ts';

/** What every worker answers: an id and a kind, and why when it failed. */
export interface Reply {
  kind: string;
  id: number;
  error?: string;
}

export interface WorkerThread<Request, Answer extends Reply> extends SlotThread {
  request(message: Request): Promise<Answer>;
}

export interface WorkerThreadOptions<Answer extends Reply> {
  /** For errors: `DNS worker`, `proxy worker`. */
  name: string;
  /** The worker's entry module. */
  entry: URL;
  data: unknown;
  /** Where the worker's stdout goes: the service's output, which may be elsewhere than the process's. */
  output: Writable;
  onFailure: (e: unknown) => void;
  /** It ended once it served, and not because stop() asked. */
  onExit: (code: number) => void;
  /** A message of id 0 other than `ready` and `failed` (the DNS worker's `caught-up`). */
  onNotice?: (message: Answer) => void;
}

/** How long a thread has to stop its server before it is ended anyway. */
const stopWaitMs = 10_000;

/** Starts a worker thread; resolves once it serves. */
export function spawnWorkerThread<Request extends object, Answer extends Reply>(options: WorkerThreadOptions<Answer>): Promise<WorkerThread<Request, Answer>> {
  const worker = new Worker(options.entry, { workerData: options.data, stdout: true, env: workerEnv() });
  worker.stdout.pipe(options.output, { end: false });
  const waiting = new Map<number, (reply: Answer) => void>();
  const failed = (error: string) => ({ kind: 'failed', id: 0, error }) as Answer;
  let next = 1;
  let gone = false;
  let ready = false;
  let stopping = false;
  const thread: WorkerThread<Request, Answer> = {
    request: (message) => {
      if (gone) return Promise.resolve(failed('worker stopped'));
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        worker.postMessage({ ...message, id });
      });
    },
    stop: async () => {
      stopping = true;
      // A thread that no longer answers is ended all the same.
      await within(thread.request({ kind: 'stop' } as Request), stopWaitMs);
      await worker.terminate();
    },
    ping: () => thread.request({ kind: 'ping' } as Request),
    kill: async () => {
      await worker.terminate();
    },
  };
  return new Promise((resolve, reject) => {
    worker.on('message', (reply: Answer) => {
      if (reply.id !== 0) {
        waiting.get(reply.id)?.(reply);
        waiting.delete(reply.id);
      } else if (reply.kind === 'ready') {
        ready = true;
        resolve(thread);
      } else if (reply.kind === 'failed') {
        reject(new Error(`${options.name} failed to start: ${reply.error ?? ''}`));
        void worker.terminate();
      } else {
        options.onNotice?.(reply);
      }
    });
    worker.on('error', options.onFailure);
    worker.on('exit', (code) => {
      gone = true;
      for (const resolveWaiting of waiting.values()) resolveWaiting(failed(`worker exited (${String(code)})`));
      waiting.clear();
      reject(new Error(`${options.name} exited (${String(code)}) before it was ready`));
      if (ready && !stopping) options.onExit(code);
    });
  });
}
