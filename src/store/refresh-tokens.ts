// Refresh tokens repository: hashed, single-use, grouped in families of rotations. A family is a
// session (one login and its refreshes); a replayed token revokes it, access tokens included.
import type { Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { RefreshTokensTable } from './schema.ts';

export type RefreshTokenRow = Selectable<RefreshTokensTable> & { revoked: boolean };

export async function insertRefreshToken(
  db: Db,
  token: { user_id: number; family: string; token_hash: string; expires_at: string },
): Promise<void> {
  await db.insertInto('refresh_tokens').values({ ...token, created_at: new Date().toISOString() }).execute();
}

/** The token with whether its family has been revoked. */
export async function findRefreshToken(db: Db, tokenHash: string): Promise<RefreshTokenRow | undefined> {
  const row = await db
    .selectFrom('refresh_tokens')
    .selectAll()
    .select((eb) => eb.exists(eb.selectFrom('revoked_sessions').select('session').whereRef('session', '=', 'refresh_tokens.family')).as('revoked'))
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  // SQLite answers EXISTS with 0 or 1, PostgreSQL with a boolean.
  return row && { ...row, revoked: Boolean(row.revoked) };
}

/** Marks the token spent; false when another request spent it first. */
export async function spendRefreshToken(db: Db, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('refresh_tokens')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Ends a session after a replayed token: voids every unspent token of the family and records the
 * family as revoked until `until`, when nothing issued in it can still be valid. Revocations past
 * their time are dropped on the way, so the table holds only live ones.
 */
export async function revokeFamily(db: Db, family: string, at: string, until: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.updateTable('refresh_tokens').set({ used_at: at }).where('family', '=', family).where('used_at', 'is', null).execute();
    await tx.deleteFrom('revoked_sessions').where('expires_at', '<', at).execute();
    await tx
      .insertInto('revoked_sessions')
      .values({ session: family, revoked_at: at, expires_at: until })
      .onConflict((oc) => oc.column('session').doUpdateSet({ expires_at: until }))
      .execute();
  });
}

/** Drops a user's expired refresh tokens, so the table does not grow with every login. */
export async function deleteExpiredRefreshTokens(db: Db, userId: number, now: string): Promise<void> {
  await db.deleteFrom('refresh_tokens').where('user_id', '=', userId).where('expires_at', '<', now).execute();
}
