// The bot challenge's proof of work for browser-clients.ts, in a worker thread of its own: each real
// browser solves on its own CPU, so one client solving must not stall the others' event loop (and
// with it their timings). Entry point of the worker, and the function that runs it.
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

if (!isMainThread) parentPort!.postMessage(solve(workerData as string));
