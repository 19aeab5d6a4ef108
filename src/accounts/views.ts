// How accounts, users and tokens look in API responses. No view ever carries a password hash
// or a token secret.
import type { AccountRow } from '../store/accounts.ts';
import type { ApiTokenRow } from '../store/api-tokens.ts';
import type { UserRow } from '../store/users.ts';
import { asRole, roleId } from './roles.ts';

function groupOf(roleName: string): { id: number; name: string } {
  const role = asRole(roleName);
  return { id: roleId(role), name: role };
}

export function userView(user: UserRow) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    client: user.account_id,
    deleted: false,
    groups: [groupOf(user.role)],
    created: user.created_at,
  };
}

export function accountView(account: AccountRow, users: UserRow[], currentUserId?: number) {
  return {
    id: account.id,
    name: account.name,
    email: account.email,
    companyName: account.name,
    status: 'active',
    deleted: false,
    operator: account.operator === 1,
    ...(currentUserId === undefined ? {} : { currentUser: currentUserId }),
    users: users.map(userView),
    created: account.created_at,
  };
}

export function apiTokenView(token: ApiTokenRow, issuer: UserRow | undefined, now = Date.now()) {
  return {
    id: token.id,
    name: token.name,
    description: token.description,
    exp_date: token.exp_date,
    expired: token.exp_date !== null && Date.parse(token.exp_date) <= now,
    deleted: false,
    created: token.created_at,
    last_usage: token.last_used_at,
    client_user: {
      client_id: token.account_id,
      user_id: token.user_id,
      user_name: issuer?.name ?? '',
      user_email: issuer?.email ?? '',
      role: groupOf(token.role),
    },
  };
}
