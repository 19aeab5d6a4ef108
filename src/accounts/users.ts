// User use cases: administrators add and remove users of their own account.
import { conflict, notFound } from '../errors.ts';
import type { Db } from '../store/database.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { deleteAccountUser, findAccountUser, insertUser, listAccountUsers, type UserRow } from '../store/users.ts';
import type { PasswordHasher } from './password-hasher.ts';
import type { Principal } from './principal.ts';
import type { Role } from './roles.ts';
import { forgetTokens } from './token-cache.ts';
import { userView } from './views.ts';

export interface NewUser {
  email: string;
  password: string;
  name?: string | undefined;
  role: Role;
}

/** A taken e-mail address (in any account): the 409's message, and its field's, for clients that show errors by field. */
export const emailInUse = 'a user with this e-mail address already exists';

/** Inserts a user; a taken e-mail address (in any account) is a 409. */
async function insertNewUser(db: Db, passwords: PasswordHasher, accountId: number, user: NewUser): Promise<UserRow> {
  const password_hash = await passwords.hash(user.password);
  try {
    return await insertUser(db, {
      account_id: accountId,
      email: user.email,
      name: user.name ?? user.email.split('@')[0] ?? user.email,
      password_hash,
      role: user.role,
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(emailInUse, { email: emailInUse });
    throw e;
  }
}

export async function addUser(db: Db, passwords: PasswordHasher, caller: Principal, user: NewUser) {
  return userView(await insertNewUser(db, passwords, caller.accountId, user));
}

export async function listUsers(db: Db, caller: Principal) {
  return (await listAccountUsers(db, caller.accountId)).map(userView);
}

export async function getUser(db: Db, caller: Principal, userId: number) {
  const user = await findAccountUser(db, caller.accountId, userId);
  if (user === undefined) throw notFound('user is not found');
  return userView(user);
}

export async function removeUser(db: Db, caller: Principal, userId: number): Promise<void> {
  if (userId === caller.userId) throw conflict('you cannot delete yourself');
  if (!(await deleteAccountUser(db, caller.accountId, userId))) throw notFound('user is not found');
  // The user's API tokens went with it.
  forgetTokens(db);
}
