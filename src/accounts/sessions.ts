// Login and refresh: an access JWT plus a single-use refresh token that rotates on every use.
import { randomUUID } from 'node:crypto';
import { unauthorized } from '../errors.ts';
import type { Db } from '../store/database.ts';
import {
  deleteExpiredRefreshTokens,
  findRefreshToken,
  insertRefreshToken,
  revokeFamily,
  spendRefreshToken,
} from '../store/refresh-tokens.ts';
import { findUserByEmail, findUserById } from '../store/users.ts';
import type { AccessTokens } from './jwt.ts';
import type { PasswordHasher } from './password-hasher.ts';
import { hashSecret, newSecret } from './secrets.ts';

export interface TokenPair {
  access: string;
  refresh: string;
}

export interface SessionContext {
  db: Db;
  tokens: AccessTokens;
  passwords: PasswordHasher;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}

/** Longer than any refresh request takes: covers a pair issued while its session was being revoked. */
const raceMarginSeconds = 60;

export async function login(ctx: SessionContext, email: string, password: string): Promise<TokenPair> {
  ctx.passwords.admit();
  const user = await findUserByEmail(ctx.db, email);
  // An unknown user costs the same check as a known one (against a decoy), so timing tells nothing.
  const valid = await ctx.passwords.verify(password, user?.password_hash);
  if (user === undefined || !valid) throw unauthorized('invalid username or password');
  await deleteExpiredRefreshTokens(ctx.db, user.id, new Date().toISOString());
  return issue(ctx, user.id, user.account_id, randomUUID());
}

export async function refresh(ctx: SessionContext, token: string): Promise<TokenPair> {
  const row = await findRefreshToken(ctx.db, hashSecret(token));
  const now = new Date();
  if (row === undefined || Date.parse(row.expires_at) <= now.getTime()) throw unauthorized('invalid or expired refresh token');
  if (row.used_at !== null || row.revoked || !(await spendRefreshToken(ctx.db, row.id, now.toISOString()))) {
    // A spent token presented again means it leaked or a client raced itself: end the session, its
    // access tokens included.
    await endSession(ctx, row.family, now);
    throw unauthorized('refresh token has already been used');
  }
  const user = await findUserById(ctx.db, row.user_id);
  if (user === undefined) throw unauthorized('invalid or expired refresh token');
  return issue(ctx, user.id, user.account_id, row.family);
}

/**
 * Logout: the session of the refresh token ends as a stolen one does, its access tokens refused on
 * every node from the next request. Answers the same whether or not the token was known, spent or
 * expired, so it reveals nothing; ending a session needs only its refresh token, which is what the
 * console holds.
 */
export async function logout(ctx: SessionContext, token: string): Promise<void> {
  const row = await findRefreshToken(ctx.db, hashSecret(token));
  if (row !== undefined) await endSession(ctx, row.family, new Date());
}

/** The revocation outlives anything issued in the session, even a pair a racing refresh issued a moment later. */
async function endSession(ctx: SessionContext, family: string, now: Date): Promise<void> {
  const until = new Date(now.getTime() + (Math.max(ctx.accessTtlSeconds, ctx.refreshTtlSeconds) + raceMarginSeconds) * 1000);
  await revokeFamily(ctx.db, family, now.toISOString(), until.toISOString());
}

async function issue(ctx: SessionContext, userId: number, accountId: number, family: string): Promise<TokenPair> {
  const refreshToken = newSecret();
  await insertRefreshToken(ctx.db, {
    user_id: userId,
    family,
    token_hash: hashSecret(refreshToken),
    expires_at: new Date(Date.now() + ctx.refreshTtlSeconds * 1000).toISOString(),
  });
  return { access: await ctx.tokens.sign({ userId, accountId, session: family }), refresh: refreshToken };
}
