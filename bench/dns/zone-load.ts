// Scenario 4: a large zone loaded at start. edgeplane gets the zone through its API (zone-file
// import in chunks) on a data dir of its own, then is restarted on that data and timed from spawn
// to its "DNS listening" log line; Knot loads the same records from a file and is timed to its SOA
// answer. Memory is the resident set after loading, less the same server's with an (almost) empty zone.
import fs from 'node:fs';
import path from 'node:path';
import { sleep } from '../api/server.ts';
import { EdgeplaneApi, startEdgeplane, type Edgeplane } from './edgeplane.ts';
import { startKnot } from './knot.ts';
import { memory, type DnsServer } from './server.ts';
import { countRecords, loadZone, namesFor, zoneFileHeader, zoneLines } from './zone.ts';

export interface LoadFigures {
  label: string;
  /** Why the measurement did not complete, with what was seen until then. */
  failure: string | undefined;
  /** Spawn to the "DNS listening" line (edgeplane only), seconds. */
  listeningS: number;
  /** load_ms as edgeplane logged it, seconds. */
  loggedLoadS: number;
  /** Spawn to the zone's SOA answered, seconds. */
  soaS: number;
  /** Resident set when the SOA was first answered, and after settling, KiB. */
  rssAtReadyKiB: number;
  rssKiB: number;
  peakKiB: number;
  /** The same server's settled resident set with no (or a two-record) zone, KiB. */
  baselineKiB: number;
}

export interface LoadSetup {
  records: number;
  names: number;
  /** How the zone got into edgeplane, printed. */
  edgeplaneSetup: string;
  knotFile: string;
  emptyZoneFile: string;
  edgeplaneDataDir: string;
}

/** Seconds between the zone answered and the resident set reported: garbage from loading may go by then. */
export const settleS = 5;
/** Lines per import request: the import takes at most 100,000 entries (and 10 MiB) per zone file. */
const chunkLines = 100_000;

