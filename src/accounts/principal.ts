// Who is calling: resolved from the Authorization header on every authenticated request.
// The user is read afresh each time, so a deleted user or a demoted issuer takes effect at once.
import { unauthorized } from '../errors.ts';
import type { Db } from '../store/database.ts';
import { findAccount } from '../store/accounts.ts';
import { findApiToken, touchApiToken } from '../store/api-tokens.ts';
import { findUserById } from '../store/users.ts';
import { parseApiToken } from './api-token-format.ts';
import type { AccessTokens } from './jwt.ts';
import { asRole, weaker, type Role } from './roles.ts';
import { secretMatches } from './secrets.ts';

export interface Principal {
  accountId: number;
  userId: number;
  role: Role;
  /** Administrators of the operators' account may create accounts. */
  operator: boolean;
  /** The API token used, when the caller authenticated with one. */
  tokenId: number | undefined;
}

// Recording a token's last use costs a write; once a minute per token is precise enough.
const touchIntervalMs = 60_000;

export async function authenticate(db: Db, tokens: AccessTokens, header: string | undefined): Promise<Principal> {
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(header ?? '');
  if (!match) throw unauthorized('missing or malformed Authorization header; use "Bearer <jwt>" or "APIKey <token>"');
  const scheme = (match[1] ?? '').toLowerCase();
  const credential = match[2] ?? '';
  if (scheme === 'bearer') return fromAccessToken(db, tokens, credential);
  if (scheme === 'apikey') return fromApiToken(db, credential);
  throw unauthorized(`unsupported authorization scheme "${match[1] ?? ''}"; use Bearer or APIKey`);
}

async function fromAccessToken(db: Db, tokens: AccessTokens, jwt: string): Promise<Principal> {
  const claims = await tokens.verify(jwt);
  if (claims === undefined) throw unauthorized('invalid or expired access token');
  const user = await findUserById(db, claims.userId);
  if (user?.account_id !== claims.accountId) throw unauthorized('invalid or expired access token');
  return principalOf(db, user.account_id, user.id, asRole(user.role), undefined);
}

async function fromApiToken(db: Db, value: string): Promise<Principal> {
  const parsed = parseApiToken(value);
  const token = parsed && (await findApiToken(db, parsed.id));
  if (parsed === undefined || token === undefined || !secretMatches(parsed.secret, token.secret_hash)) {
    throw unauthorized('invalid API token');
  }
  const now = new Date();
  if (token.exp_date !== null && Date.parse(token.exp_date) <= now.getTime()) throw unauthorized('API token has expired');
  const issuer = await findUserById(db, token.user_id);
  if (issuer === undefined) throw unauthorized('invalid API token');
  if (token.last_used_at === null || now.getTime() - Date.parse(token.last_used_at) > touchIntervalMs) {
    await touchApiToken(db, token.id, now.toISOString());
  }
  return principalOf(db, token.account_id, issuer.id, weaker(asRole(token.role), asRole(issuer.role)), token.id);
}

async function principalOf(db: Db, accountId: number, userId: number, role: Role, tokenId: number | undefined): Promise<Principal> {
  const account = await findAccount(db, accountId);
  if (account === undefined) throw unauthorized();
  return { accountId, userId, role, operator: account.operator === 1 && role === 'Administrators', tokenId };
}
