// Which host names a protected resource may hold (decisions.md, "Tenancy"): a host inside a zone
// hosted here belongs to that zone's account; a host outside every hosted zone goes to the first
// resource that claims it. A resource whose host later falls inside another account's zone keeps
// the name in its document but loses the claim to that account (docs/api/security.md).
import type { Db, Engine } from '../store/database.ts';
import { lockNameOwnership, ownersOf } from '../dns/name-ownership.ts';
import { ApiError, type FieldErrors } from '../errors.ts';
import { heldHosts, releaseHostsToAccount, type ResourceDetails, type ResourceRow } from '../store/resources.ts';

export interface HostClaim {
  name: string;
  /** JSON path of the name in the body, for the error's fields. */
  path: string;
}

/** The resource's name and aliases with where each came from in the body. */
export function hostClaims(name: string, aliases: string[]): HostClaim[] {
  return [{ name, path: 'name' }, ...aliases.map((alias, i) => ({ name: alias, path: `aliases[${String(i)}].alias_data` }))];
}

/**
 * In the writing transaction, before the host names are written: 409 for a host inside another
 * account's zone; the caller's own hosts (inside its zones) are taken from other accounts'
 * resources that held them, so that a squatter cannot keep a zone owner from its own names.
 */
export async function claimHosts(tx: Db, engine: Engine, accountId: number, claims: HostClaim[]): Promise<void> {
  await lockNameOwnership(tx, engine);
  const owners = await ownersOf(tx, claims.map((c) => c.name));
  const fields: FieldErrors = {};
  for (const claim of claims) {
    const owner = owners.get(claim.name);
    if (owner !== undefined && owner.accountId !== accountId) fields[claim.path] = `is inside ${owner.zone}, a zone of another account`;
  }
  if (Object.keys(fields).length > 0) {
    throw new ApiError(409, 'owned_by_another_account', 'a host name is inside a zone of another account: a name has one owner', { fields });
  }
  const own = claims.filter((c) => owners.get(c.name)?.accountId === accountId).map((c) => c.name);
  await releaseHostsToAccount(tx, accountId, own);
}

/**
 * The names and aliases each resource does not hold: taken by the account whose zone they fall
 * in, or inside such a zone of another account since the resource was written.
 */
export async function releasedHosts(db: Db, resources: ResourceRow[], details: Map<number, ResourceDetails>): Promise<Map<number, string[]>> {
  const declared = new Map(resources.map((r) => [r.id, [r.name, ...(details.get(r.id)?.aliases ?? []).map((a) => a.alias_data)]]));
  const [held, owners] = await Promise.all([heldHosts(db, resources.map((r) => r.id)), ownersOf(db, [...declared.values()].flat())]);
  return new Map(
    resources.map((r) => [
      r.id,
      (declared.get(r.id) ?? []).filter((host) => {
        const owner = owners.get(host);
        return !held.has(`${r.id} ${host}`) || (owner !== undefined && owner.accountId !== r.account_id);
      }),
    ]),
  );
}
