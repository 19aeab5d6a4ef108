// The bot challenge's proof of work for browser-clients.ts, in a worker thread of its own: each real
// browser solves on its own CPU, so one client solving must not stall the others' event loop (and
// with it their timings). The worker thread lowers its own priority to the least (on Linux a
// thread's nice value is its own): the clients' process runs at a raised one, and ten solvers at
// nice -10 took the proxy's core from it (the proxy served almost nothing for two seconds while the
// users solved), which a real user's CPU never does. Entry point of the worker, and the function
// that runs it.
import os from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { solve } from '../../test/support/bot.ts';

/** A nonce for `seed`, found in a worker thread. */
export function solveOffThread(seed: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(import.meta.filename, { workerData: seed });
    worker.once('message', (nonce: string) => resolve(nonce));
    worker.once('error', reject);
  });
}

if (!isMainThread) {
  os.setPriority(19);
  parentPort!.postMessage(solve(workerData as string));
}
