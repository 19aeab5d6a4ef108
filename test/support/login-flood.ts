// A login flood as an attacker holding many addresses sends it: logins spread over many client
// addresses (127.0.x.y, all loopback on Linux) and many usernames, each address and each username
// kept within its rate limit, so that only the bound on password hashing can stop it. It runs in a
// worker thread, so that sending it does not take the event loop of the test, which measures (and
// may host the service).
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { callFrom } from './http.ts';

export interface FloodOptions {
  url: string;
  /** Client addresses: 127.0.1.1, 127.0.1.2, … (250 per /24). */
  addresses: number;
  usernames: number;
  /** Logins sent per second, whatever the answers (an open loop, as a flood is). */
  perSecond: number;
  seconds: number;
}

export interface FloodAnswer {
  /** 0 when the request failed or timed out. */
  status: number;
  /** From sending to the whole answer. */
  ms: number;
}

export const floodAddress = (i: number) => `127.0.${String(1 + Math.floor(i / 250))}.${String(1 + (i % 250))}`;

/** Runs the flood in a worker thread; resolves with every answer once all have come. */
export function loginFlood(options: FloodOptions): Promise<FloodAnswer[]> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { loginFlood: options } });
  return new Promise((resolve, reject) => {
    worker.once('message', (answers: FloodAnswer[]) => {
      resolve(answers);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

async function flood(options: FloodOptions): Promise<FloodAnswer[]> {
  const agent = new http.Agent({ keepAlive: true });
  const answers: Promise<FloodAnswer>[] = [];
  const send = (k: number) => {
    // Round after round over the addresses, each round shifted by one username, so that every
    // address and every username gets an even share.
    const address = floodAddress(k % options.addresses);
    const username = `flood${String((k + Math.floor(k / options.addresses)) % options.usernames)}@example.com`;
    const started = performance.now();
    return callFrom(options.url, 'POST', '/iam/auth/jwt/login', {
      localAddress: address,
      agent,
      timeoutMs: 30_000,
      body: { username, password: 'not the password' },
    }).then((response) => ({ status: response.status, ms: performance.now() - started }));
  };
  const start = performance.now();
  const total = options.perSecond * options.seconds;
  while (answers.length < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * options.perSecond));
    while (answers.length < due) answers.push(send(answers.length));
    await sleep(20);
  }
  const all = await Promise.all(answers);
  agent.destroy();
  return all;
}

if (!isMainThread) {
  const options = (workerData as { loginFlood?: FloodOptions }).loginFlood;
  if (options !== undefined) parentPort?.postMessage(await flood(options));
}
