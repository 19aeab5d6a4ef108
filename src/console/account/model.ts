// Accounts, users and API tokens as the IAM API answers them (docs/api/iam.md), and the calls the
// account page makes.
import { segment, type Api } from '../api.ts';
import type { Role } from '../session.ts';

export interface RoleRef {
  id: number;
  name: string;
}

export interface User {
  id: number;
  email: string;
  name: string;
  client: number;
  groups: RoleRef[];
  created: string;
}

export interface ApiToken {
  id: number;
  name: string;
  description: string;
  /** RFC 3339 UTC; null: never expires. */
  exp_date: string | null;
  expired: boolean;
  created: string;
  last_usage: string | null;
  client_user: { client_id: number; user_id: number; user_name: string; user_email: string; role: RoleRef };
}

/** The answer to a token's creation: the only time `token` (`<id>_<secret>`) is ever sent. */
export interface CreatedToken extends ApiToken {
  token: string;
}

export interface Account {
  id: number;
  name: string;
  email: string;
  operator: boolean;
  users: User[];
}

/** Strongest first, as the API ranks them. */
export const roles: Role[] = ['Administrators', 'Users', 'Read-only'];

/** The roles a user may give a token: none above their own. */
export function rolesUpTo(own: Role): Role[] {
  return roles.slice(roles.indexOf(own));
}

export function roleOf(user: User): string {
  return user.groups[0]?.name ?? '';
}

function tokensPath(accountId: number, tokenId?: number): string {
  const base = `/iam/v2/clients/${segment(accountId)}/tokens`;
  return tokenId === undefined ? base : `${base}/${segment(tokenId)}`;
}

export function listTokens(api: Api, accountId: number): Promise<ApiToken[]> {
  return api.get<ApiToken[]>(tokensPath(accountId));
}

export interface NewToken {
  name: string;
  description: string;
  role: Role;
  /** RFC 3339, or as typed when it is no date (the API says so beside the field); absent: never. */
  expires: string | undefined;
}

export function createToken(api: Api, accountId: number, token: NewToken): Promise<CreatedToken> {
  return api.post<CreatedToken>(tokensPath(accountId), {
    name: token.name,
    description: token.description,
    exp_date: token.expires,
    client_user: { role: { name: token.role } },
  });
}

export function revokeToken(api: Api, accountId: number, tokenId: number): Promise<void> {
  return api.delete<undefined>(tokensPath(accountId, tokenId));
}

export function listUsers(api: Api): Promise<User[]> {
  return api.get<User[]>('/iam/users');
}

export function addUser(api: Api, user: { email: string; name: string | undefined; password: string; role: Role }): Promise<User> {
  return api.post<User>('/iam/users', { email: user.email, name: user.name, password: user.password, role: { name: user.role } });
}

export function deleteUser(api: Api, userId: number): Promise<void> {
  return api.delete<undefined>(`/iam/users/${segment(userId)}`);
}

export function createAccount(api: Api, account: { email: string; name: string | undefined; password: string }): Promise<Account> {
  return api.post<Account>('/iam/accounts', account);
}
