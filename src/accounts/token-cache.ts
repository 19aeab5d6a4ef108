// API tokens as authentication read them, kept for a second: a client's burst of requests costs one
// token lookup per second instead of one per request. The secret is still compared and the expiry
// date checked on every request. Bound on revocation: deleting a token or its user through this
// process clears the cache at once, so this process refuses the token from the next request on;
// other processes on the same store (other API nodes on PostgreSQL, the CLI) are heard within
// `ttlMs`.
import type { Db } from '../store/database.ts';
import { findApiTokenForAuth } from '../store/api-tokens.ts';

export type AuthToken = NonNullable<Awaited<ReturnType<typeof findApiTokenForAuth>>>;

/** How long a token read from the store is used without reading it again. */
export const ttlMs = 1000;

/** Tokens held at most: beyond it the cache starts over (only tokens that exist are held). */
const maxTokens = 10_000;

interface Cache {
  tokens: Map<number, { token: AuthToken; readAt: number }>;
  /** Raised by every forget(): a read that began before it must not be kept. */
  generation: number;
}

const caches = new WeakMap<Db, Cache>();

function cacheOf(db: Db): Cache {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = { tokens: new Map(), generation: 0 };
    caches.set(db, cache);
  }
  return cache;
}

/** The token with this id, as findApiTokenForAuth reads it, from the cache when read under `ttlMs` ago. */
export async function authToken(db: Db, id: number, now: number): Promise<AuthToken | undefined> {
  const cache = cacheOf(db);
  const held = cache.tokens.get(id);
  if (held !== undefined && now - held.readAt < ttlMs) return held.token;
  const generation = cache.generation;
  const token = await findApiTokenForAuth(db, id);
  if (token === undefined) {
    cache.tokens.delete(id);
    return undefined;
  }
  // A token or user deleted while this read ran: the row read may predate it, so it is not kept.
  if (generation === cache.generation) {
    if (cache.tokens.size >= maxTokens) cache.tokens.clear();
    cache.tokens.set(id, { token, readAt: now });
  }
  return token;
}

/** Called once a token or a user (and with it their tokens) is deleted: every token is read afresh. */
export function forgetTokens(db: Db): void {
  const cache = cacheOf(db);
  cache.generation++;
  cache.tokens.clear();
}
