// The zone journal (RFC 1995 incremental transfers): for each committed change of a zone's served
// data, the records it removed and added, written in the transaction of the change itself
// (src/dns/journal/). Bounded per zone (src/store/zone-journal.ts); the rows go with their zone.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('zone_journal')
    .addColumn('id', context.id, context.key)
    .addColumn('zone_id', 'integer', (c) => c.notNull().references('zones.id').onDelete('cascade'))
    // The store's zone version of the change (0007_zone_versions.ts): orders a zone's entries.
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('serial_from', 'bigint', (c) => c.notNull())
    .addColumn('serial_to', 'bigint', (c) => c.notNull())
    // JSON arrays of wire-ready records, each starting with the SOA of the version it leaves or reaches.
    .addColumn('removed', 'text', (c) => c.notNull())
    .addColumn('added', 'text', (c) => c.notNull())
    // Length of removed and added: what the byte bound counts.
    .addColumn('size', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('zone_journal_zone_version').on('zone_journal').columns(['zone_id', 'version']).execute();
}
