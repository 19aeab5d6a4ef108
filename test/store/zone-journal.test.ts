// The zone journal's bounds in the store, on both engines: each change's entry (written with the
// change, zone-change.ts) keeps at most the newest `versions` entries and `bytes` octets of a zone's
// entries, drops everything older than the first entry past either bound, and leaves other zones'
// entries alone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changeNotice } from '../../src/events/change-feed.ts';
import { writeZoneChange } from '../../src/store/zone-change.ts';
import { engines } from '../support/engines.ts';
import { insertAccountZone } from '../support/store-rows.ts';
import { suiteStore } from '../support/suite-store.ts';

const now = new Date().toISOString();

for (const engine of engines()) {
  describe(`zone journal bounds (${engine})`, () => {
    const opened = suiteStore(engine, 'journal');

    const kept = async (zoneId: number) =>
      (await opened().db.selectFrom('zone_journal').select('version').where('zone_id', '=', zoneId).orderBy('version').execute()).map((r) => r.version);
    /** A change of the zone with an entry of `size` octets; its version. */
    const append = (zoneId: number, size: number, bounds: { versions: number; bytes: number }) =>
      opened().db.transaction().execute(async (tx) => {
        const serial = size;
        const notice = changeNotice({ zoneId, zone: 'any.example', serial, version: 0, deleted: false }, 'test');
        const entry = { zone_id: zoneId, serial_from: serial, serial_to: serial + 1, removed: '[]', added: '[]', size };
        return writeZoneChange(tx, opened().engine, { zoneId, fields: { serial, updated_at: now }, journal: { entry }, bounds, notice });
      });

    test('the newest entries within the count bound are kept, per zone', async () => {
      const a = (await insertAccountZone(opened().db, 'count-a.example', now)).zoneId;
      const b = (await insertAccountZone(opened().db, 'count-b.example', now)).zoneId;
      const versions: number[] = [];
      for (let n = 1; n <= 6; n++) versions.push(await append(a, 10, { versions: 3, bytes: 1000 }));
      const other = await append(b, 10, { versions: 3, bytes: 1000 });
      assert.deepEqual(await kept(a), versions.slice(3));
      assert.deepEqual(await kept(b), [other]);
    });

    test('the byte bound drops the first entry past it and everything older; an entry over it alone clears the zone', async () => {
      const z = (await insertAccountZone(opened().db, 'bytes.example', now)).zoneId;
      const bounds = { versions: 100, bytes: 100 };
      const v: number[] = [];
      for (const size of [30, 30, 30]) v.push(await append(z, size, bounds));
      assert.deepEqual(await kept(z), v);
      // 50 + 30 + 30 = 110 > 100: the second entry is past the bound, so the first two go.
      v.push(await append(z, 50, bounds));
      assert.deepEqual(await kept(z), v.slice(2));
      // Exactly at the bound is within it.
      v.push(await append(z, 20, bounds));
      assert.deepEqual(await kept(z), v.slice(2));
      await append(z, 101, bounds);
      assert.deepEqual(await kept(z), []);
    });
  });
}
