// 0006_host_claims on a store that already holds resources, on both engines: the rows, their ids and
// foreign keys survive; only the uniqueness of resources.name goes (resource_hosts keeps each host
// to one resource); a deleted resource's id is not handed out again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Migrator } from 'kysely/migration';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { createPostgresDatabase, engines, type TestDatabase } from '../support/engines.ts';

const now = new Date().toISOString();

for (const engine of engines()) {
  describe(`migration 0006_host_claims (${engine})`, () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-migration-'));
    let database: TestDatabase | undefined;
    let store: Store | undefined;
    after(async () => {
      await store?.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    test('resources keep their rows, ids and cascades; names may repeat; ids are not reused', async () => {
      database = engine === 'postgres' ? await createPostgresDatabase() : undefined;
      store = openStore({ dataDir, databaseUrl: database?.url });
      const db = store.db;
      const before = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations(engine)) } });
      const { error } = await before.migrateTo('0005_zone_catalog');
      assert.equal(error, undefined);

      const account = await db.insertInto('accounts').values({ name: 'a', email: 'a@example.com', operator: 0, created_at: now }).returning('id').executeTakeFirstOrThrow();
      const resource = (name: string) => ({ account_id: account.id, name, settings: '{}', ssl_type: null, ssl_crt: null, ssl_key_sealed: null, ssl_expire: 0, created_at: now, updated_at: now });
      const kept = await db.insertInto('resources').values(resource('kept.example')).returning('id').executeTakeFirstOrThrow();
      const gone = await db.insertInto('resources').values(resource('gone.example')).returning('id').executeTakeFirstOrThrow();
      await db.insertInto('resource_hosts').values([{ hostname: 'kept.example', resource_id: kept.id }, { hostname: 'www.kept.example', resource_id: kept.id }]).execute();
      await db.insertInto('resource_aliases').values({ resource_id: kept.id, position: 0, alias_data: 'www.kept.example' }).execute();
      await db.insertInto('resource_origins').values({ resource_id: kept.id, position: 0, origin_data: '192.0.2.1', origin_weight: 1, origin_mode: 'primary' }).execute();
      await db.deleteFrom('resources').where('id', '=', gone.id).execute();
      // Before: the name is unique.
      await assert.rejects(db.insertInto('resources').values(resource('kept.example')).execute());

      assert.equal((await migrateToLatest(store))[0], '0006_host_claims');

      assert.deepEqual((await db.selectFrom('resources').select(['id', 'name']).execute()).map((r) => ({ ...r })), [{ id: kept.id, name: 'kept.example' }]);
      assert.equal((await db.selectFrom('resource_aliases').selectAll().where('resource_id', '=', kept.id).execute()).length, 1);
      // A second resource of that name: allowed now; the host stays with one resource only.
      const twin = await db.insertInto('resources').values(resource('kept.example')).returning('id').executeTakeFirstOrThrow();
      assert.ok(twin.id > gone.id, `id ${twin.id} reuses the deleted ${gone.id}`);
      await assert.rejects(db.insertInto('resource_hosts').values({ hostname: 'kept.example', resource_id: twin.id }).execute());
      // Foreign keys still point at the rebuilt table: a host of a missing resource is refused,
      // and deleting a resource takes its hosts, aliases and origins with it.
      await assert.rejects(db.insertInto('resource_hosts').values({ hostname: 'orphan.example', resource_id: 999_999 }).execute());
      await db.deleteFrom('resources').where('id', '=', kept.id).execute();
      for (const table of ['resource_hosts', 'resource_aliases', 'resource_origins'] as const) {
        assert.equal((await db.selectFrom(table).selectAll().where('resource_id', '=', kept.id).execute()).length, 0, table);
      }
      // Deleting the account still cascades to its resources.
      await db.deleteFrom('accounts').where('id', '=', account.id).execute();
      assert.equal((await db.selectFrom('resources').selectAll().execute()).length, 0);
    });
  });
}
