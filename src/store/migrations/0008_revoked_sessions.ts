// Sessions (refresh-token families) ended because a spent refresh token was presented again: the
// access tokens issued in them are refused until they would have expired anyway.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('revoked_sessions')
    .addColumn('session', 'text', (c) => c.primaryKey())
    .addColumn('revoked_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}
