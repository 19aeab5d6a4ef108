// API tokens repository. Only a hash of each secret is stored.
import type { Insertable, Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { ApiTokensTable } from './schema.ts';

export type ApiTokenRow = Selectable<ApiTokensTable>;

/** A token with what authenticating it needs, in one query: its issuer's role and account flag. */
export function findApiTokenForAuth(db: Db, id: number) {
  return db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .innerJoin('accounts', 'accounts.id', 'api_tokens.account_id')
    .select([
      'api_tokens.id',
      'api_tokens.account_id',
      'api_tokens.user_id',
      'api_tokens.role',
      'api_tokens.secret_hash',
      'api_tokens.exp_date',
      'api_tokens.last_used_at',
      'users.role as issuer_role',
      'accounts.operator',
    ])
    .where('api_tokens.id', '=', id)
    .executeTakeFirst();
}

export function findAccountApiToken(db: Db, accountId: number, id: number): Promise<ApiTokenRow | undefined> {
  return db.selectFrom('api_tokens').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function listAccountApiTokens(db: Db, accountId: number): Promise<ApiTokenRow[]> {
  return db.selectFrom('api_tokens').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

export function insertApiToken(db: Db, token: Insertable<ApiTokensTable>): Promise<ApiTokenRow> {
  return db.insertInto('api_tokens').values(token).returningAll().executeTakeFirstOrThrow();
}

export async function deleteAccountApiToken(db: Db, accountId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('api_tokens').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function touchApiToken(db: Db, id: number, at: string): Promise<void> {
  await db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
}
