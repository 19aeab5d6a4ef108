// Health checkers look up the few RRsets with checks among all of them, every time a zone changes.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('rrsets_healthcheck').on('rrsets').column('healthcheck').execute();
}
