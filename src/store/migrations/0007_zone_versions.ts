// Zone versions: one counter for the whole store, raised by every committed change of any zone, and
// on each zone the counter's value at its last change. The DNS threads compare the versions they
// serve with the store's to catch up on any change they missed or failed to apply
// (src/dns/server/zone-sync.ts). Existing zones start at version 0.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('zone_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into zone_version (id, version) values (1, 0)`.execute(db);
  await db.schema.alterTable('zones').addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  // Threads ask for the zones changed since the version they last saw.
  await db.schema.createIndex('zones_version').on('zones').column('version').execute();
}
