// Knot DNS (Debian `knot`) as a reference: knotd from a scratch directory, one zone from a file,
// unprivileged high port (see /work/shared/design/benchmarks.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findProgram, freeDnsPort, startReference, versionOf, type DnsServer } from './server.ts';

export interface ZoneSource {
  zone: string;
  /** A complete zone file (SOA first). */
  file: string;
}

export async function startKnot(source: ZoneSource, workers: number, cpus: string | undefined, timeoutMs = 120_000): Promise<DnsServer> {
  const binary = findProgram('knotd');
  if (binary === undefined) throw new Error('knotd is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'knot-bench-'));
  const port = await freeDnsPort();
  const config = path.join(dir, 'knot.conf');
  fs.writeFileSync(
    config,
    [
      'server:',
      `    listen: 127.0.0.1@${port}`,
      `    udp-workers: ${workers}`,
      '    tcp-workers: 1',
      '    background-workers: 1',
      `    rundir: ${dir}`,
      'log:',
      '  - target: stderr',
      '    any: info',
      'database:',
      `    storage: ${path.join(dir, 'db')}`,
      'template:',
      '  - id: default',
      // The file is the only source and nothing changes the zone: no journal.
      '    journal-content: none',
      'zone:',
      `  - domain: ${source.zone}`,
      `    file: ${source.file}`,
      '',
    ].join('\n'),
  );
  return startReference({
    name: 'Knot',
    binary,
    args: ['-c', config],
    cpus,
    dir,
    port,
    zone: source.zone,
    timeoutMs,
    description: `Knot DNS ${versionOf(binary, ['-V'], /version (\S+)/)}: udp-workers ${workers}, tcp-workers 1, background-workers 1${cpus === undefined ? '' : `, CPUs ${cpus}`}`,
  });
}
