// Zones repository. Reads a caller can steer are scoped by account; zone names are unique
// across the whole service.
import { sql, type Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { ZonesTable } from './schema.ts';

export type ZoneRow = Selectable<ZonesTable>;

export function findAccountZone(db: Db, accountId: number, name: string): Promise<ZoneRow | undefined> {
  return db.selectFrom('zones').selectAll().where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
}

/** A LIKE pattern matching `text` literally: `_` is common in names and must not act as a wildcard. */
const likeEscaped = (text: string) => text.replace(/[%_\\]/g, '\\$&');

/** Names per IN list: far below the bound parameters either engine takes in one statement. */
const namesPerQuery = 1000;

/** The zones with one of these names, whatever their account (who owns a name: dns/name-ownership.ts). */
export async function zonesNamed(db: Db, names: readonly string[]): Promise<Pick<ZoneRow, 'name' | 'account_id'>[]> {
  const rows: Pick<ZoneRow, 'name' | 'account_id'>[] = [];
  for (let i = 0; i < names.length; i += namesPerQuery) {
    const chunk = names.slice(i, i + namesPerQuery);
    rows.push(...(await db.selectFrom('zones').select(['name', 'account_id']).where('name', 'in', chunk).execute()));
  }
  return rows;
}

/** The name of a zone strictly below `name` held by another account than `accountId`, if any. */
export async function otherAccountZoneBelow(db: Db, accountId: number, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('zones')
    .select('name')
    .where('account_id', '!=', accountId)
    .where(sql<boolean>`${sql.ref('name')} like ${`%.${likeEscaped(name)}`} escape '\\'`)
    .orderBy('name')
    .limit(1)
    .executeTakeFirst();
  return row?.name;
}

/** Every zone's name and account: the start-up report of ownership conflicts reads them all. */
export function allZoneOwners(db: Db): Promise<Pick<ZoneRow, 'name' | 'account_id'>[]> {
  return db.selectFrom('zones').select(['name', 'account_id']).orderBy('name').execute();
}

/**
 * Raises the catalog serial (0005_zone_catalog.ts): called in every transaction that changes which
 * zones are served. It stays below 2^31 for any realistic number of such changes.
 */
export async function bumpCatalog(db: Db): Promise<void> {
  await db.updateTable('zone_catalog').set((eb) => ({ serial: eb('serial', '+', 1) })).where('id', '=', 1).execute();
}

export async function catalogSerial(db: Db): Promise<number> {
  const row = await db.selectFrom('zone_catalog').select('serial').where('id', '=', 1).executeTakeFirst();
  return row?.serial ?? 1;
}

/**
 * Raises the store's zone version (0007_zone_versions.ts) and returns it: once in every transaction
 * that changes a zone, after the zone's row is written or locked, so every such transaction takes
 * the rows in the same order. The version row then stays locked until the commit on PostgreSQL
 * (SQLite serialises writers): versions are handed out in commit order, and a reader that sees
 * version V has every change up to V committed before it.
 */
export async function nextVersion(db: Db): Promise<number> {
  const row = await db
    .updateTable('zone_version')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('id', '=', 1)
    .returning('version')
    .executeTakeFirstOrThrow();
  return row.version;
}

/** The store's zone version: every change of a zone committed so far has a version up to it. */
export async function storeVersion(db: Db): Promise<number> {
  const row = await db.selectFrom('zone_version').select('version').where('id', '=', 1).executeTakeFirst();
  return row?.version ?? 0;
}

/** The zones changed after `version` (created, updated, enabled or disabled; deleted ones are gone). */
export function zonesChangedSince(db: Db, version: number): Promise<Pick<ZoneRow, 'id' | 'name' | 'serial' | 'version' | 'enabled'>[]> {
  return db.selectFrom('zones').select(['id', 'name', 'serial', 'version', 'enabled']).where('version', '>', version).execute();
}

/** The ids and names of the enabled zones, `except` one name (the catalog's, never served as a zone). */
export function enabledZones(db: Db, except: string | undefined): Promise<Pick<ZoneRow, 'id' | 'name'>[]> {
  let query = db.selectFrom('zones').select(['id', 'name']).where('enabled', '=', 1);
  if (except !== undefined) query = query.where('name', '<>', except);
  return query.execute();
}

/** How many zones are enabled, `except` one name: tells a thread whether a zone was deleted. */
export async function enabledZoneCount(db: Db, except: string | undefined): Promise<number> {
  let query = db.selectFrom('zones').where('enabled', '=', 1);
  if (except !== undefined) query = query.where('name', '<>', except);
  const row = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return row.n;
}

export async function insertZone(db: Db, zone: Omit<ZoneRow, 'id' | 'version' | 'journal_from'>): Promise<ZoneRow> {
  const inserted = await db.insertInto('zones').values(zone).returning('id').executeTakeFirstOrThrow();
  const version = await nextVersion(db);
  const row = await db.updateTable('zones').set({ version }).where('id', '=', inserted.id).returningAll().executeTakeFirstOrThrow();
  await bumpCatalog(db);
  return row;
}

/** Deletes a zone (its RRsets and key go with it) and returns the version of that change. */
export async function deleteZone(db: Db, id: number): Promise<number> {
  await db.deleteFrom('zones').where('id', '=', id).execute();
  const version = await nextVersion(db);
  await bumpCatalog(db);
  return version;
}

export interface ZoneFilter {
  accountId: number;
  names: string[];
  exactMatch: boolean;
  enabled: boolean | undefined;
}

export type ZoneOrder = 'name' | 'id' | 'serial' | 'status' | 'created_at' | 'updated_at';

function filtered(db: Db, filter: ZoneFilter) {
  let query = db.selectFrom('zones').where('account_id', '=', filter.accountId);
  if (filter.names.length > 0) {
    query = query.where((eb) =>
      eb.or(
        filter.names.map((n) =>
          filter.exactMatch
            ? eb('name', '=', n)
            : // Both engines honour ESCAPE; `_` is common in names and must not act as a wildcard.
              sql<boolean>`${sql.ref('name')} like ${`%${likeEscaped(n)}%`} escape '\\'`,
        ),
      ),
    );
  }
  if (filter.enabled !== undefined) query = query.where('enabled', '=', filter.enabled ? 1 : 0);
  return query;
}

export async function listZones(
  db: Db,
  filter: ZoneFilter,
  page: { offset: number; limit: number | undefined; orderBy: ZoneOrder; direction: 'asc' | 'desc' },
): Promise<{ zones: ZoneRow[]; total: number }> {
  // `status` is derived from `enabled`: active sorts before disabled.
  const column = page.orderBy === 'status' ? 'enabled' : page.orderBy;
  const direction = page.orderBy === 'status' ? (page.direction === 'asc' ? 'desc' : 'asc') : page.direction;
  // SQLite needs a LIMIT before an OFFSET; "no limit" is the largest one both engines accept.
  const query = filtered(db, filter).selectAll().orderBy(column, direction).orderBy('id').limit(page.limit ?? 2 ** 31 - 1).offset(page.offset);
  const [zones, count] = await Promise.all([
    query.execute(),
    filtered(db, filter).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { zones, total: count.n };
}