/** Writes the zone file for Knot and loads the same records into a fresh edgeplane data dir. */
export async function prepareLoad(dir: string, records: number, progress: (line: string) => void): Promise<LoadSetup> {
  const names = namesFor(records);
  const lines = [...zoneLines(names)];
  const serial = 1;
  const knotFile = path.join(dir, `${loadZone}.zone`);
  fs.writeFileSync(knotFile, `${zoneFileHeader(loadZone, serial)}${lines.join('\n')}\n`);
  const emptyZoneFile = path.join(dir, 'empty.zone');
  fs.writeFileSync(emptyZoneFile, zoneFileHeader(loadZone, serial));

  const edgeplaneDataDir = path.join(dir, 'edgeplane-load');
  fs.mkdirSync(edgeplaneDataDir);
  const started = Date.now();
  // One DNS thread while importing: each thread applies every change, more would only slow setup.
  const server = await startEdgeplane({ dataDir: edgeplaneDataDir, cpus: undefined, workers: 1, logLevel: 'warn', zone: undefined });
  try {
    const api = await EdgeplaneApi.login(server.api);
    await api.createZone(loadZone);
    let created = 0;
    for (let from = 0; from < lines.length; from += chunkLines) {
      const chunk = lines.slice(from, from + chunkLines);
      // Owner names are relative to the zone, the origin the import starts with: no $ORIGIN entry needed.
      const result = await api.importZone(loadZone, `${chunk.join('\n')}\n`);
      if (result.skipped.length > 0) throw new Error(`edgeplane skipped ${result.skipped.length} records while importing, e.g. ${result.skipped[0]?.reason ?? ''}`);
      created += result.created;
      progress(`  imported ${created.toLocaleString('en-US')} of ${lines.length.toLocaleString('en-US')} RRsets`);
    }
  } finally {
    await server.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  return {
    records: countRecords(names),
    names,
    edgeplaneSetup: `zone-file import through the API (POST /dns/v2/zones/${loadZone}/import, ${chunkLines.toLocaleString('en-US')} lines per request, ${seconds.toFixed(0)} s; not measured)`,
    knotFile,
    emptyZoneFile,
    edgeplaneDataDir,
  };
}

/** Samples a process's resident set until stopped, so a server that dies still leaves its peak. */
function sampleMemory(pid: () => number | undefined): { stop: () => number } {
  let peak = 0;
  const timer = setInterval(() => {
    const current = pid();
    if (current === undefined) return;
    try {
      peak = Math.max(peak, memory(current).rssKiB);
    } catch {
      // exited
    }
  }, 250);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

async function settledMemory(server: DnsServer): Promise<{ rssKiB: number; peakKiB: number }> {
  await sleep(settleS * 1000);
  return memory(server.pid);
}

/** A server's settled resident set with (almost) nothing loaded, KiB. */
async function baseline(start: () => Promise<DnsServer>): Promise<number> {
  const server = await start();
  try {
    return (await settledMemory(server)).rssKiB;
  } finally {
    await server.stop();
  }
}

function failed(label: string, why: string): LoadFigures {
  return { label, failure: why, listeningS: NaN, loggedLoadS: NaN, soaS: NaN, rssAtReadyKiB: NaN, rssKiB: NaN, peakKiB: NaN, baselineKiB: NaN };
}

/** edgeplane restarted on the loaded data dir (`workers` DNS threads), and on an empty one for the baseline. */
export async function measureEdgeplaneLoad(setup: LoadSetup, workers: number | undefined, emptyDataDir: string, timeoutMs: number): Promise<LoadFigures> {
  const label = workers === undefined ? 'edgeplane' : `edgeplane, ${workers} DNS thread${workers === 1 ? '' : 's'}`;
  const baselineKiB = await baseline(() => startEdgeplane({ dataDir: emptyDataDir, cpus: undefined, workers, logLevel: 'info', zone: undefined }));
  let server: Edgeplane | undefined;
  let pid: number | undefined;
  const sampler = sampleMemory(() => pid);
  const started = Date.now();
  try {
    server = await startEdgeplane({ dataDir: setup.edgeplaneDataDir, cpus: undefined, workers, logLevel: 'info', zone: loadZone, timeoutMs, onSpawn: (p) => (pid = p) });
    const rssAtReadyKiB = memory(server.pid).rssKiB;
    const { rssKiB, peakKiB } = await settledMemory(server);
    const listening = server.listening;
    return {
      label,
      failure: undefined,
      listeningS: listening === undefined ? NaN : listening.atMs / 1000,
      loggedLoadS: listening === undefined ? NaN : listening.loadMs / 1000,
      soaS: server.readyMs / 1000,
      rssAtReadyKiB,
      rssKiB,
      peakKiB: Math.max(peakKiB, sampler.stop()),
      baselineKiB,
    };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const tail = message.split('\n').filter((l) => l.trim() !== '').slice(-3).join(' | ').slice(0, 600);
    const peak = sampler.stop();
    return { ...failed(label, `did not serve the zone after ${((Date.now() - started) / 1000).toFixed(0)} s (peak RSS seen ${(peak / 1024).toFixed(0)} MiB): ${tail}`), peakKiB: peak, baselineKiB };
  } finally {
    sampler.stop();
    await server?.stop();
  }
}

export async function measureKnotLoad(setup: LoadSetup, timeoutMs: number): Promise<LoadFigures> {
  const baselineKiB = await baseline(() => startKnot({ zone: loadZone, file: setup.emptyZoneFile }, 1, undefined));
  let server: DnsServer | undefined;
  try {
    server = await startKnot({ zone: loadZone, file: setup.knotFile }, 1, undefined, timeoutMs);
    const rssAtReadyKiB = memory(server.pid).rssKiB;
    const { rssKiB, peakKiB } = await settledMemory(server);
    return { label: 'Knot', failure: undefined, listeningS: NaN, loggedLoadS: NaN, soaS: server.readyMs / 1000, rssAtReadyKiB, rssKiB, peakKiB, baselineKiB };
  } catch (e) {
    return { ...failed('Knot', e instanceof Error ? e.message.split('\n')[0]! : String(e)), baselineKiB };
  } finally {
    await server?.stop();
  }
}
