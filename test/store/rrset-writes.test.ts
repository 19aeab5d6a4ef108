// Several RRset writes stored together (writeRrsets, one statement on PostgreSQL), on both engines:
// creates, replacements and deletes in one call, each answered with its RRset as stored (records in
// order, with their ids), the replaced RRsets' old records gone, health states of addresses a
// replacement dropped forgotten and the others kept, and nothing else of the zone touched.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { failoverState, storeVerdict } from '../../src/store/failover.ts';
import { findRrset, upsertRrset, withRecords, writeRrsets, type RrsetData } from '../../src/store/rrsets.ts';
import { engines } from '../support/engines.ts';
import { insertAccountZone } from '../support/store-rows.ts';
import { suiteStore } from '../support/suite-store.ts';

const now = new Date().toISOString();
const rrset = (name: string, type: string, contents: unknown[][]): RrsetData => ({
  name,
  type,
  ttl: 300,
  meta: '{}',
  pickers: null,
  healthcheck: 0,
  records: contents.map((c, i) => ({ content: JSON.stringify(c), enabled: i % 2, meta: `{"n":${String(i)}}` })),
});

/** Rows as plain data: drivers' row objects have their own prototypes. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

for (const engine of engines()) {
  describe(`RRset writes stored together (${engine})`, () => {
    const opened = suiteStore(engine, 'rrset-writes');

    test('creates, replacements and deletes in one call, each answered as stored', async () => {
      const { zoneId } = await insertAccountZone(opened().db, 'writes.example', now);
      const write = (data: RrsetData) => upsertRrset(opened().db, opened().engine, zoneId, data, now, undefined);
      const www = (await write(rrset('www.writes.example', 'A', [['192.0.2.1'], ['192.0.2.2'], ['192.0.2.3']]))).rrset;
      const mail = (await write(rrset('mail.writes.example', 'AAAA', [['2001:db8::1']]))).rrset;
      const gone = (await write(rrset('old.writes.example', 'TXT', [['bye']]))).rrset;
      const kept = (await write(rrset('kept.writes.example', 'A', [['198.51.100.1']]))).rrset;
      for (const address of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) await storeVerdict(opened().db, opened().engine, { rrsetId: www.id, address, from: undefined, to: false, at: 1 });
      await storeVerdict(opened().db, opened().engine, { rrsetId: mail.id, address: '2001:db8::1', from: undefined, to: false, at: 1 });

      const later = '2030-01-01T00:00:00.000Z';
      const stored = await opened().db.transaction().execute((tx) =>
        writeRrsets(tx, opened().engine, zoneId, [
          { upsert: rrset('new.writes.example', 'MX', [[10, 'mx1.example.'], [20, 'mx2.example.'], [30, 'mx3.example.']]), existing: undefined },
          { upsert: { ...rrset('www.writes.example', 'A', [['192.0.2.3'], ['192.0.2.9']]), ttl: 60 }, existing: www },
          { delete: gone },
          { upsert: rrset('mail.writes.example', 'AAAA', []), existing: mail },
        ], later),
      );

      const [created, replaced, deleted, emptied] = stored;
      assert.equal(deleted, undefined);
      assert.ok(created && replaced && emptied);
      assert.deepEqual(created.records.map((r) => [r.position, JSON.parse(r.content), r.enabled, r.meta]), [
        [0, [10, 'mx1.example.'], 0, '{"n":0}'],
        [1, [20, 'mx2.example.'], 1, '{"n":1}'],
        [2, [30, 'mx3.example.'], 0, '{"n":2}'],
      ]);
      assert.equal(created.zone_id, zoneId);
      assert.equal(replaced.id, www.id);
      assert.equal(replaced.ttl, 60);
      assert.equal(replaced.updated_at, later);
      assert.deepEqual(replaced.records.map((r) => r.content), ['["192.0.2.3"]', '["192.0.2.9"]']);
      assert.deepEqual(emptied.records, []);

      // What came back is what the store holds, field by field.
      for (const answered of [created, replaced, emptied]) {
        const row = await findRrset(opened().db, zoneId, answered.name, answered.type);
        assert.ok(row);
        const [read] = await withRecords(opened().db, [row]);
        assert.deepEqual(plain(answered), plain(read));
      }
      assert.equal(await findRrset(opened().db, zoneId, 'old.writes.example', 'TXT'), undefined);
      assert.equal((await opened().db.selectFrom('records').select('id').where('rrset_id', '=', gone.id).execute()).length, 0);
      assert.equal((await opened().db.selectFrom('records').select('id').where('rrset_id', '=', www.id).execute()).length, 2);

      // Health states: the replacement kept 192.0.2.3 and dropped the others; the emptied RRset has none left.
      assert.equal(await failoverState(opened().db, www.id, '192.0.2.1'), undefined);
      assert.equal(await failoverState(opened().db, www.id, '192.0.2.2'), undefined);
      assert.equal((await failoverState(opened().db, www.id, '192.0.2.3'))?.up, 0);
      assert.equal(await failoverState(opened().db, mail.id, '2001:db8::1'), undefined);
      const untouched = await findRrset(opened().db, zoneId, 'kept.writes.example', 'A');
      const { records: keptRecords, ...keptRow } = kept;
      assert.deepEqual(plain(untouched), plain(keptRow));
      assert.equal((await opened().db.selectFrom('records').select('id').where('rrset_id', '=', kept.id).execute()).length, keptRecords.length);
    });
  });
}
