// Accounts repository.
import type { Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { AccountsTable } from './schema.ts';

export type AccountRow = Selectable<AccountsTable>;

export function findAccount(db: Db, id: number): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countAccounts(db: Db): Promise<number> {
  const row = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return row.n;
}

export async function insertAccount(
  db: Db,
  account: { name: string; email: string; operator: boolean },
): Promise<AccountRow> {
  return db
    .insertInto('accounts')
    .values({ ...account, operator: account.operator ? 1 : 0, created_at: new Date().toISOString() })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The platform operators' account (the one the first start creates), if there is one. */
export function findOperatorsAccount(db: Db): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('operator', '=', 1).orderBy('id').executeTakeFirst();
}
