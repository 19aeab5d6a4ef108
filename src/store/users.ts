// Users repository. Every read that a caller can steer is scoped by account.
import type { Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { UsersTable } from './schema.ts';

export type UserRow = Selectable<UsersTable>;

export function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * A user with their account's operator flag and whether the session an access token was issued in
 * has been revoked: one query, one round trip, for every request made with an access token.
 */
export async function findUserForAuth(db: Db, id: number, session: string) {
  const row = await db
    .selectFrom('users')
    .innerJoin('accounts', 'accounts.id', 'users.account_id')
    .select(['users.id', 'users.account_id', 'users.role', 'accounts.operator'])
    .select((eb) => eb.exists(eb.selectFrom('revoked_sessions').select('session').where('session', '=', session)).as('session_revoked'))
    .where('users.id', '=', id)
    .executeTakeFirst();
  // SQLite answers EXISTS with 0 or 1, PostgreSQL with a boolean.
  return row && { ...row, session_revoked: Boolean(row.session_revoked) };
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export function findAccountUser(db: Db, accountId: number, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function listAccountUsers(db: Db, accountId: number): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

export function insertUser(
  db: Db,
  user: { account_id: number; email: string; name: string; password_hash: string; role: string },
): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({ ...user, email: user.email.toLowerCase(), created_at: new Date().toISOString() })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteAccountUser(db: Db, accountId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('users').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
