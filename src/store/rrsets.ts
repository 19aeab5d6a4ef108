// RRsets and their records. An RRset is replaced whole: its records are deleted and re-inserted
// in one transaction, so readers never see half an update.
import { sql, type Selectable } from 'kysely';
import type { Db, Engine } from './database.ts';
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
  engine: Engine,
  zoneId: number,
  data: RrsetData,
  at: string,
  existing: RrsetRow | undefined,
): Promise<{ rrset: RrsetWithRecords; created: boolean }> {
  const rrset = engine === 'postgres' ? await writeRrsetInOneStatement(db, zoneId, data, at, existing) : await writeRrsetStatements(db, zoneId, data, at, existing);
  // Health check states are per address (failover.ts): those of addresses no longer here go.
  if (existing && (data.type === 'A' || data.type === 'AAAA')) {
    await forgetRemovedAddresses(db, rrset.id, data.records.map((r) => String((JSON.parse(r.content) as unknown[])[0])));
  }
  return { rrset, created: existing === undefined };
}

/** SQLite: one statement per table (its statements cost no round trip). */
async function writeRrsetStatements(db: Db, zoneId: number, data: RrsetData, at: string, existing: RrsetRow | undefined): Promise<RrsetWithRecords> {
  const fields = { ttl: data.ttl, meta: data.meta, pickers: data.pickers, healthcheck: data.healthcheck, updated_at: at };
  const row = existing
    ? await db.updateTable('rrsets').set(fields).where('id', '=', existing.id).returningAll().executeTakeFirstOrThrow()
    : await db.insertInto('rrsets').values({ zone_id: zoneId, name: data.name, type: data.type, ...fields }).returningAll().executeTakeFirstOrThrow();
  if (existing) await db.deleteFrom('records').where('rrset_id', '=', row.id).execute();
  const records =
    data.records.length === 0
      ? []
      : await db
          .insertInto('records')
          .values(data.records.map((r, position) => ({ ...r, rrset_id: row.id, position })))
          .returningAll()
          .execute();
  records.sort((a, b) => a.position - b.position);
  return { ...row, records };
}

/** A row of writeRrsetInOneStatement's answer: the RRset's columns and one of its records' (null without records). */
interface RrsetRecordRow extends RrsetRow {
  record_id: number | null;
  record_position: number | null;
  record_content: string | null;
  record_enabled: number | null;
  record_meta: string | null;
}

/**
 * PostgreSQL: the RRset row, its old records' removal and its new records in one statement, so a
 * write costs one round trip to the server instead of three. The records come as arrays (unnest),
 * so the statement's text is the same whatever their number. The removal does not see the records
 * inserted beside it (every part of a statement reads the snapshot it started with).
 */
async function writeRrsetInOneStatement(db: Db, zoneId: number, data: RrsetData, at: string, existing: RrsetRow | undefined): Promise<RrsetWithRecords> {
  const written = existing
    ? sql`written as (
        update rrsets set ttl = ${data.ttl}, meta = ${data.meta}, pickers = ${data.pickers}, healthcheck = ${data.healthcheck}, updated_at = ${at}
        where id = ${existing.id} returning *
      ), removed as (delete from records where rrset_id = ${existing.id})`
    : sql`written as (
        insert into rrsets (zone_id, name, type, ttl, meta, pickers, healthcheck, updated_at)
        values (${zoneId}, ${data.name}, ${data.type}, ${data.ttl}, ${data.meta}, ${data.pickers}, ${data.healthcheck}, ${at}) returning *
      )`;
  const { rows } = await sql<RrsetRecordRow>`
    with ${written}, inserted as (
      insert into records (rrset_id, position, content, enabled, meta)
      select written.id, given.position - 1, given.content, given.enabled, given.meta
      from written, unnest(${data.records.map((r) => r.content)}::text[], ${data.records.map((r) => r.enabled)}::integer[], ${data.records.map((r) => r.meta)}::text[])
        with ordinality as given (content, enabled, meta, position)
      returning *
    )
    select written.*, inserted.id as record_id, inserted.position as record_position, inserted.content as record_content,
      inserted.enabled as record_enabled, inserted.meta as record_meta
    from written left join inserted on true order by inserted.position`.execute(db);
  const [first] = rows;
  if (first === undefined) throw new Error(`RRset ${data.name} ${data.type} was not written`);
  const rrset: RrsetWithRecords = {
    id: first.id,
    zone_id: first.zone_id,
    name: first.name,
    type: first.type,
    ttl: first.ttl,
    meta: first.meta,
    pickers: first.pickers,
    healthcheck: first.healthcheck,
    updated_at: first.updated_at,
    records: [],
  };
  for (const r of rows) {
    if (r.record_id === null) continue;
    rrset.records.push({ id: r.record_id, rrset_id: r.id, position: r.record_position ?? 0, content: r.record_content ?? '', enabled: r.record_enabled ?? 0, meta: r.record_meta ?? '' });
  }
  return rrset;
}

export async function deleteRrset(db: Db, id: number): Promise<void> {
  await db.deleteFrom('rrsets').where('id', '=', id).execute();
}
