// A migrated store on one engine for a describe() block: opened before its tests (a fresh
// PostgreSQL database, or a SQLite file in a temporary directory), closed and removed after them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { createPostgresDatabase, type Engine, type TestDatabase } from './engines.ts';

/** Call inside describe(); the store is there once its tests run (`before` has opened it). */
export function suiteStore(engine: Engine, prefix: string): () => Store {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `edgeplane-${prefix}-`));
  let database: TestDatabase | undefined;
  let store: Store | undefined;
  before(async () => {
    database = engine === 'postgres' ? await createPostgresDatabase() : undefined;
    store = openStore({ dataDir, databaseUrl: database?.url });
    await migrateToLatest(store);
  });
  after(async () => {
    await store?.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return () => {
    if (store === undefined) throw new Error('the suite store is opened before its tests');
    return store;
  };
}
