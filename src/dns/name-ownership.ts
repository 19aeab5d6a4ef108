// A DNS name has one owner (decisions.md, "Tenancy"): the account of the closest zone hosted here
// at or above it. No account may create a zone inside or above another account's zone, and a
// protected host inside a zone belongs to that zone's account. Zones at reserved names (public
// suffixes an operator allowed) own only their apex, like a registry. Every check runs inside the
// writing transaction after lockNameOwnership, so two writers cannot both pass on stale reads.
import { sql } from 'kysely';
import type { Db, Engine } from '../store/database.ts';
import { otherAccountZoneBelow, zonesNamed } from '../store/zones.ts';
import { ownsNamesBelow } from './reserved-names.ts';

/** `www.b.example` → `['www.b.example', 'b.example', 'example']` (canonical names only). */
export function selfAndAncestors(name: string): string[] {
  const labels = name.split('.');
  return labels.map((_, i) => labels.slice(i).join('.'));
}

/** An arbitrary constant of our own for pg_advisory_xact_lock (Kysely's migrations use another). */
const ownershipLockKey = 7_306_916_067_420_799_342n;

/**
 * Serialises the writers that create zones or claim host names, until the transaction ends.
 * PostgreSQL: a transaction-level advisory lock. SQLite needs none: Kysely runs every statement
 * of the one connection under a mutex held for a whole transaction, and another process's
 * write in between makes SQLite refuse ours (SQLITE_BUSY_SNAPSHOT) rather than act on stale reads.
 */
export async function lockNameOwnership(tx: Db, engine: Engine): Promise<void> {
  if (engine === 'postgres') await sql`select pg_advisory_xact_lock(${sql.lit(ownershipLockKey)})`.execute(tx);
}

export interface NameOwner {
  accountId: number;
  /** The zone whose account owns the name. */
  zone: string;
}

/** The owner of `host` among hosted zones (name → account): the closest zone at or above it that owns it. */
export function ownerAmong(host: string, zones: ReadonlyMap<string, number>): NameOwner | undefined {
  for (const name of selfAndAncestors(host)) {
    const accountId = zones.get(name);
    // A registry-style zone (at a reserved name) owns its apex, not the names below it.
    if (accountId !== undefined && (name === host || ownsNamesBelow(name))) return { accountId, zone: name };
  }
  return undefined;
}

/** The owners of several hosts, with one read of the zones that can matter. */
export async function ownersOf(db: Db, hosts: readonly string[]): Promise<Map<string, NameOwner | undefined>> {
  const candidates = [...new Set(hosts.flatMap(selfAndAncestors))];
  const zones = new Map((await zonesNamed(db, candidates)).map((z) => [z.name, z.account_id]));
  return new Map(hosts.map((host) => [host, ownerAmong(host, zones)]));
}

export interface Nesting {
  /** The other account's zone. */
  zone: string;
  /** Where the new zone would be: inside that zone, or above it. */
  relation: 'inside' | 'above';
}

/**
 * The zone of another account that a new zone `name` of `accountId` would sit inside or above.
 * A zone at a reserved name owns nothing below it, so it may sit above other accounts' zones and
 * they may sit below it.
 */
export async function nestingConflict(db: Db, accountId: number, name: string): Promise<Nesting | undefined> {
  // The closest zone above that owns the names below it decides (as for hosts); the same name in
  // any account is left to the unique index (409 "already exists").
  const ancestors = selfAndAncestors(name).slice(1);
  const zones = new Map((await zonesNamed(db, ancestors)).map((z) => [z.name, z.account_id]));
  const owner = ancestors.find((a) => zones.has(a) && ownsNamesBelow(a));
  if (owner !== undefined && zones.get(owner) !== accountId) return { zone: owner, relation: 'inside' };
  if (!ownsNamesBelow(name)) return undefined;
  const below = await otherAccountZoneBelow(db, accountId, name);
  return below === undefined ? undefined : { zone: below, relation: 'above' };
}
