// The well-behaved users of the many-sources flood (flood-many.ts): a few browser-like clients, each
// from its own loopback address (127.2.0.1 on) on one keep-alive connection, loading a page at a
// steady pace (a page load whose time came while the previous one was still loading is skipped).
// When a page is the bot challenge they do what its script does — solve the seed, follow the
// verify link, keep the clearance cookie — and load the page again, as
// test/e2e/proxy-mitigation.test.ts's polite client does. A page load is timed from its first
// request's send to the end of its last answer, the challenge's requests included: what a user waits
// for; the proof of work's own time is kept apart (`solveMs`). In a process of its own (this file is
// also its entry point), at a raised priority (client-process.ts).
import http from 'node:http';
import { sleep } from '../api/server.ts';
import { verifyPath } from '../../src/security/proxy/steps/bot-page.ts';
import { seedOf } from '../../test/support/bot.ts';
import { Solvers } from './challenge-solver.ts';
import { clientMain, runClientProcess } from './client-process.ts';

export interface BrowserOptions {
  port: number;
  /** The Host header: the resource. */
  host: string;
  clients: number;
  /** Page loads a second over all clients. */
  rate: number;
  seconds: number;
}

export interface PageLoad {
  /** When its first request was sent (Date.now()), to place it in the calm or the flood. */
  atMs: number;
  ms: number;
  /** The last answer's status; 0: no answer (network error, 5 s timeout). */
  status: number;
  /** It met the challenge (and solved it). */
  challenged: boolean;
  /**
   * Of `ms`, the time spent solving the challenge: the client's own work (about 0.1 s in a desktop
   * browser, docs/proxy.md), which on this bench's shared 2 cores measures the machine.
   */
  solveMs: number;
}

export const browserAddress = (i: number): string => `127.2.0.${i + 1}`;

const timeoutMs = 5000;

interface Answer {
  status: number;
  body: string;
  cookie: string | undefined;
}

function get(agent: http.Agent, options: BrowserOptions, localAddress: string, path: string, cookie: string): Promise<Answer> {
  const headers: http.OutgoingHttpHeaders = {
    host: options.host,
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) bench-browser/1',
    ...(cookie === '' ? {} : { cookie }),
  };
  return new Promise((resolve, reject) => {
    const request = http.get({ agent, host: '127.0.0.1', port: options.port, path, localAddress, headers, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString(), cookie: response.headers['set-cookie']?.[0]?.split(';')[0] }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no response in ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

export async function browsers(options: BrowserOptions): Promise<PageLoad[]> {
  const loads: PageLoad[] = [];
  // Each user's solver is running before the first page load, as a browser's JavaScript is.
  const solvers = await Solvers.start(options.clients);
  const intervalMs = (options.clients / options.rate) * 1000;
  const started = performance.now();
  const endAt = started + options.seconds * 1000;
  const client = async (index: number) => {
    const localAddress = browserAddress(index);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 });
    let cookie = '';
    for (let next = started + (index * intervalMs) / options.clients; next < endAt; next += intervalMs) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      // A user waits for the page before loading the next one: page loads whose time came while one
      // was still loading (a challenge being solved) are skipped, not sent in a burst afterwards.
      else if (wait < -intervalMs) continue;
      const atMs = Date.now();
      const sent = process.hrtime.bigint();
      let status: number;
      let challenged = false;
      let solveMs = 0;
      try {
        let answer = await get(agent, options, localAddress, '/', cookie);
        const seed = answer.status === 403 ? seedOf(answer.body) : undefined;
        if (seed !== undefined) {
          challenged = true;
          const solving = process.hrtime.bigint();
          const nonce = await solvers.solve(index, seed);
          solveMs = Number(process.hrtime.bigint() - solving) / 1e6;
          const verified = await get(agent, options, localAddress, `${verifyPath}?s=${seed}&n=${nonce}&to=%2F`, cookie);
          cookie = verified.cookie ?? cookie;
          answer = await get(agent, options, localAddress, '/', cookie);
        }
        status = answer.status;
      } catch {
        status = 0;
      }
      loads.push({ atMs, ms: Number(process.hrtime.bigint() - sent) / 1e6, status, challenged, solveMs });
    }
    agent.destroy();
  };
  await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)));
  await solvers.stop();
  return loads;
}

/** `browsers` in a process of its own, at nice -10 as root. */
export function browsersProcess(options: BrowserOptions): Promise<PageLoad[]> {
  return runClientProcess<PageLoad[]>(import.meta.filename, options, { raised: true });
}

if (import.meta.main) await clientMain(browsers);
