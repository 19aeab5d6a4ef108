// Each zone's row says where its live journal entries start (src/store/zone-journal.ts): on
// PostgreSQL the entries a change prunes stay in the table and its index, dead, until VACUUM comes,
// and at thousands of changes a second tens of thousands of them lie at the old end of a zone's
// range, which every prune and every incremental transfer scanned (bench/README.md, session 24).
// Existing rows start at 0: their first change scans from the start, as before, and moves it on.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('zones').addColumn('journal_from', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}
