// Knot DNS (Debian `knot`) as a reference: knotd from a scratch directory, one zone from a file,
// unprivileged high port (see /work/shared/design/benchmarks.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/support/free-port.ts';
import { findProgram, startReference, versionOf, type DnsServer } from './server.ts';

export interface ZoneSource {
  zone: string;
  /** A complete zone file (SOA first). */
  file: string;
}

/** `signed`: Knot signs the zone when it loads it (its default policy: ECDSA P-256, NSEC) and serves the signed copy. */
export async function startKnot(source: ZoneSource, workers: number, cpus: string | undefined, timeoutMs = 120_000, signed = false): Promise<DnsServer> {
  const binary = findProgram('knotd');
  if (binary === undefined) throw new Error('knotd is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'knot-bench-'));
  const port = await freePort();
  // Knot keeps the keys it makes for signing in its KASP database; the directory must exist.
  fs.mkdirSync(path.join(dir, 'db', 'keys'), { recursive: true });
  const config = writeKnotConfig(dir, port, source, {
    workers,
    database: [`    kasp-db: ${path.join(dir, 'db', 'keys')}`],
    // The file is the only source and nothing changes the zone: no journal.
    template: ['    journal-content: none'],
    // Signed in memory at load; never written back over the source file.
    zone: signed ? ['    dnssec-signing: on', '    zonefile-sync: -1'] : [],
  });
  return startReference({
    name: 'Knot',
    binary,
    args: ['-c', config],
    cpus,
    dir,
    port,
    zone: source.zone,
    timeoutMs,
    description: `Knot DNS ${versionOf(binary, ['-V'], /version (\S+)/)}: udp-workers ${workers}, tcp-workers 1, background-workers 1${cpus === undefined ? '' : `, CPUs ${cpus}`}${signed ? ', zone signed at load (dnssec-signing: on, default policy)' : ''}`,
  });
}

/**
 * knotd's configuration file in `dir` (its run and database directory, which must exist): listening on
 * 127.0.0.1:`port`, serving `source` from its file, with the lines given for the database section, an
 * optional acl section, the default template and the zone. Returns its path.
 */
export function writeKnotConfig(dir: string, port: number, source: ZoneSource, extra: { workers?: number; database?: string[]; acl?: string[]; template: string[]; zone: string[] }): string {
  const config = path.join(dir, 'knot.conf');
  fs.writeFileSync(
    config,
    [
      'server:',
      `    listen: 127.0.0.1@${String(port)}`,
      `    udp-workers: ${String(extra.workers ?? 1)}`,
      '    tcp-workers: 1',
      '    background-workers: 1',
      `    rundir: ${dir}`,
      'log:',
      '  - target: stderr',
      '    any: info',
      'database:',
      `    storage: ${path.join(dir, 'db')}`,
      ...(extra.database ?? []),
      ...(extra.acl === undefined ? [] : ['acl:', ...extra.acl]),
      'template:',
      '  - id: default',
      ...extra.template,
      'zone:',
      `  - domain: ${source.zone}`,
      `    file: ${source.file}`,
      ...extra.zone,
      '',
    ].join('\n'),
  );
  return config;
}
