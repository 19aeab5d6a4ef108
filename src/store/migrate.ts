// Brings the schema up to the newest version; run at every start and by `edgeplane migrate`.
import { Migrator } from 'kysely/migration';
import type { Store } from './database.ts';
import { migrations } from './migrations/index.ts';

export async function migrateToLatest(store: Store): Promise<string[]> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: () => Promise.resolve(migrations(store.engine)) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`, { cause: error });
  }
  return (results ?? []).map((r) => r.migrationName);
}
