// The serial of the catalog of zones (RFC 9432) that secondaries learn the hosted zones from: raised
// in the transaction that adds, removes, enables or disables a zone, so every DNS node agrees on it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('zone_catalog')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('serial', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into zone_catalog (id, serial) values (1, 1)`.execute(db);
}
