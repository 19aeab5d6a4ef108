// Every change prunes its zone's journal to the byte bound (src/store/zone-journal.ts), which sums
// the sizes of the zone's entries: with `size` in the index that sum is read from the index alone,
// not from up to a hundred table rows per change (the journal was about 15% of an RRset write's CPU
// on SQLite at 8 clients: bench/README.md, session 20).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('zone_journal_zone_version_size').on('zone_journal').columns(['zone_id', 'version', 'size']).execute();
  await db.schema.dropIndex('zone_journal_zone_version').execute();
}
