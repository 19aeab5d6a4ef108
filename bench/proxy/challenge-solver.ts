// The bot challenge's proof of work for browser-clients.ts, in worker threads: each real browser
// solves on its own CPU, so one client solving must not stall the others' event loop (and with it
// their timings). Each client has its solver, started before the run and lowered at once to the
// least priority (on Linux a thread's nice value is its own): the clients' process runs at a raised
// one, and solvers started when the challenge came (loading this module is some tens of ms of CPU
// each) at nice -10 took the proxy's core from it for the flood's first two seconds, which a real
// user's browser, already running, never does. Entry point of the workers, and the pool that runs them.
import os from 'node:os';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { solve } from '../../test/support/bot.ts';

/** One solver thread per client, each solving one seed at a time. */
export class Solvers {
  readonly #workers: Worker[];

  private constructor(workers: Worker[]) {
    this.#workers = workers;
  }

  /** `count` solvers, once each has started and lowered its priority. */
  static async start(count: number): Promise<Solvers> {
    const workers = await Promise.all(
      Array.from({ length: count }, () => {
        const worker = new Worker(import.meta.filename);
        return new Promise<Worker>((resolve, reject) => {
          worker.once('message', () => resolve(worker));
          worker.once('error', reject);
        });
      }),
    );
    return new Solvers(workers);
  }

  /** A nonce for `seed`, found by client `index`'s solver. */
  solve(index: number, seed: string): Promise<string> {
    const worker = this.#workers[index];
    if (worker === undefined) return Promise.reject(new Error(`no solver ${String(index)}`));
    // A solver that dies fails its client's page load instead of leaving the run waiting for ever.
    return new Promise((resolve, reject) => {
      const failed = (error: Error) => {
        worker.off('message', solved).off('error', failed).off('exit', exited);
        reject(error);
      };
      const exited = (code: number) => failed(new Error(`solver ${String(index)} exited (${String(code)})`));
      const solved = (nonce: string) => {
        worker.off('error', failed).off('exit', exited);
        resolve(nonce);
      };
      worker.once('message', solved).once('error', failed).once('exit', exited);
      worker.postMessage(seed);
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }
}

if (!isMainThread && parentPort !== null) {
  const port = parentPort;
  os.setPriority(19);
  port.on('message', (seed: string) => port.postMessage(solve(seed)));
  port.postMessage('ready');
}
