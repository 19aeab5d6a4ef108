// PowerDNS Authoritative (Debian `pdns-server` + `pdns-backend-bind`) as a reference: the bind backend
// serving one zone file, run unprivileged from a scratch directory (see
// /work/shared/design/benchmarks.md). Its packet cache stays on (the default), as edgeplane's
// response cache does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { foregroundUnprivileged } from '../api/powerdns.ts';
import type { ZoneSource } from './knot.ts';
import { freePort } from '../../test/support/free-port.ts';
import { findProgram, startReference, versionOf, type DnsServer } from './server.ts';

export async function startPowerDns(source: ZoneSource, receivers: number, cpus: string | undefined, timeoutMs = 120_000): Promise<DnsServer> {
  const binary = findProgram('pdns_server');
  if (binary === undefined) throw new Error('pdns_server is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdns-dns-bench-'));
  const port = await freePort();
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
      ...foregroundUnprivileged(dir),
      '',
    ].join('\n'),
  );
  return startReference({
    name: 'PowerDNS',
    binary,
    args: [`--config-dir=${dir}`],
    cpus,
    dir,
    port,
    zone: source.zone,
    timeoutMs,
    description: `PowerDNS ${versionOf(binary, ['--version'], /Authoritative Server (\S+)/)}: bind backend, receiver-threads ${receivers}, ` +
        `distributor-threads 1 (per receiver), reuseport ${receivers > 1 ? 'yes' : 'no'}, packet cache on (default)${cpus === undefined ? '' : `, CPUs ${cpus}`}`,
  });
}
