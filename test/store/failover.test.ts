// The agreed health check states and the failover log in the store, on both engines: a verdict is a
// compare-and-set (a second node's stale verdict is refused and logs nothing), the log keeps the
// newest entries per RRset, rewriting an RRset drops the states of its removed addresses.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore, type Store } from '../../src/store/database.ts';
import { failoverLog, failoverLogKept, failoverState, storeVerdict } from '../../src/store/failover.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { upsertRrset, findRrset } from '../../src/store/rrsets.ts';
import { createPostgresDatabase, engines, type TestDatabase } from '../support/engines.ts';
import { insertAccountZone } from '../support/store-rows.ts';

const now = new Date().toISOString();
const rrset = (addresses: string[]) => ({
  name: 'www.fo.example',
  type: 'A',
  ttl: 60,
  meta: '{"failover":{"protocol":"TCP","port":80}}',
  pickers: '[{"type":"healthcheck"}]',
  healthcheck: 1,
  records: addresses.map((a) => ({ content: JSON.stringify([a]), enabled: 1, meta: '{}' })),
});

for (const engine of engines()) {
  describe(`failover states and log (${engine})`, () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-failover-'));
    let database: TestDatabase | undefined;
    let store: Store;
    let zoneId: number;
    let rrsetId: number;

    before(async () => {
      database = engine === 'postgres' ? await createPostgresDatabase() : undefined;
      store = openStore({ dataDir, databaseUrl: database?.url });
      await migrateToLatest(store);
      zoneId = (await insertAccountZone(store.db, 'fo.example', now)).zoneId;
      rrsetId = (await upsertRrset(store.db, store.engine, zoneId, rrset(['192.0.2.1', '192.0.2.2']), now, undefined)).rrset.id;
    });
    after(async () => {
      await store.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    test('a first verdict of up logs nothing; a change is stored once, whoever else saw it', async () => {
      const first = { rrsetId, address: '192.0.2.1', from: undefined, to: true, at: 1000 };
      assert.equal(await storeVerdict(store.db, store.engine, first), true);
      // Another node's first verdict comes second: refused.
      assert.equal(await storeVerdict(store.db, store.engine, { ...first, to: false }), false);
      assert.equal((await failoverLog(store.db, rrsetId, 0, 10)).total, 0);
      const down = { rrsetId, address: '192.0.2.1', from: true, to: false, at: 1010 };
      assert.equal(await storeVerdict(store.db, store.engine, down), true);
      assert.equal(await storeVerdict(store.db, store.engine, down), false);
      assert.equal((await failoverState(store.db, rrsetId, '192.0.2.1'))?.up, 0);
      const log = await failoverLog(store.db, rrsetId, 0, 10);
      assert.deepEqual({ entries: log.entries.map((e) => ({ ...e })), total: log.total }, { entries: [{ action: 'down', address: '192.0.2.1', time: 1010 }], total: 1 });
      // A first verdict of down is a change from the up a record counts as until checked.
      assert.equal(await storeVerdict(store.db, store.engine, { rrsetId, address: '192.0.2.2', from: undefined, to: false, at: 1020 }), true);
      assert.equal((await failoverLog(store.db, rrsetId, 0, 10)).entries[0]?.address, '192.0.2.2');
    });

    test(`the log keeps the newest ${String(failoverLogKept)} entries of an RRset`, async () => {
      let up = false;
      for (let i = 0; i < failoverLogKept + 5; i++) {
        assert.equal(await storeVerdict(store.db, store.engine, { rrsetId, address: '192.0.2.1', from: up, to: !up, at: 2000 + i }), true);
        up = !up;
      }
      const { entries, total } = await failoverLog(store.db, rrsetId, 0, 1000);
      assert.equal(total, failoverLogKept);
      assert.equal(entries.length, failoverLogKept);
      assert.equal(entries[0]?.time, 2000 + failoverLogKept + 4);
      assert.equal(entries.at(-1)?.time, 2005);
    });

    test('rewriting the RRset drops the states of removed addresses; deleting it drops everything', async () => {
      const existing = await findRrset(store.db, zoneId, 'www.fo.example', 'A');
      await upsertRrset(store.db, store.engine, zoneId, rrset(['192.0.2.1']), now, existing);
      assert.notEqual(await failoverState(store.db, rrsetId, '192.0.2.1'), undefined);
      assert.equal(await failoverState(store.db, rrsetId, '192.0.2.2'), undefined);
      await store.db.deleteFrom('rrsets').where('id', '=', rrsetId).execute();
      assert.equal(await failoverState(store.db, rrsetId, '192.0.2.1'), undefined);
      assert.equal((await failoverLog(store.db, rrsetId, 0, 10)).total, 0);
    });
  });
}
