// The bench's own load clients (Node, because wrk cannot bind a source address) each run in a
// process of their own: the entry file is given its options as JSON in argv[2] and prints its
// figures as JSON on stdout. A client timing requests runs at a raised priority when the bench may
// raise it (on 2 busy cores, a client waiting for a core measures the scheduler, not the proxy); a
// client generating load is pinned to the load tools' CPU instead, as wrk is.
import { spawn } from 'node:child_process';
import { findProgram } from '../dns/server.ts';

/** nice(1) value of a timing client's process when running as root; others cannot raise a priority. */
const raisedNice = -10;

export const clientPriority = (): string => (process.getuid?.() === 0 ? `nice ${raisedNice}` : 'normal priority');

export interface ClientProcessOptions {
  /** Run at nice -10 (root only): for clients whose latencies are the figures. */
  raised?: boolean;
  /** CPUs to pin the process to (taskset); undefined: any. */
  cpus?: string | undefined;
}

/** Runs `entry` (a file ending in `clientMain`) with `options`, and returns what it printed, parsed. */
export async function runClientProcess<T>(entry: string, options: unknown, placement: ClientProcessOptions = {}): Promise<T> {
  let argv = [process.execPath, entry, JSON.stringify(options)];
  if (placement.cpus !== undefined) argv = [findProgram('taskset') ?? 'taskset', '-c', placement.cpus, ...argv];
  if (placement.raised === true && process.getuid?.() === 0) argv = [findProgram('nice') ?? 'nice', '-n', String(raisedNice), ...argv];
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 16_384) err += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ code: exitCode, stdout: out, stderr: err }));
  });
  if (code !== 0) throw new Error(`${entry} failed (exit ${String(code)}): ${stderr.slice(0, 2000)}`);
  return JSON.parse(stdout) as T;
}

/** The entry side: runs `client` on argv[2]'s options and prints its result as JSON. */
export async function clientMain(client: (options: never) => Promise<unknown>): Promise<void> {
  // The options are what runClientProcess was given for this entry: trusted, not validated.
  const result = await client(JSON.parse(process.argv[2]!) as never);
  process.stdout.write(JSON.stringify(result));
}
