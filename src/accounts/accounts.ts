// Account use cases: the platform's operators create accounts, each with its first administrator;
// the very first account is created at first start and is the operators' own.
import { ApiError, conflict, notFound } from '../errors.ts';
import type { Db } from '../store/database.ts';
import { countAccounts, findAccount, insertAccount } from '../store/accounts.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { emailInUse } from './users.ts';
import { insertUser, listAccountUsers } from '../store/users.ts';
import type { PasswordHasher } from './password-hasher.ts';
import { accountView } from './views.ts';

export interface NewAccount {
  email: string;
  password: string;
  name?: string | undefined;
}

export async function createAccount(db: Db, passwords: PasswordHasher, input: NewAccount, operator = false) {
  const password_hash = await passwords.hash(input.password);
  const name = input.name ?? input.email;
  try {
    const account = await db.transaction().execute(async (tx) => {
      const created = await insertAccount(tx, { name, email: input.email.toLowerCase(), operator });
      await insertUser(tx, {
        account_id: created.id,
        email: input.email,
        name: input.email.split('@')[0] ?? input.email,
        password_hash,
        role: 'Administrators',
      });
      return created;
    });
    return accountView(account, await listAccountUsers(db, account.id));
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(emailInUse, { email: emailInUse });
    throw e;
  }
}

export async function describeAccount(db: Db, accountId: number, currentUserId: number) {
  const account = await findAccount(db, accountId);
  if (account === undefined) throw notFound('client is not found');
  return accountView(account, await listAccountUsers(db, accountId), currentUserId);
}

/**
 * Creates the operators' account and its administrator when the store has no account yet.
 * Returns whether it did; several nodes starting at once are safe (the e-mail is unique).
 */
export async function bootstrapFirstAccount(db: Db, passwords: PasswordHasher, email: string, password: string): Promise<boolean> {
  if ((await countAccounts(db)) > 0) return false;
  try {
    await createAccount(db, passwords, { email, password, name: 'operators' }, true);
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) return false;
    throw e;
  }
}
