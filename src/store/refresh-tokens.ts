// Refresh tokens repository: hashed, single-use, grouped in families of rotations.
import type { Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { RefreshTokensTable } from './schema.ts';

export type RefreshTokenRow = Selectable<RefreshTokensTable>;

export async function insertRefreshToken(
  db: Db,
  token: { user_id: number; family: string; token_hash: string; expires_at: string },
): Promise<void> {
  await db.insertInto('refresh_tokens').values({ ...token, created_at: new Date().toISOString() }).execute();
}

export function findRefreshToken(db: Db, tokenHash: string): Promise<RefreshTokenRow | undefined> {
  return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
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

/** Voids every token of a family that has not been spent: used after a replayed token. */
export async function revokeFamily(db: Db, family: string, at: string): Promise<void> {
  await db.updateTable('refresh_tokens').set({ used_at: at }).where('family', '=', family).where('used_at', 'is', null).execute();
}

/** Drops a user's expired refresh tokens, so the table does not grow with every login. */
export async function deleteExpiredRefreshTokens(db: Db, userId: number, now: string): Promise<void> {
  await db.deleteFrom('refresh_tokens').where('user_id', '=', userId).where('expires_at', '<', now).execute();
}
