// Who is calling: resolved from the Authorization header on every authenticated request.
// For an access token the user and session are read afresh each time, so a deleted user or a
// session revoked on any API node is refused on every node at once; an API token is read at most
// once a second (token-cache.ts says how soon a deleted token or user is refused).
import { unauthorized } from '../errors.ts';
import type { Db } from '../store/database.ts';
import { touchApiToken } from '../store/api-tokens.ts';
import { findUserForAuth } from '../store/users.ts';
import { parseApiToken } from './api-token-format.ts';
import type { AccessTokens } from './jwt.ts';
import { asRole, weaker, type Role } from './roles.ts';
import { secretMatches } from './secrets.ts';
import { authToken } from './token-cache.ts';

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
  const user = claims && (await findUserForAuth(db, claims.userId, claims.session));
  if (claims === undefined || user?.account_id !== claims.accountId) throw unauthorized('invalid or expired access token');
  if (user.session_revoked) throw unauthorized('this login was ended because one of its refresh tokens was used twice; log in again');
  return principalOf(user.account_id, user.id, asRole(user.role), user.operator, undefined);
}

async function fromApiToken(db: Db, value: string): Promise<Principal> {
  const parsed = parseApiToken(value);
  const now = new Date();
  const token = parsed && (await authToken(db, parsed.id, now.getTime()));
  if (parsed === undefined || token === undefined || !secretMatches(parsed.secret, token.secret_hash)) {
    throw unauthorized('invalid API token');
  }
  if (token.exp_date !== null && Date.parse(token.exp_date) <= now.getTime()) throw unauthorized('API token has expired');
  if (token.last_used_at === null || now.getTime() - Date.parse(token.last_used_at) > touchIntervalMs) {
    // Also in the cached row, so the requests of the next minute do not touch it again.
    token.last_used_at = now.toISOString();
    await touchApiToken(db, token.id, token.last_used_at);
  }
  const role = weaker(asRole(token.role), asRole(token.issuer_role));
  return principalOf(token.account_id, token.user_id, role, token.operator, token.id);
}

/** A caller: `operatorAccount` is the account's `operator` column (1 for the operators' account). */
export function principalOf(accountId: number, userId: number, role: Role, operatorAccount: number, tokenId: number | undefined): Principal {
  return { accountId, userId, role, operator: operatorAccount === 1 && role === 'Administrators', tokenId };
}
