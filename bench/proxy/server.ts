// What the scenarios need from each proxy under test, and the machinery around them: ports below the
// ephemeral range, the prerequisites, and running the load tools so the bench host names resolve.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ProcessLog } from '../api/server.ts';
import { findProgram } from '../dns/server.ts';
import { benchNames } from './resources.ts';

export interface ProxyServer {
  name: string;
  /** The process whose CPU time (all its threads and child processes) is charged to the proxy. */
  pid: number;
  httpPort: number;
  httpsPort: number;
  /** Version and the configuration that matters for the figures, printed with them. */
  description: string;
  log: ProcessLog;
  hasExited(): boolean;
  /** Stops the process and removes its own files. */
  stop(): Promise<void>;
}

export function nginxModule(): string | undefined {
  const candidates = ['/usr/lib/nginx/modules/ngx_http_geoip2_module.so', '/usr/share/nginx/modules/ngx_http_geoip2_module.so'];
  return candidates.find((file) => fs.existsSync(file));
}

/** What is missing to run the benchmark, with how to install it; undefined when nothing is. */
export function missingPrerequisites(): string | undefined {
  const missing = [
    findProgram('nginx') ? undefined : 'nginx (package nginx)',
    nginxModule() ? undefined : 'the nginx GeoIP2 module (package libnginx-mod-http-geoip2)',
    findProgram('wrk') ? undefined : 'wrk (package wrk)',
    findProgram('ab') ? undefined : 'ab (package apache2-utils)',
    findProgram('openssl') ? undefined : 'openssl (package openssl)',
    findProgram('taskset') ? undefined : 'taskset (package util-linux)',
  ].filter((m) => m !== undefined);
  const names = hostsProblem();
  if (missing.length === 0 && names === undefined) return undefined;
  return [
    ...(missing.length === 0
      ? []
      : [
          `The proxy benchmark needs nginx, its GeoIP2 module and the load tools; missing: ${missing.join(', ')}.`,
          'Install them with (as root, on Debian or Ubuntu):',
          '',
          "  printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d   # keep Debian from starting the system nginx",
          '  apt-get install -y nginx libnginx-mod-http-geoip2 wrk apache2-utils openssl util-linux',
        ]),
    ...(names === undefined ? [] : [names]),
  ].join('\n');
}

function resolvesToLoopback(name: string): boolean {
  try {
    return execFileSync('getent', ['hosts', name], { encoding: 'utf8' }).startsWith('127.0.0.1');
  } catch {
    return false;
  }
}

function hostsProblem(): string | undefined {
  if (process.getuid?.() === 0 || benchNames.every(resolvesToLoopback)) return undefined;
  return `The load tools must resolve the bench names to 127.0.0.1: run as root (they then get a private /etc/hosts through unshare), or add to /etc/hosts:\n  127.0.0.1 ${benchNames.join(' ')}`;
}

/** A scratch hosts file bind-mounted over /etc/hosts for the load tools; undefined: the names resolve already. */
let hostsFile: string | undefined;

/**
 * wrk and ab take the host of their URL for the TLS server name (SNI) and resolve it themselves, so
 * the bench names must resolve to 127.0.0.1. When /etc/hosts does not have them, the tools run in a
 * private mount namespace (unshare, root only) where a scratch hosts file is bind-mounted over
 * /etc/hosts: nothing outside the tool sees the change.
 */
export function useHosts(dir: string): void {
  if (benchNames.every(resolvesToLoopback)) return;
  hostsFile = path.join(dir, 'hosts');
  fs.writeFileSync(hostsFile, ['127.0.0.1 localhost', ...benchNames.map((n) => `127.0.0.1 ${n}`), ''].join('\n'));
}

/** The command line running a load tool on `cpus` (taskset; undefined: any) with the bench names resolving. */
export function loadToolCommand(program: string, args: string[], cpus: string | undefined): [string, string[]] {
  const binary = findProgram(program) ?? program;
  const pinned = cpus === undefined ? [binary, ...args] : [findProgram('taskset') ?? 'taskset', '-c', cpus, binary, ...args];
  if (hostsFile === undefined) return [pinned[0]!, pinned.slice(1)];
  const quoted = pinned.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return [findProgram('unshare') ?? 'unshare', ['--mount', 'sh', '-c', `mount --bind '${hostsFile}' /etc/hosts && exec ${quoted}`]];
}

/** A bench run's scratch directory and the servers it started, stopped (and the directory removed) by `cleanup` or a signal. */
export interface BenchRun {
  tmp: string;
  running: Set<ProxyServer>;
  cleanup: () => Promise<void>;
}

export function benchRun(prefix: string): BenchRun {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // nginx workers drop root for `nobody`, which must reach the configuration's files.
  fs.chmodSync(tmp, 0o755);
  const running = new Set<ProxyServer>();
  const cleanup = async () => {
    await Promise.allSettled([...running].map((s) => s.stop()));
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanup().then(() => process.exit(130)));
  return { tmp, running, cleanup };
}
