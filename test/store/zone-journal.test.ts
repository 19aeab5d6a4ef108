// The zone journal's bounds in the store, on both engines: each change's entry (written with the
// change, zone-change.ts) keeps at most the newest `versions` entries and `bytes` octets of a zone's
// entries, drops everything older than the first entry past either bound, and leaves other zones'
// entries alone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { changeNotice } from '../../src/events/change-feed.ts';
import { writeZoneChange } from '../../src/store/zone-change.ts';
import { createPostgresDatabase, engines, type TestDatabase } from '../support/engines.ts';
import { insertAccountZone } from '../support/store-rows.ts';

const now = new Date().toISOString();

for (const engine of engines()) {
  describe(`zone journal bounds (${engine})`, () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-journal-'));
    let database: TestDatabase | undefined;
    let store: Store;

    before(async () => {
      database = engine === 'postgres' ? await createPostgresDatabase() : undefined;
      store = openStore({ dataDir, databaseUrl: database?.url });
      await migrateToLatest(store);
    });
    after(async () => {
      await store.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    const kept = async (zoneId: number) =>
      (await store.db.selectFrom('zone_journal').select('version').where('zone_id', '=', zoneId).orderBy('version').execute()).map((r) => r.version);
    /** A change of the zone with an entry of `size` octets; its version. */
    const append = (zoneId: number, size: number, bounds: { versions: number; bytes: number }) =>
      store.db.transaction().execute(async (tx) => {
        const serial = size;
        const notice = changeNotice({ zoneId, zone: 'any.example', serial, version: 0, deleted: false });
        const entry = { zone_id: zoneId, serial_from: serial, serial_to: serial + 1, removed: '[]', added: '[]', size };
        return writeZoneChange(tx, store.engine, { zoneId, fields: { serial, updated_at: now }, journal: { entry }, bounds, notice });
      });

    test('the newest entries within the count bound are kept, per zone', async () => {
      const a = (await insertAccountZone(store.db, 'count-a.example', now)).zoneId;
      const b = (await insertAccountZone(store.db, 'count-b.example', now)).zoneId;
      const versions: number[] = [];
      for (let n = 1; n <= 6; n++) versions.push(await append(a, 10, { versions: 3, bytes: 1000 }));
      const other = await append(b, 10, { versions: 3, bytes: 1000 });
      assert.deepEqual(await kept(a), versions.slice(3));
      assert.deepEqual(await kept(b), [other]);
    });

    test('the byte bound drops the first entry past it and everything older; an entry over it alone clears the zone', async () => {
      const z = (await insertAccountZone(store.db, 'bytes.example', now)).zoneId;
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
