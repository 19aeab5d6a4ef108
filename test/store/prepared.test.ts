// Statements marked prepared (src/store/prepared.ts) run on PostgreSQL as named prepared statements,
// one name per text, unless EDGEPLANE_DATABASE_PREPARE turns that off; unmarked ones never do.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { prepared } from '../../src/store/prepared.ts';
import { readZone } from '../../src/store/zone-change.ts';
import { createPostgresDatabase, engines, type TestDatabase } from '../support/engines.ts';

for (const engine of engines().filter((e) => e === 'postgres')) {
  describe(`prepared statements (${engine})`, () => {
    let database: TestDatabase;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-prepared-'));
    const stores: Store[] = [];
    const open = (prepare: boolean) => {
      const store = openStore({ dataDir: dir, databaseUrl: database.url, databasePrepare: prepare });
      stores.push(store);
      return store;
    };

    before(async () => {
      database = await createPostgresDatabase();
      await migrateToLatest(open(true));
    });
    after(async () => {
      for (const store of stores) await store.close();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    /** The statements the connection running `work` has prepared, after it. */
    const preparedAfter = (store: Store, work: (db: Store['db']) => Promise<unknown>) =>
      store.db.connection().execute(async (db) => {
        await work(db);
        const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(db);
        return rows;
      });

    test('a marked statement is prepared once per connection under a name of its text; unmarked ones are not', async () => {
      const rows = await preparedAfter(open(true), async (db) => {
        for (const name of ['a.test', 'b.test', 'a.test']) await readZone(db, name, ['www.a.test']);
        await db.selectFrom('zones').selectAll().where('name', '=', 'a.test').execute();
        await prepared(sql`select 1`).execute(db);
        await prepared(sql`select 1`).execute(db);
      });
      assert.equal(rows.length, 2);
      for (const row of rows) {
        assert.match(row.name, /^edgeplane_[0-9a-f]{24}$/);
        assert.match(row.statement, /^\/\* prepared \*\/ /);
      }
      assert.deepEqual(rows.map((r) => r.statement.includes('zones')).toSorted(), [false, true]);
    });

    test('EDGEPLANE_DATABASE_PREPARE off: marked statements run unnamed', async () => {
      const rows = await preparedAfter(open(false), (db) => readZone(db, 'a.test', ['www.a.test']));
      assert.deepEqual(rows, []);
    });
  });
}
