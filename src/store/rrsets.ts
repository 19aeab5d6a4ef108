// RRsets and their records. An RRset is replaced whole: its records are deleted and re-inserted
// in one transaction, so readers never see half an update.
import type { Selectable } from 'kysely';
import type { Db } from './database.ts';
import { forgetRemovedAddresses } from './failover.ts';
import type { RecordsTable, RrsetsTable } from './schema.ts';

export type RrsetRow = Selectable<RrsetsTable>;
export type RecordRow = Selectable<RecordsTable>;

export interface RrsetWithRecords extends RrsetRow {
  records: RecordRow[];
}

/** What a write stores: the RRset's own columns and its records'. */
export type RrsetData = Pick<RrsetRow, 'name' | 'type' | 'ttl' | 'meta' | 'pickers' | 'healthcheck'> & {
  records: Pick<RecordRow, 'content' | 'enabled' | 'meta'>[];
};

export function findRrset(db: Db, zoneId: number, name: string, type: string): Promise<RrsetRow | undefined> {
  return db.selectFrom('rrsets').selectAll().where('zone_id', '=', zoneId).where('name', '=', name).where('type', '=', type).executeTakeFirst();
}

/** Every RRset at one owner name of a zone (without records). */
export function rrsetsAtName(db: Db, zoneId: number, name: string): Promise<RrsetRow[]> {
  return db.selectFrom('rrsets').selectAll().where('zone_id', '=', zoneId).where('name', '=', name).execute();
}

/** Every RRset at any of `names` in a zone, with records; IN lists bounded like withRecords'. */
export async function rrsetsAtNames(db: Db, zoneId: number, names: readonly string[]): Promise<RrsetWithRecords[]> {
  const rows: RrsetRow[] = [];
  for (let i = 0; i < names.length; i += 5000) {
    rows.push(...(await db.selectFrom('rrsets').selectAll().where('zone_id', '=', zoneId).where('name', 'in', names.slice(i, i + 5000)).execute()));
  }
  return withRecords(db, rows);
}

export async function withRecords(db: Db, rrsets: RrsetRow[]): Promise<RrsetWithRecords[]> {
  if (rrsets.length === 0) return [];
  const records: RecordRow[] = [];
  // Bounded IN lists: SQLite allows 32,766 parameters, PostgreSQL 65,535.
  for (let i = 0; i < rrsets.length; i += 5000) {
    const ids = rrsets.slice(i, i + 5000).map((r) => r.id);
    records.push(...(await db.selectFrom('records').selectAll().where('rrset_id', 'in', ids).orderBy('rrset_id').orderBy('position').execute()));
  }
  const byRrset = Map.groupBy(records, (r) => r.rrset_id);
  // Field by field: spreading the driver's row objects is many times slower, and a zone load does it a million times.
  return rrsets.map((r) => ({
    id: r.id,
    zone_id: r.zone_id,
    name: r.name,
    type: r.type,
    ttl: r.ttl,
    meta: r.meta,
    pickers: r.pickers,
    healthcheck: r.healthcheck,
    updated_at: r.updated_at,
    records: byRrset.get(r.id) ?? [],
  }));
}

/** The address RRsets of enabled zones that health checks concern (`healthcheck` = 1), with records: every account's, or one's. */
export async function healthCheckedRrsets(db: Db, accountId?: number): Promise<RrsetWithRecords[]> {
  let query = db
    .selectFrom('rrsets')
    .innerJoin('zones', 'zones.id', 'rrsets.zone_id')
    .selectAll('rrsets')
    .where('rrsets.healthcheck', '=', 1)
    .where('zones.enabled', '=', 1)
    .where('rrsets.type', 'in', ['A', 'AAAA']);
  if (accountId !== undefined) query = query.where('zones.account_id', '=', accountId);
  return withRecords(db, await query.execute());
}

