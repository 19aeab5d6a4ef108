// What the scenarios need from each DNS server under test, and what starting one takes: a free port,
// CPU pinning, memory from /proc, the prerequisites and how to install them.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { terminate, watchLog, type ProcessLog } from '../api/server.ts';
import { waitForSoa } from './dns-client.ts';

export interface DnsServer {
  name: string;
  pid: number;
  port: number;
  /** Version and the configuration that matters for the figures, printed with them. */
  description: string;
  /** Milliseconds from spawning the process to the zone's SOA answered. */
  readyMs: number;
  log: ProcessLog;
  hasExited(): boolean;
  /** Stops the process and removes its own files (not the data it was given). */
  stop(): Promise<void>;
}

/** Where a program is, on PATH or in the sbin directories root's PATH has and others' may not. */
export function findProgram(name: string): string | undefined {
  const dirs = [...(process.env['PATH'] ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  return dirs.filter((d) => d !== '').map((dir) => path.join(dir, name)).find((file) => fs.existsSync(file));
}

export function findBindBackend(): string | undefined {
  const libs = ['/usr/lib', '/usr/lib64', '/usr/local/lib'];
  const candidates = libs.flatMap((lib) => {
    let entries: string[];
    try {
      entries = fs.readdirSync(lib);
    } catch {
      return [];
    }
    return [path.join(lib, 'pdns'), ...entries.map((e) => path.join(lib, e, 'pdns'))];
  });
  return candidates.map((dir) => path.join(dir, 'libbindbackend.so')).find((file) => fs.existsSync(file));
}

/** What is missing to run the benchmark, with how to install it; undefined when nothing is. */
export function missingPrerequisites(): string | undefined {
  const missing = [
    findProgram('dnsperf') ? undefined : 'dnsperf (package dnsperf)',
    findProgram('knotd') ? undefined : 'knotd (package knot)',
    findProgram('pdns_server') ? undefined : 'pdns_server (package pdns-server)',
    findBindBackend() ? undefined : 'the PowerDNS bind backend (package pdns-backend-bind)',
    findProgram('taskset') ? undefined : 'taskset (package util-linux)',
  ].filter((m) => m !== undefined);
  if (missing.length === 0) return undefined;
  return [
    `The DNS benchmark needs the reference servers and dnsperf; missing: ${missing.join(', ')}.`,
    'Install them with (as root, on Debian or Ubuntu):',
    '',
    "  printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d   # keep Debian from starting the system services",
    '  apt-get install -y dnsperf knot pdns-server pdns-backend-bind util-linux',
  ].join('\n');
}

/**
 * Spawns `program args` restricted to `cpus` (taskset's list syntax, "0" or "0,1"; undefined: any CPU).
 * taskset execs the program, so the child's pid is the server's, and its threads inherit the mask.
 */
export function spawnPinned(program: string, args: string[], cpus: string | undefined, env?: NodeJS.ProcessEnv): ChildProcess {
  const [file, argv] = cpus === undefined ? [program, args] : [findProgram('taskset') ?? 'taskset', ['-c', cpus, program, ...args]];
  return spawn(file, argv, { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface Memory {
  /** Resident set now, KiB. */
  rssKiB: number;
  /** Peak resident set, KiB. */
  peakKiB: number;
}

export function memory(pid: number): Memory {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') };
}

/** First line of a program's version output, or '?' (some print it on stderr). */
export function versionOf(program: string, args: string[], pattern: RegExp): string {
  try {
    const out = execFileSync(program, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return pattern.exec(out)?.[1] ?? '?';
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return pattern.exec(`${err.stdout ?? ''}${err.stderr ?? ''}`)?.[1] ?? '?';
  }
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export interface ReferenceStart {
  name: string;
  binary: string;
  args: string[];
  cpus: string | undefined;
  /** The scratch directory holding its configuration; removed when it stops. */
  dir: string;
  port: number;
  zone: string;
  timeoutMs: number;
  description: string;
}

/** Starts a reference server and waits for it to answer the zone's SOA; on failure, its log tail. */
export async function startReference(options: ReferenceStart): Promise<DnsServer> {
  const started = Date.now();
  const child = spawnPinned(options.binary, options.args, options.cpus);
  const log = watchLog(child);
  const stop = async () => {
    await terminate(child);
    fs.rmSync(options.dir, { recursive: true, force: true });
  };
  try {
    const ready = await waitForSoa(options.port, options.zone, () => hasExited(child), options.timeoutMs);
    return {
      name: options.name,
      pid: child.pid!,
      port: options.port,
      description: options.description,
      readyMs: ready - started,
      log,
      hasExited: () => hasExited(child),
      stop,
    };
  } catch (e) {
    const text = log.tail();
    await stop();
    throw new Error(`${options.name} did not start: ${e instanceof Error ? e.message : String(e)}\n${text}`, { cause: e });
  }
}

/** Exits 1 after printing what is missing (a prerequisite check's text), when something is. */
export function requirePrerequisites(missing: string | undefined): void {
  if (missing === undefined) return;
  console.error(missing);
  process.exit(1);
}

/**
 * Where a bench pins its processes on a machine of two cores or more: the server under test (all
 * its threads) on CPU 0, the load tools (and origins) on CPU 1, so they never compete for a core;
 * nothing pinned on one core.
 */
export function benchCpus(): { serverCpus: string | undefined; clientCpus: string | undefined } {
  const pinned = os.availableParallelism() >= 2;
  return { serverCpus: pinned ? '0' : undefined, clientCpus: pinned ? '1' : undefined };
}
