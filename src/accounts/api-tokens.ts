// API token use cases: an account's administrators manage all its tokens, other users their own.
import { forbidden, invalid, notFound } from '../errors.ts';
import type { Db } from '../store/database.ts';
import {
  deleteAccountApiToken,
  findAccountApiToken,
  insertApiToken,
  listAccountApiTokens,
  type ApiTokenRow,
} from '../store/api-tokens.ts';
import { findUserById, listAccountUsers } from '../store/users.ts';
import { formatApiToken } from './api-token-format.ts';
import type { Principal } from './principal.ts';
import { atLeast, parseRole, type Role } from './roles.ts';
import { hashSecret, newSecret } from './secrets.ts';
import { forgetTokens } from './token-cache.ts';
import { apiTokenView } from './views.ts';

export interface NewApiToken {
  name: string;
  description?: string | undefined;
  exp_date?: string | undefined;
  client_user?: { role?: { id?: number; name?: string } } | undefined;
}

/** The account in the path must be the caller's own; any other answers 404 like a missing one. */
function ownAccount(caller: Principal, clientId: number): void {
  if (clientId !== caller.accountId) throw notFound('client is not found');
}

function visible(caller: Principal, token: ApiTokenRow): boolean {
  return caller.role === 'Administrators' || token.user_id === caller.userId;
}

export async function createApiToken(db: Db, caller: Principal, clientId: number, input: NewApiToken) {
  ownAccount(caller, clientId);
  const requested = input.client_user?.role;
  const role: Role | undefined = requested === undefined ? caller.role : parseRole(requested);
  if (role === undefined) throw invalid('unknown role', { 'client_user.role': 'expected Administrators, Users or Read-only' });
  if (!atLeast(caller.role, role)) throw forbidden(`a token cannot carry a higher role than its issuer (${caller.role})`);
  let expires: string | null = null;
  if (input.exp_date !== undefined) {
    const at = Date.parse(input.exp_date);
    if (Number.isNaN(at)) throw invalid('exp_date is not a date', { exp_date: 'expected an ISO 8601 / RFC 3339 date-time' });
    if (at <= Date.now()) throw invalid('exp_date is in the past', { exp_date: 'must be in the future' });
    expires = new Date(at).toISOString();
  }
  const secret = newSecret();
  const row = await insertApiToken(db, {
    account_id: caller.accountId,
    user_id: caller.userId,
    name: input.name,
    description: input.description ?? '',
    role,
    secret_hash: hashSecret(secret),
    exp_date: expires,
    created_at: new Date().toISOString(),
    last_used_at: null,
  });
  return { token: formatApiToken(row.id, secret), ...apiTokenView(row, await findUserById(db, caller.userId)) };
}

export async function listApiTokens(db: Db, caller: Principal, clientId: number) {
  ownAccount(caller, clientId);
  const [tokens, users] = await Promise.all([listAccountApiTokens(db, caller.accountId), listAccountUsers(db, caller.accountId)]);
  const byId = new Map(users.map((u) => [u.id, u]));
  return tokens.filter((t) => visible(caller, t)).map((t) => apiTokenView(t, byId.get(t.user_id)));
}

async function visibleToken(db: Db, caller: Principal, clientId: number, tokenId: number): Promise<ApiTokenRow> {
  ownAccount(caller, clientId);
  const token = await findAccountApiToken(db, caller.accountId, tokenId);
  if (token === undefined || !visible(caller, token)) throw notFound('token is not found');
  return token;
}

export async function getApiToken(db: Db, caller: Principal, clientId: number, tokenId: number) {
  const token = await visibleToken(db, caller, clientId, tokenId);
  return apiTokenView(token, await findUserById(db, token.user_id));
}

export async function deleteApiToken(db: Db, caller: Principal, clientId: number, tokenId: number): Promise<void> {
  await visibleToken(db, caller, clientId, tokenId);
  await deleteAccountApiToken(db, caller.accountId, tokenId);
  forgetTokens(db);
}