export async function zoneRrsets(db: Db, zoneId: number): Promise<RrsetWithRecords[]> {
  return withRecords(db, await db.selectFrom('rrsets').selectAll().where('zone_id', '=', zoneId).orderBy('name').orderBy('type').execute());
}

/**
 * A zone's RRsets in pages of about `size`, each page holding whole owner names (in name order), so
 * a reader of a large zone never holds all its rows at once.
 */
export async function* zoneRrsetPages(db: Db, zoneId: number, size = 1000): AsyncGenerator<RrsetWithRecords[]> {
  let after: string | undefined;
  for (;;) {
    const query = db.selectFrom('rrsets').selectAll().where('zone_id', '=', zoneId);
    const rows = await (after === undefined ? query : query.where('name', '>', after)).orderBy('name').orderBy('type').limit(size).execute();
    const last = rows.at(-1);
    if (last === undefined) return;
    // A full page may end inside a name: that name starts the next page.
    const whole = rows.length < size ? rows : rows.filter((r) => r.name !== last.name);
    if (whole.length === 0) throw new Error(`more than ${String(size)} RRsets at ${last.name}`);
    yield await withRecords(db, whole);
    if (rows.length < size) return;
    after = whole.at(-1)?.name;
  }
}

export type RrsetOrder = 'name' | 'type' | 'ttl' | 'updated_at';

export async function listRrsets(
  db: Db,
  zoneId: number,
  filter: { types: string[] },
  page: { offset: number; limit: number | undefined; orderBy: RrsetOrder; direction: 'asc' | 'desc' },
): Promise<{ rrsets: RrsetWithRecords[]; total: number }> {
  const base = () => {
    const query = db.selectFrom('rrsets').where('zone_id', '=', zoneId);
    return filter.types.length > 0 ? query.where('type', 'in', filter.types) : query;
  };
  const [rows, count] = await Promise.all([
    base()
      .selectAll()
      // Ties follow the requested direction too, so `desc` reverses the whole list.
      .orderBy(page.orderBy, page.direction)
      .orderBy('name', page.direction)
      .orderBy('type', page.direction)
      // SQLite needs a LIMIT before an OFFSET; "no limit" is the largest one both engines accept.
      .limit(page.limit ?? 2 ** 31 - 1)
      .offset(page.offset)
      .execute(),
    base().select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rrsets: await withRecords(db, rows), total: count.n };
}

/**
 * Inserts (existing undefined) or replaces an RRset with its records; returns the stored row and
 * records. The caller has looked the RRset up in the same transaction.
 */
export async function upsertRrset(
  db: Db,
  zoneId: number,
  data: RrsetData,
  at: string,
  existing: RrsetRow | undefined,
): Promise<{ rrset: RrsetWithRecords; created: boolean }> {
  const fields = { ttl: data.ttl, meta: data.meta, pickers: data.pickers, healthcheck: data.healthcheck, updated_at: at };
  const row = existing
    ? await db.updateTable('rrsets').set(fields).where('id', '=', existing.id).returningAll().executeTakeFirstOrThrow()
    : await db.insertInto('rrsets').values({ zone_id: zoneId, name: data.name, type: data.type, ...fields }).returningAll().executeTakeFirstOrThrow();
  if (existing) await db.deleteFrom('records').where('rrset_id', '=', row.id).execute();
  // Health check states are per address (failover.ts): those of addresses no longer here go.
  if (existing && (data.type === 'A' || data.type === 'AAAA')) {
    await forgetRemovedAddresses(db, row.id, data.records.map((r) => String((JSON.parse(r.content) as unknown[])[0])));
  }
  const records =
    data.records.length === 0
      ? []
      : await db
          .insertInto('records')
          .values(data.records.map((r, position) => ({ ...r, rrset_id: row.id, position })))
          .returningAll()
          .execute();
  records.sort((a, b) => a.position - b.position);
  return { rrset: { ...row, records }, created: existing === undefined };
}

export async function deleteRrset(db: Db, id: number): Promise<void> {
  await db.deleteFrom('rrsets').where('id', '=', id).execute();
}
