// The zone journal's bounds in the store, on both engines: each append keeps at most the newest
// `versions` entries and `bytes` octets of a zone's entries, drops everything older than the first
// entry past either bound, and leaves other zones' entries alone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { appendJournal } from '../../src/store/zone-journal.ts';
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
    const append = (zoneId: number, version: number, size: number, bounds: { versions: number; bytes: number }) =>
      appendJournal(store.db, store.engine, { zone_id: zoneId, version, serial_from: version, serial_to: version + 1, removed: '[]', added: '[]', size }, bounds);

    test('the newest entries within the count bound are kept, per zone', async () => {
      const a = (await insertAccountZone(store.db, 'count-a.example', now)).zoneId;
      const b = (await insertAccountZone(store.db, 'count-b.example', now)).zoneId;
      for (let v = 1; v <= 6; v++) await append(a, v, 10, { versions: 3, bytes: 1000 });
      await append(b, 7, 10, { versions: 3, bytes: 1000 });
      assert.deepEqual(await kept(a), [4, 5, 6]);
      assert.deepEqual(await kept(b), [7]);
    });

    test('the byte bound drops the first entry past it and everything older; an entry over it alone clears the zone', async () => {
      const z = (await insertAccountZone(store.db, 'bytes.example', now)).zoneId;
      const bounds = { versions: 100, bytes: 100 };
      for (const [version, size] of [[1, 30], [2, 30], [3, 30]] as const) await append(z, version, size, bounds);
      assert.deepEqual(await kept(z), [1, 2, 3]);
      // 50 + 30 + 30 = 110 > 100: entry 2 is past the bound, so 1 and 2 go.
      await append(z, 4, 50, bounds);
      assert.deepEqual(await kept(z), [3, 4]);
      // Exactly at the bound is within it.
      await append(z, 5, 20, bounds);
      assert.deepEqual(await kept(z), [3, 4, 5]);
      await append(z, 6, 101, bounds);
      assert.deepEqual(await kept(z), []);
    });
  });
}
