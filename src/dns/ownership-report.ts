// Data older than the ownership rules (name-ownership.ts, reserved-names.ts) may break them: a zone
// at a public suffix, a zone inside or above another account's zone, a protected host inside
// another account's zone. Nothing is changed or deleted for that: who squatted whom cannot be told
// from the data, and an upgrade must not change what is served. Every API start logs what it
// finds, for the operator to settle (docs/operations.md#names-that-break-the-ownership-rules).
import type { Logger } from 'pino';
import type { Db } from '../store/database.ts';
import { allHeldHosts } from '../store/resources.ts';
import { allZoneOwners } from '../store/zones.ts';
import { ownerAmong, selfAndAncestors } from './name-ownership.ts';
import { ownsNamesBelow, reservedNameProblem } from './reserved-names.ts';

/** One line per conflict, naming the accounts involved. */
export async function ownershipConflicts(db: Db, allowedReserved: readonly string[]): Promise<string[]> {
  const [zoneRows, hosts] = await Promise.all([allZoneOwners(db), allHeldHosts(db)]);
  const zones = new Map(zoneRows.map((z) => [z.name, z.account_id]));
  const found: string[] = [];
  for (const { name, account_id: account } of zoneRows) {
    const problem = reservedNameProblem(name);
    if (problem !== undefined && !allowedReserved.includes(name)) found.push(`zone ${name} (account ${account}): ${problem}`);
    const above = selfAndAncestors(name).slice(1).find((a) => zones.has(a) && ownsNamesBelow(a));
    const aboveAccount = above === undefined ? undefined : zones.get(above);
    if (above !== undefined && aboveAccount !== account) found.push(`zone ${name} (account ${account}) is inside ${above} (account ${String(aboveAccount)})`);
  }
  for (const host of hosts) {
    const owner = ownerAmong(host.hostname, zones);
    if (owner !== undefined && owner.accountId !== host.account_id) {
      found.push(`host ${host.hostname} of resource ${host.resource_id} (account ${host.account_id}) is inside ${owner.zone} (account ${owner.accountId}); it goes to that account when it protects the name`);
    }
  }
  return found;
}

/** At most this many conflicts are listed in the log line; the count is always complete. */
const listed = 100;

export async function reportOwnershipConflicts(db: Db, logger: Logger, allowedReserved: readonly string[]): Promise<void> {
  const conflicts = await ownershipConflicts(db, allowedReserved);
  if (conflicts.length === 0) return;
  logger.warn(
    { count: conflicts.length, conflicts: conflicts.slice(0, listed) },
    `${conflicts.length} names break the rule that a name has one owner; they are served as before until an operator settles them (docs/operations.md)`,
  );
}
