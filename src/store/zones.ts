// Zones repository. Reads a caller can steer are scoped by account; zone names are unique
// across the whole service.
import { sql, type Selectable } from 'kysely';
import type { Db, Engine } from './database.ts';
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

/** Reads the zone inside a transaction, locking its row on PostgreSQL so writers of one zone queue up. */
export function lockZone(db: Db, engine: Engine, id: number): Promise<ZoneRow> {
  const query = db.selectFrom('zones').selectAll().where('id', '=', id);
  // SQLite has no row locks; its writers are serialised by the database lock.
  return (engine === 'postgres' ? query.forUpdate() : query).executeTakeFirstOrThrow();
}

/**
 * Raises the catalog serial (0005_zone_catalog.ts): called in every transaction that changes which
 * zones are served. It stays below 2^31 for any realistic number of such changes.
 */
async function bumpCatalog(db: Db): Promise<void> {
  await db.updateTable('zone_catalog').set((eb) => ({ serial: eb('serial', '+', 1) })).where('id', '=', 1).execute();
}

export async function catalogSerial(db: Db): Promise<number> {
  const row = await db.selectFrom('zone_catalog').select('serial').where('id', '=', 1).executeTakeFirst();
  return row?.serial ?? 1;
}

export async function insertZone(db: Db, zone: Omit<ZoneRow, 'id'>): Promise<ZoneRow> {
  const row = await db.insertInto('zones').values(zone).returningAll().executeTakeFirstOrThrow();
  await bumpCatalog(db);
  return row;
}

export async function updateZone(db: Db, id: number, changes: Partial<Omit<ZoneRow, 'id' | 'account_id' | 'name'>>): Promise<void> {
  await db.updateTable('zones').set(changes).where('id', '=', id).execute();
  if (changes.enabled !== undefined) await bumpCatalog(db);
}

export async function deleteZone(db: Db, id: number): Promise<void> {
  await db.deleteFrom('zones').where('id', '=', id).execute();
  await bumpCatalog(db);
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
