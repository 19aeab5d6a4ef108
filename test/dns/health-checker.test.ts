// The health checker on its own, on a real SQLite store and real TCP probes: which records it reads,
// what it reports, its cap on the number of records, and what it does when checks go away.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { HealthChecker, type HealthReport } from '../../src/dns/health/checker.ts';
import { alone } from '../../src/dns/health/coordination.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { insertAccountZone } from '../support/store-rows.ts';

let dir: string;
let store: Store;
let closedPort: number;
const now = new Date().toISOString();

/** An RRset of `addresses` with a TCP check on a port nobody listens on. */
async function addRrset(zoneId: number, name: string, addresses: string[], failover: unknown = { protocol: 'TCP', port: closedPort, frequency: 10, timeout: 1 }) {
  const rrset = await store.db
    .insertInto('rrsets')
    .values({ zone_id: zoneId, name, type: 'A', ttl: 60, meta: JSON.stringify({ failover }), pickers: '[{"type":"healthcheck","limit":0,"strict":false}]', healthcheck: 1, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const [position, address] of addresses.entries()) {
    await store.db.insertInto('records').values({ rrset_id: rrset.id, position, content: JSON.stringify([address]), enabled: 1, meta: '{}' }).execute();
  }
  return rrset.id;
}

function checker(reports: HealthReport[], lines: string[], limit?: number) {
  const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _encoding, done) => { lines.push(chunk.toString()); done(); } }));
  return new HealthChecker({ db: store.db, engine: 'sqlite', coordination: alone, thresholds: { fall: 3, rise: 2 }, allowPrivate: true, logger, limit, report: (r) => { reports.push(r); return Promise.resolve(); } });
}

const settle = async (reports: HealthReport[], count: number) => {
  for (let i = 0; i < 100 && reports.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 20));
};

let zoneId: number;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-health-'));
  store = openStore({ dataDir: dir, databaseUrl: undefined });
  await migrateToLatest(store);
  // A port that was free a moment ago: connections to it are refused.
  const probe = net.createServer();
  closedPort = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as net.AddressInfo).port)));
  await new Promise((resolve) => probe.close(resolve));
  zoneId = (await insertAccountZone(store.db, 'hc.example', now)).zoneId;
});
after(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('failing records are reported down with the RDATA the server holds; removed checks are reported up', async () => {
  const id = await addRrset(zoneId, 'www.hc.example', ['127.0.0.1', '127.0.0.2']);
  const reports: HealthReport[] = [];
  const health = checker(reports, []);
  await health.refresh();
  await settle(reports, 2);
  assert.deepEqual(
    reports.map((r) => [r.owner, r.type, Buffer.from(r.rdata, 'latin1').join('.'), r.up]).sort(),
    [['www.hc.example', 1, '127.0.0.1', false], ['www.hc.example', 1, '127.0.0.2', false]],
  );
  await store.db.deleteFrom('rrsets').where('id', '=', id).execute();
  await health.refresh();
  assert.deepEqual(reports.slice(2).map((r) => r.up), [true, true]);
  health.stop();
});

test('at most `limit` records are checked; the log says how many are not', async () => {
  const id = await addRrset(zoneId, 'many.hc.example', ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']);
  const reports: HealthReport[] = [];
  const lines: string[] = [];
  const health = checker(reports, lines, 3);
  await health.refresh();
  await settle(reports, 3);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(reports.length, 3);
  assert.match(lines.join(''), /more than 3 records to check; 2 are not checked/);
  health.stop();
  await store.db.deleteFrom('rrsets').where('id', '=', id).execute();
});

test('a stored regexp that cannot run in linear time is logged and not run', async () => {
  const id = await addRrset(zoneId, 'old.hc.example', ['127.0.0.1'], { protocol: 'HTTP', port: closedPort, regexp: '(a)\\1' });
  const reports: HealthReport[] = [];
  const lines: string[] = [];
  const health = checker(reports, lines);
  await health.refresh();
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(reports.length, 0);
  assert.match(lines.join(''), /regexp cannot run in linear time/);
  health.stop();
  await store.db.deleteFrom('rrsets').where('id', '=', id).execute();
});
