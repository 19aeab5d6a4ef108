// The legitimate client of the flood scenario: a steady, modest request rate from its own source
// address (127.0.0.2; the flood comes from 127.0.0.1), on keep-alive connections, each request timed
// from when it was sent to the end of its response. wrk cannot bind a source address, so this client
// is Node's own http, in a process of its own (this file is also its entry point) run at a raised
// priority when the bench may raise it: on 2 busy cores, a client waiting for a core would
// otherwise measure the scheduler rather than the proxy.
import http from 'node:http';
import { sleep } from '../api/server.ts';
import { percentiles } from '../api/load.ts';
import { clientMain, runClientProcess } from './client-process.ts';

export interface PacedOptions {
  port: number;
  /** The Host header: the resource. */
  host: string;
  localAddress: string;
  connections: number;
  /** Requests a second over all connections. */
  rate: number;
  seconds: number;
}

export interface PacedResult {
  /** Latencies of the 2xx responses, ms; only they are timed. */
  samplesMs: number[];
  ok: number;
  /** Other statuses, by code (a refused legitimate client is a failure of the scenario). */
  refused: Map<number, number>;
  /** Requests that got no response (network errors, 5 s timeouts). */
  failures: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const timeoutMs = 5000;

function get(agent: http.Agent, options: PacedOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { agent, host: '127.0.0.1', port: options.port, path: '/', localAddress: options.localAddress, headers: { host: options.host }, timeout: timeoutMs },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no response in ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

/**
 * Each connection sends a request every `connections / rate` seconds (staggered, so requests are
 * spread evenly), or at once when the previous one took longer than that.
 */
export async function pacedClient(options: PacedOptions): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections, maxFreeSockets: options.connections });
  const intervalMs = (options.connections / options.rate) * 1000;
  const samples: number[] = [];
  const refused = new Map<number, number>();
  let failures = 0;
  const started = performance.now();
  const endAt = started + options.seconds * 1000;
  const connection = async (index: number) => {
    for (let next = started + (index * intervalMs) / options.connections; next < endAt; next += intervalMs) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      const sent = process.hrtime.bigint();
      try {
        const status = await get(agent, options);
        if (status >= 200 && status <= 299) samples.push(Number(process.hrtime.bigint() - sent) / 1e6);
        else refused.set(status, (refused.get(status) ?? 0) + 1);
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, (_, i) => connection(i)));
  agent.destroy();
  return figures(samples, refused, failures);
}

function figures(samplesMs: number[], refused: Map<number, number>, failures: number): PacedResult {
  const { p50, p99, max } = percentiles(Float64Array.from(samplesMs));
  return { samplesMs, ok: samplesMs.length, refused, failures, p50Ms: p50, p99Ms: p99, maxMs: max };
}

/** Several runs as one: latencies pooled, so the percentiles are those of every request. */
export function mergePaced(results: PacedResult[]): PacedResult {
  const refused = new Map<number, number>();
  for (const r of results) for (const [status, n] of r.refused) refused.set(status, (refused.get(status) ?? 0) + n);
  return figures(results.flatMap((r) => r.samplesMs), refused, results.reduce((sum, r) => sum + r.failures, 0));
}

/** Runs `pacedClient` in a process of its own (at nice -10 as root) and returns its figures. */
export async function pacedClientProcess(options: PacedOptions): Promise<PacedResult> {
  const parsed = await runClientProcess<Omit<PacedResult, 'refused'> & { refused: [number, number][] }>(import.meta.filename, options, { raised: true });
  return { ...parsed, refused: new Map(parsed.refused) };
}

if (import.meta.main) await clientMain(async (options: PacedOptions) => {
  const result = await pacedClient(options);
  return { ...result, refused: [...result.refused] };
});
