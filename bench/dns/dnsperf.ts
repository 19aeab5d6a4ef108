// One dnsperf run against one server, with the server's CPU time around it, and dnsperf's statistics
// parsed from its report.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { cpuSeconds } from '../api/proc-cpu.ts';
import { findProgram } from './server.ts';

export interface DnsperfOptions {
  port: number;
  /** A -B (binary, length-prefixed) query file. */
  file: string;
  /** -l: run this long at most. */
  seconds: number;
  /** -n: stop after this many passes through the file (when it comes before `seconds`). */
  passes?: number;
  /** -c: clients (sockets). */
  clients: number;
  /** -q: queries outstanding at most. */
  outstanding: number;
  /** -T: threads. */
  threads: number;
  /** CPUs dnsperf runs on (taskset); undefined: any. */
  cpus: string | undefined;
  /** The server whose CPU time is charged to the run. */
  serverPid: number;
}

export interface DnsperfResult {
  sent: number;
  completed: number;
  lost: number;
  /** Count per response code. */
  rcodes: Map<string, number>;
  runS: number;
  qps: number;
  avgLatencyMs: number;
  maxLatencyMs: number;
  requestBytes: number;
  responseBytes: number;
  /** utime+stime of the server over the run, seconds. */
  serverCpuS: number;
  /** The share of that in the kernel (stime): system calls, the network stack. */
  serverKernelShare: number;
  /** The command line, printed once. */
  command: string;
}

function number(report: string, pattern: RegExp): number {
  const match = pattern.exec(report);
  return match?.[1] === undefined ? NaN : Number(match[1]);
}

/** utime and stime of a process (all its threads), in clock ticks; only their ratio is used. */
function userAndSystemTicks(pid: number): [number, number] {
  const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the parenthesised command name: field 3 (state) is at index 0, utime (14) at 11, stime (15) at 12.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]), Number(fields[12])];
}

export function parseReport(report: string): Omit<DnsperfResult, 'serverCpuS' | 'serverKernelShare' | 'command'> {
  const rcodes = new Map<string, number>();
  const codes = /Response codes:\s+(.*)/.exec(report)?.[1] ?? '';
  for (const [, code, count] of codes.matchAll(/([A-Z]+) (\d+) \(/g)) rcodes.set(code!, Number(count));
  return {
    sent: number(report, /Queries sent:\s+(\d+)/),
    completed: number(report, /Queries completed:\s+(\d+)/),
    lost: number(report, /Queries lost:\s+(\d+)/),
    rcodes,
    runS: number(report, /Run time \(s\):\s+([\d.]+)/),
    qps: number(report, /Queries per second:\s+([\d.]+)/),
    avgLatencyMs: number(report, /Average Latency \(s\):\s+([\d.]+)/) * 1000,
    maxLatencyMs: number(report, /Average Latency \(s\):.*max ([\d.]+)/) * 1000,
    requestBytes: number(report, /Average packet size:\s+request (\d+)/),
    responseBytes: number(report, /Average packet size:.*response (\d+)/),
  };
}

export async function dnsperf(options: DnsperfOptions): Promise<DnsperfResult> {
  const binary = findProgram('dnsperf');
  if (binary === undefined) throw new Error('dnsperf is not installed');
  const args = [
    '-B', // binary query file: each query carries its own EDNS options
    '-d', options.file,
    '-s', '127.0.0.1',
    '-p', String(options.port),
    '-l', String(options.seconds),
    ...(options.passes === undefined ? [] : ['-n', String(options.passes)]),
    '-c', String(options.clients),
    '-q', String(options.outstanding),
    '-T', String(options.threads),
    '-t', '2', // a query unanswered after 2 s is lost
  ];
  const [file, argv] = options.cpus === undefined ? [binary, args] : [findProgram('taskset') ?? 'taskset', ['-c', options.cpus, binary, ...args]];
  const cpuBefore = cpuSeconds(options.serverPid);
  const [userBefore, systemBefore] = userAndSystemTicks(options.serverPid);
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // One "[Timeout] Query timed out" line per lost query: keep only the start.
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 4096) err += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ code: exitCode, stdout: out, stderr: err }));
  });
  const serverCpuS = cpuSeconds(options.serverPid) - cpuBefore;
  const [userAfter, systemAfter] = userAndSystemTicks(options.serverPid);
  const serverKernelShare = (systemAfter - systemBefore) / (userAfter - userBefore + systemAfter - systemBefore);
  const report = parseReport(stdout);
  if (code !== 0 || Number.isNaN(report.completed)) throw new Error(`dnsperf failed (exit ${String(code)}):\n${stdout}\n${stderr}`);
  return { ...report, serverCpuS, serverKernelShare, command: [file, ...argv].join(' ') };
}
