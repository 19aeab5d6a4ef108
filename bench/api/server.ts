// What run.ts needs from each server under test, so every scenario runs the same code against both.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Endpoint, RequestSpec } from './load.ts';

export interface BenchServer {
  name: string;
  /** Process whose CPU time (with its descendants) is charged to the server. */
  pid: number;
  endpoint: Endpoint;
  /** How a commit reaches the disk, printed next to the figures. */
  durability: string;
  /** Creates or replaces the A RRset of `host<n>.bench.example` with one address. */
  upsert(n: number): RequestSpec;
  /** Reads the whole zone with its RRsets. */
  readZone(): RequestSpec;
  /** RRsets in a zone read's body: a check that both servers returned the same zone. */
  countRrsets(body: Buffer): number;
  /** Software version, printed with the figures. */
  version: string;
  /** Setup: adds `count` A RRsets named `load<i>.bench.example`, as fast as the API allows. */
  load(count: number): Promise<void>;
  /** What the process wrote (stdout and stderr). */
  log: ProcessLog;
  /** Stops the process and removes its temporary directory. */
  stop(): Promise<void>;
}

export const zoneName = 'bench.example';

/** A documentation address (RFC 5737) derived from n, so consecutive writes differ. */
export function address(n: number): string {
  return `192.0.2.${(n % 254) + 1}`;
}

export interface ProcessLog {
  /** The last 64 KiB the process wrote, to show when it fails to start or dies. */
  tail: () => string;
  /**
   * Error and warning lines over the whole run, counted by message with numbers, ids and names
   * blanked, so "database is locked" shows up as one line with a count rather than as thousands.
   */
  problems: Map<string, number>;
}

function normalise(line: string): string {
  const exception = /Exception: (.*)$/.exec(line)?.[1]; // PowerDNS: the cause of an HTTP 500
  const json = /"msg":"([^"]*)"/.exec(line)?.[1]; // edgeplane: pino's message field
  return (exception ?? json ?? line)
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '<id>')
    .replace(/(host|load)\d+/g, '$1<n>')
    .replace(/\d+/g, '<n>')
    .slice(0, 200);
}

/** Collects a child's output: a bounded tail, and a tally of the lines that report problems. */
export function watchLog(child: ChildProcess, limit = 64 * 1024): ProcessLog {
  let text = '';
  let partial = '';
  const problems = new Map<string, number>();
  const keep = (chunk: Buffer) => {
    const s = chunk.toString();
    text += s;
    if (text.length > limit) text = text.slice(-limit);
    const lines = (partial + s).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      // pino levels 40 (warn) and up; PowerDNS prefixes nothing, so match its words.
      if (!/"level":(4|5|6)\d|error|exception|warn|locked|fail/i.test(line)) continue;
      const key = normalise(line);
      problems.set(key, (problems.get(key) ?? 0) + 1);
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { tail: () => text, problems };
}

/** Resolves with the exit code or signal; never rejects. */
export function exited(child: ChildProcess): Promise<number | string> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode ?? -1);
    else child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
}

/** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. */
export async function terminate(child: ChildProcess, graceMs = 5000): Promise<void> {
  const done = exited(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await done;
  clearTimeout(timer);
}

/** Node options with which a server writes one CPU profile per thread into `dir` when it stops; none without a `dir`. */
export function cpuProfArgs(dir: string | undefined): string[] {
  return dir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir)}`];
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
