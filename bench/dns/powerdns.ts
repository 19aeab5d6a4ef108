// PowerDNS Authoritative (Debian `pdns-server` + `pdns-backend-bind`) as a reference: the bind backend
// serving one zone file, run unprivileged from a scratch directory (see
// /work/shared/design/benchmarks.md). Its packet cache stays on (the default), as edgeplane's
// response cache does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { terminate, watchLog } from '../api/server.ts';
import { waitForSoa } from './dns-client.ts';
import type { ZoneSource } from './knot.ts';
import { findProgram, freeDnsPort, hasExited, spawnPinned, versionOf, type DnsServer } from './server.ts';

export async function startPowerDns(source: ZoneSource, receivers: number, cpus: string | undefined, timeoutMs = 120_000): Promise<DnsServer> {
  const binary = findProgram('pdns_server');
  if (binary === undefined) throw new Error('pdns_server is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdns-dns-bench-'));
  const port = await freeDnsPort();
  fs.writeFileSync(path.join(dir, 'named.conf'), `zone "${source.zone}" { type master; file "${source.file}"; };\n`);
  fs.writeFileSync(
    path.join(dir, 'pdns.conf'),
    [
      'launch=bind',
      `bind-config=${path.join(dir, 'named.conf')}`,
      'local-address=127.0.0.1',
      `local-port=${port}`,
      `receiver-threads=${receivers}`,
      // Per receiver thread: one distributor each, so "N workers" is N receivers with N distributors.
      'distributor-threads=1',
      // Several receivers get a socket each (as Knot's workers and edgeplane's do), not one shared.
      `reuseport=${receivers > 1 ? 'yes' : 'no'}`,
      // No security-status lookup on the Internet at start.
      'security-poll-suffix=',
      `socket-dir=${dir}`,
      'daemon=no',
      'guardian=no',
      'setuid=',
      'setgid=',
      '',
    ].join('\n'),
  );
  const started = Date.now();
  const child = spawnPinned(binary, [`--config-dir=${dir}`], cpus);
  const log = watchLog(child);
  const stop = async () => {
    await terminate(child);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ready = await waitForSoa(port, source.zone, () => hasExited(child), timeoutMs);
    return {
      name: 'PowerDNS',
      pid: child.pid!,
      port,
      description:
        `PowerDNS ${versionOf(binary, ['--version'], /Authoritative Server (\S+)/)}: bind backend, receiver-threads ${receivers}, ` +
        `distributor-threads 1 (per receiver), reuseport ${receivers > 1 ? 'yes' : 'no'}, packet cache on (default)${cpus === undefined ? '' : `, CPUs ${cpus}`}`,
      readyMs: ready - started,
      log,
      hasExited: () => hasExited(child),
      stop,
    };
  } catch (e) {
    const text = log.tail();
    await stop();
    throw new Error(`PowerDNS did not start: ${e instanceof Error ? e.message : String(e)}\n${text}`, { cause: e });
  }
}
