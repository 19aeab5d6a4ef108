// Who an operator command acts as. Whoever runs the CLI on the server holds the store (its data dir
// or database URL) and so every account already; `--as` only says in whose name the command works,
// so that it goes through the same use cases, checks and ownership rules as the API.
import { principalOf, type Principal } from '../accounts/principal.ts';
import { asRole } from '../accounts/roles.ts';
import { ConfigError } from '../config.ts';
import { findAccount, findOperatorsAccount } from '../store/accounts.ts';
import type { Db } from '../store/database.ts';
import { findUserByEmail, listAccountUsers, type UserRow } from '../store/users.ts';

/** The user `--as` names, or without it the operators' first administrator (a single-tenant install's admin). */
export async function actingUser(db: Db, email: string | undefined): Promise<Principal> {
  let user: UserRow | undefined;
  if (email !== undefined) {
    user = await findUserByEmail(db, email);
    if (user === undefined) throw new ConfigError(`--as: no user ${email}`);
  } else {
    const operators = await findOperatorsAccount(db);
    user = operators && (await listAccountUsers(db, operators.id)).find((u) => u.role === 'Administrators');
    if (user === undefined) throw new ConfigError('no administrator in the operators\' account (the first start creates it): name the user to act as with --as EMAIL');
  }
  const account = await findAccount(db, user.account_id);
  return principalOf(user.account_id, user.id, asRole(user.role), account?.operator ?? 0, undefined);
}
