// Knot DNS (Debian `knot`) as a reference: knotd from a scratch directory, one zone from a file,
// unprivileged high port (see /work/shared/design/benchmarks.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { terminate, watchLog } from '../api/server.ts';
import { waitForSoa } from './dns-client.ts';
import { findProgram, freeDnsPort, hasExited, spawnPinned, versionOf, type DnsServer } from './server.ts';

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
  const started = Date.now();
  const child = spawnPinned(binary, ['-c', config], cpus);
  const log = watchLog(child);
  const stop = async () => {
    await terminate(child);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ready = await waitForSoa(port, source.zone, () => hasExited(child), timeoutMs);
    return {
      name: 'Knot',
      pid: child.pid!,
      port,
      description: `Knot DNS ${versionOf(binary, ['-V'], /version (\S+)/)}: udp-workers ${workers}, tcp-workers 1, background-workers 1${cpus === undefined ? '' : `, CPUs ${cpus}`}`,
      readyMs: ready - started,
      log,
      hasExited: () => hasExited(child),
      stop,
    };
  } catch (e) {
    const text = log.tail();
    await stop();
    throw new Error(`Knot did not start: ${e instanceof Error ? e.message : String(e)}\n${text}`, { cause: e });
  }
}
