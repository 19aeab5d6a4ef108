// Scenario 6: one record of the large zone changed, then transferred: IXFR from the serial before
// the change (what a secondary following NOTIFY asks for) and, for scale, AXFR; edgeplane (its zone
// journal) against Knot DNS as the primary (its own journal, the change made with knotc). Measured
// from the client: octets and messages received, milliseconds from connecting to the last message.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import packet from 'dns-packet';
import { sleep } from '../api/server.ts';
import { ask, soaQuery } from './dns-client.ts';
import type { EdgeplaneApi } from './edgeplane.ts';
import { writeKnotConfig, type ZoneSource } from './knot.ts';
import { freePort } from '../../test/support/free-port.ts';
import { findProgram, startReference, versionOf, type DnsServer } from './server.ts';
import { hasPickers, kindOf, ttl } from './zone.ts';

export interface Transfer {
  octets: number;
  messages: number;
  records: number;
  ms: number;
}

export interface TransferFigures {
  name: string;
  description: string;
  /** The serials of the change. */
  from: number;
  to: number;
  /** Median of the IXFR runs. */
  ixfr: Transfer;
  axfr: Transfer;
}

/** IXFR runs per server: the median is reported. */
const ixfrRuns = 21;
/** The new address of the changed record (RFC 5737 TEST-NET-3). */
const changedAddress = '203.0.113.77';

/** The first plain A name (no pickers in any variant): the record the scenario changes. */
export function changedName(zone: string): string {
  let i = 1;
  while (kindOf(i) !== 'a' || hasPickers(i)) i++;
  return `host${String(i)}.${zone}`;
}

function ixfrQuery(zone: string, serial: number): Buffer {
  return packet.encode({
    type: 'query',
    id: 4243,
    flags: 0,
    questions: [{ name: zone, type: 'IXFR', class: 'IN' }],
    authorities: [{ name: zone, type: 'SOA', ttl: 0, data: { mname: 'ns.invalid', rname: 'x.invalid', serial, refresh: 0, retry: 0, expire: 0, minimum: 0 } }],
  });
}

/** One transfer over TCP, read until the answer's closing SOA (or the SOA alone). */
export function transfer(port: number, query: Buffer): Promise<Transfer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect({ port, host: '127.0.0.1' });
    let octets = 0;
    let messages = 0;
    let records = 0;
    let firstSerial: number | undefined;
    let pending = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`transfer unfinished after ${String(messages)} messages`));
    }, 60_000);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      octets += chunk.length;
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const answers = packet.decode(pending.subarray(2, 2 + pending.readUInt16BE(0))).answers ?? [];
        pending = pending.subarray(2 + pending.readUInt16BE(0));
        messages++;
        records += answers.length;
        const first = answers[0];
        if (firstSerial === undefined && first?.type === 'SOA') firstSerial = first.data.serial;
        const last = answers.at(-1);
        const closed = (records === 1 && messages === 1) || (records > 1 && last?.type === 'SOA' && last.data.serial === firstSerial);
        if (closed || answers.length === 0) {
          clearTimeout(timer);
          socket.destroy();
          resolve({ octets, messages, records, ms: performance.now() - started });
          return;
        }
      }
    });
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from([query.length >> 8, query.length & 255]), query])));
  });
}

async function serialOf(port: number, zone: string): Promise<number> {
  const soa = (await ask(port, soaQuery(zone)))?.answers?.find((a) => a.type === 'SOA');
  return soa?.type === 'SOA' ? (soa.data.serial ?? 0) : 0;
}

async function waitForSerialChange(port: number, zone: string, from: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const serial = await serialOf(port, zone);
    if (serial !== from && serial !== 0) return serial;
    if (Date.now() > deadline) throw new Error(`the serial of ${zone} never moved from ${String(from)}`);
    await sleep(20);
  }
}

const median = (runs: Transfer[]): Transfer => [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)] ?? { octets: 0, messages: 0, records: 0, ms: 0 };

/** Changes one record on a started primary through `change`, then measures its transfers. */
async function measurePrimary(server: DnsServer, zone: string, change: () => Promise<void>): Promise<TransferFigures> {
  const from = await serialOf(server.port, zone);
  await change();
  const to = await waitForSerialChange(server.port, zone, from);
  const runs: Transfer[] = [];
  for (let i = 0; i < ixfrRuns; i++) runs.push(await transfer(server.port, ixfrQuery(zone, from)));
  const axfr = await transfer(server.port, packet.encode({ type: 'query', id: 4244, flags: 0, questions: [{ name: zone, type: 'AXFR', class: 'IN' }] }));
  return { name: server.name, description: server.description, from, to, ixfr: median(runs), axfr };
}

/** edgeplane, already started with transfers allowed: the change through its API. */
export function measureEdgeplaneIxfr(server: DnsServer, api: EdgeplaneApi, zone: string): Promise<TransferFigures> {
  return measurePrimary(server, zone, () => api.putRrsets(zone, [{ name: changedName(zone), type: 'A', body: { ttl, resource_records: [{ content: [changedAddress] }] } }], 1));
}

/** Knot as the primary of the zone file, keeping its journal of changes; the change through knotc. */
export async function measureKnotIxfr(source: ZoneSource, cpus: string | undefined): Promise<TransferFigures> {
  const knotd = findProgram('knotd');
  const knotc = findProgram('knotc');
  if (knotd === undefined || knotc === undefined) throw new Error('knotd and knotc are needed (package knot)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'knot-ixfr-bench-'));
  const port = await freePort();
  // The journal lives in the database storage, which must exist.
  fs.mkdirSync(path.join(dir, 'db'));
  const config = writeKnotConfig(dir, port, source, {
    acl: ['  - id: transfer', '    address: 127.0.0.1', '    action: transfer'],
    // Changes are kept for IXFR; the source file is never written back.
    template: ['    journal-content: changes', '    zonefile-sync: -1'],
    zone: ['    acl: transfer'],
  });
  const server = await startReference({
    name: 'Knot',
    binary: knotd,
    args: ['-c', config],
    cpus,
    dir,
    port,
    zone: source.zone,
    timeoutMs: 120_000,
    description: `Knot DNS ${versionOf(knotd, ['-V'], /version (\S+)/)} as primary: journal-content changes, the change made with knotc zone-begin/unset/set/commit`,
  });
  try {
    const control = (...args: string[]) => execFileSync(knotc, ['-c', config, ...args], { encoding: 'utf8' });
    const owner = `${changedName(source.zone)}.`;
    return await measurePrimary(server, source.zone, () => {
      control('zone-begin', source.zone);
      control('zone-unset', source.zone, owner, 'A');
      control('zone-set', source.zone, owner, String(ttl), 'A', changedAddress);
      control('zone-commit', source.zone);
      return Promise.resolve();
    });
  } finally {
    await server.stop();
  }
}
