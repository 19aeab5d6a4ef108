// The agreed health check states and the failover log in the store, on both engines: a verdict is a
// compare-and-set (a second node's stale verdict is refused and logs nothing), the log keeps the
// newest entries per RRset, rewriting an RRset drops the states of its removed addresses.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { failoverLog, failoverLogKept, failoverState, storeVerdict } from '../../src/store/failover.ts';
import { upsertRrset, findRrset } from '../../src/store/rrsets.ts';
import { engines } from '../support/engines.ts';
import { insertAccountZone } from '../support/store-rows.ts';
import { suiteStore } from '../support/suite-store.ts';

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
    const opened = suiteStore(engine, 'failover');
    let zoneId: number;
    let rrsetId: number;

    before(async () => {
      zoneId = (await insertAccountZone(opened().db, 'fo.example', now)).zoneId;
      rrsetId = (await upsertRrset(opened().db, opened().engine, zoneId, rrset(['192.0.2.1', '192.0.2.2']), now, undefined)).rrset.id;
    });

    test('a first verdict of up logs nothing; a change is stored once, whoever else saw it', async () => {
      const first = { rrsetId, address: '192.0.2.1', from: undefined, to: true, at: 1000 };
      assert.equal(await storeVerdict(opened().db, opened().engine, first), true);
      // Another node's first verdict comes second: refused.
      assert.equal(await storeVerdict(opened().db, opened().engine, { ...first, to: false }), false);
      assert.equal((await failoverLog(opened().db, rrsetId, 0, 10)).total, 0);
      const down = { rrsetId, address: '192.0.2.1', from: true, to: false, at: 1010 };
      assert.equal(await storeVerdict(opened().db, opened().engine, down), true);
      assert.equal(await storeVerdict(opened().db, opened().engine, down), false);
      assert.equal((await failoverState(opened().db, rrsetId, '192.0.2.1'))?.up, 0);
      const log = await failoverLog(opened().db, rrsetId, 0, 10);
      assert.deepEqual({ entries: log.entries.map((e) => ({ ...e })), total: log.total }, { entries: [{ action: 'down', address: '192.0.2.1', time: 1010 }], total: 1 });
      // A first verdict of down is a change from the up a record counts as until checked.
      assert.equal(await storeVerdict(opened().db, opened().engine, { rrsetId, address: '192.0.2.2', from: undefined, to: false, at: 1020 }), true);
      assert.equal((await failoverLog(opened().db, rrsetId, 0, 10)).entries[0]?.address, '192.0.2.2');
    });

    test(`the log keeps the newest ${String(failoverLogKept)} entries of an RRset`, async () => {
      let up = false;
      for (let i = 0; i < failoverLogKept + 5; i++) {
        assert.equal(await storeVerdict(opened().db, opened().engine, { rrsetId, address: '192.0.2.1', from: up, to: !up, at: 2000 + i }), true);
        up = !up;
      }
      const { entries, total } = await failoverLog(opened().db, rrsetId, 0, 1000);
      assert.equal(total, failoverLogKept);
      assert.equal(entries.length, failoverLogKept);
      assert.equal(entries[0]?.time, 2000 + failoverLogKept + 4);
      assert.equal(entries.at(-1)?.time, 2005);
    });

    test('rewriting the RRset drops the states of removed addresses; deleting it drops everything', async () => {
      const existing = await findRrset(opened().db, zoneId, 'www.fo.example', 'A');
      await upsertRrset(opened().db, opened().engine, zoneId, rrset(['192.0.2.1']), now, existing);
      assert.notEqual(await failoverState(opened().db, rrsetId, '192.0.2.1'), undefined);
      assert.equal(await failoverState(opened().db, rrsetId, '192.0.2.2'), undefined);
      await opened().db.deleteFrom('rrsets').where('id', '=', rrsetId).execute();
      assert.equal(await failoverState(opened().db, rrsetId, '192.0.2.1'), undefined);
      assert.equal((await failoverLog(opened().db, rrsetId, 0, 10)).total, 0);
    });
  });
}
