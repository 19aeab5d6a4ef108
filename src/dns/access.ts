// Finding a caller's zone by the name in a path: exact name only, and another account's zone is
// indistinguishable from a missing one (lego probes every parent of a name and needs the 404).
import type { Principal } from '../accounts/principal.ts';
import { notFound } from '../errors.ts';
import { findAccountZone, type ZoneRow } from '../store/zones.ts';
import type { Db } from '../store/database.ts';
import { canonicalName, NameError, trimName } from './names.ts';

export const zoneNotFound = () => notFound('zone is not found');
export const recordNotFound = () => notFound('record is not found');

/** The zone name a path names, canonical; a name that no zone could have answers 404 like a missing zone. */
export function zonePathName(pathName: string): string {
  try {
    return canonicalName(trimName(pathName));
  } catch (e) {
    if (e instanceof NameError) throw zoneNotFound();
    throw e;
  }
}

export async function callerZone(db: Db, caller: Principal, pathName: string): Promise<ZoneRow> {
  const zone = await findAccountZone(db, caller.accountId, zonePathName(pathName));
  if (zone === undefined) throw zoneNotFound();
  return zone;
}
