// One run of a load tool against one proxy, with the proxy's CPU time from /proc around it: the
// figure that compares proxies fairly on a shared 2-core machine (requests/s says partly who got the
// cores). Both tools run as child processes and report through their own output.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { cpuTimes, type CpuTimes } from '../api/proc-cpu.ts';
import { loadToolCommand } from './server.ts';

export interface LoadRun {
  /** Responses received (any status). */
  requests: number;
  /** Responses with a status of 400 or more (wrk), or not 2xx (ab). */
  refused: number;
  /** Connect, read, write errors and timeouts: requests that got no response. */
  failures: number;
  durationS: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The proxy's utime and stime over the run (all its threads and processes), seconds. */
  proxyCpu: CpuTimes;
  command: string;
}

export const requestsPerSecond = (run: LoadRun): number => run.requests / run.durationS;
export const cpuMicrosPerRequest = (run: LoadRun): number => ((run.proxyCpu.userS + run.proxyCpu.systemS) * 1e6) / run.requests;
export const kernelShare = (run: LoadRun): number => run.proxyCpu.systemS / (run.proxyCpu.userS + run.proxyCpu.systemS);

/** Several runs as one: counts, durations and CPU summed; latencies the worst round's (percentiles do not add). */
export function mergeRuns(runs: LoadRun[]): LoadRun {
  const sum = (value: (r: LoadRun) => number) => runs.reduce((total, r) => total + value(r), 0);
  const worst = (value: (r: LoadRun) => number) => Math.max(...runs.map(value));
  return {
    requests: sum((r) => r.requests),
    refused: sum((r) => r.refused),
    failures: sum((r) => r.failures),
    durationS: sum((r) => r.durationS),
    p50Ms: worst((r) => r.p50Ms),
    p99Ms: worst((r) => r.p99Ms),
    maxMs: worst((r) => r.maxMs),
    proxyCpu: { userS: sum((r) => r.proxyCpu.userS), systemS: sum((r) => r.proxyCpu.systemS) },
    command: runs[0]!.command,
  };
}

/** wrk reports through this script's done(): exact counts and percentiles, as JSON on one line. */
const wrkScript = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK-JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;

async function runTool(program: string, args: string[], cpus: string | undefined): Promise<{ stdout: string; stderr: string; code: number | null; command: string }> {
  const [file, argv] = loadToolCommand(program, args, cpus);
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 16_384) stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ stdout, stderr, code, command: [program, ...args].join(' ') }));
  });
}

async function measured<T>(serverPid: number, run: () => Promise<T>): Promise<{ result: T; proxyCpu: CpuTimes }> {
  const before = cpuTimes(serverPid);
  const result = await run();
  const after = cpuTimes(serverPid);
  return { result, proxyCpu: { userS: after.userS - before.userS, systemS: after.systemS - before.systemS } };
}

export interface WrkOptions {
  url: string;
  connections: number;
  seconds: number;
  /** Extra request headers, `Name: value`. */
  headers?: string[];
  /** Lua run before the reporter, e.g. a request() function sending other requests than the URL's GET. */
  script?: string;
  cpus: string | undefined;
  serverPid: number;
  /** Where the done() script is written (once per prelude). */
  dir: string;
}

/** wrk with one thread (it keeps one core busy at most, the one it is pinned to). */
export async function wrk(options: WrkOptions): Promise<LoadRun> {
  const prelude = options.script ?? '';
  const script = path.join(options.dir, `report-${createHash('sha256').update(prelude).digest('hex').slice(0, 12)}.lua`);
  if (!fs.existsSync(script)) fs.writeFileSync(script, `${prelude}\n${wrkScript}`);
  const args = [
    '-t1',
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--timeout', '5s',
    '-s', script,
    ...(options.headers ?? []).flatMap((h) => ['-H', h]),
    options.url,
  ];
  const { result: out, proxyCpu } = await measured(options.serverPid, () => runTool('wrk', args, options.cpus));
  const json = /WRK-JSON (\{.*\})/.exec(out.stdout)?.[1];
  if (out.code !== 0 || json === undefined) throw new Error(`wrk failed (exit ${String(out.code)}): ${out.command}\n${out.stdout}\n${out.stderr}`);
  const r = JSON.parse(json) as Record<'requests' | 'duration_us' | 'connect' | 'read' | 'write' | 'status' | 'timeout' | 'p50_us' | 'p99_us' | 'max_us', number>;
  return {
    requests: r.requests,
    refused: r.status,
    failures: r.connect + r.read + r.write + r.timeout,
    durationS: r.duration_us / 1e6,
    p50Ms: r.p50_us / 1000,
    p99Ms: r.p99_us / 1000,
    maxMs: r.max_us / 1000,
    proxyCpu,
    command: out.command,
  };
}

export interface AbOptions {
  url: string;
  concurrency: number;
  seconds: number;
  cpus: string | undefined;
  serverPid: number;
  dir: string;
}

/**
 * ab (apache2-utils): a new connection per request, HTTP/1.0 without keep-alive, and over TLS a full
 * handshake each time (ab makes a new TLS session per connection and never resumes one; wrk with
 * `Connection: close` resumes its previous session, which skips the certificate signature).
 */
export async function ab(options: AbOptions): Promise<LoadRun> {
  const percentiles = path.join(options.dir, 'ab-percentiles.csv');
  const args = [
    '-q',
    '-c', String(options.concurrency),
    '-t', String(options.seconds),
    // -t alone stops at 50,000 requests; ab allocates a record per request up front (lazily touched).
    '-n', '10000000',
    '-s', '5',
    '-e', percentiles,
    options.url,
  ];
  const { result: out, proxyCpu } = await measured(options.serverPid, () => runTool('ab', args, options.cpus));
  const field = (pattern: RegExp) => Number(pattern.exec(out.stdout)?.[1] ?? NaN);
  const complete = field(/Complete requests:\s+(\d+)/);
  if (out.code !== 0 || Number.isNaN(complete)) throw new Error(`ab failed (exit ${String(out.code)}): ${out.command}\n${out.stdout}\n${out.stderr}`);
  // -e: "percentage,milliseconds" for 0 … 100, the time of the whole request (connect included).
  const table = new Map(
    fs.readFileSync(percentiles, 'utf8').split('\n').slice(1).filter((l) => l.includes(',')).map((l) => l.split(',').map(Number) as [number, number]),
  );
  const failed = field(/Failed requests:\s+(\d+)/);
  const non2xx = /Non-2xx responses:\s+(\d+)/.test(out.stdout) ? field(/Non-2xx responses:\s+(\d+)/) : 0;
  return {
    requests: complete,
    refused: non2xx,
    failures: failed,
    durationS: field(/Time taken for tests:\s+([\d.]+)/),
    p50Ms: table.get(50) ?? NaN,
    p99Ms: table.get(99) ?? NaN,
    maxMs: table.get(100) ?? NaN,
    proxyCpu,
    command: out.command,
  };
}
