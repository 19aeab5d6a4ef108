// RRsets and their records. An RRset is replaced whole: its records are deleted and re-inserted
// in one transaction, so readers never see half an update.
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Db, Engine } from './database.ts';
import { inListMax, joinRecords } from './rrset-records.ts';
import type { RecordsTable, RrsetsTable } from './schema.ts';
import { deleteRrsetSqlite, writeRrsetSqlite } from './sqlite-change.ts';

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

/** Every RRset at any of `names` in a zone, with records. */
export async function rrsetsAtNames(db: Db, zoneId: number, names: readonly string[]): Promise<RrsetWithRecords[]> {
  const rows: RrsetRow[] = [];
  for (let i = 0; i < names.length; i += inListMax) {
    rows.push(...(await db.selectFrom('rrsets').selectAll().where('zone_id', '=', zoneId).where('name', 'in', names.slice(i, i + inListMax)).execute()));
  }
  return withRecords(db, rows);
}

export async function withRecords(db: Db, rrsets: RrsetRow[]): Promise<RrsetWithRecords[]> {
  if (rrsets.length === 0) return [];
  const records: RecordRow[] = [];
  for (let i = 0; i < rrsets.length; i += inListMax) {
    const ids = rrsets.slice(i, i + inListMax).map((r) => r.id);
    records.push(...(await db.selectFrom('records').selectAll().where('rrset_id', 'in', ids).orderBy('rrset_id').orderBy('position').execute()));
  }
  return joinRecords(rrsets, records);
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
  const [rrset] = await writeRrsets(db, engine, zoneId, [{ upsert: data, existing }], at);
  if (rrset === undefined) throw new Error(`RRset ${data.name} ${data.type} was not written`);
  return { rrset, created: existing === undefined };
}

/** One RRset write: `data` stored (replacing `existing`, the row there now, when there is one), or `row` deleted. */
export type RrsetWrite = { upsert: RrsetData; existing: RrsetRow | undefined } | { delete: RrsetRow };

/**
 * Does `writes` (no two of them to one RRset; the caller has looked each up in the same
 * transaction) and returns, for each, the RRset as stored with its records (undefined for a
 * delete). Health check states are per address (failover.ts): a replaced address RRset's states of
 * addresses no longer there go.
 */
export async function writeRrsets(db: Db, engine: Engine, zoneId: number, writes: readonly RrsetWrite[], at: string): Promise<(RrsetWithRecords | undefined)[]> {
  if (engine === 'postgres') return writeRrsetsInOneStatement(db, zoneId, writes, at);
  const stored: (RrsetWithRecords | undefined)[] = [];
  for (const write of writes) {
    if ('delete' in write) {
      await deleteRrsetSqlite(db, write.delete.id);
      stored.push(undefined);
    } else {
      stored.push(await writeRrsetSqlite(db, zoneId, write.upsert, at, write.existing));
    }
  }
  return stored;
}

/**
 * PostgreSQL: the RRset rows of zone `zoneId` at `names` (an array), looked up name by name in the
 * (zone_id, name, type) index. As `name = any(names)` in a prepared statement, the generic plan
 * (the planner cannot tell how many names the array holds) scanned every RRset of the zone and
 * filtered them: 0.9 ms at 3,000 RRsets, and growing with the zone. `offset 0` keeps the planner from
 * folding the lateral subquery into a join it could plan that way again.
 */
export function rrsetRowsAtNames(zoneId: RawBuilder<unknown> | number, names: readonly string[]): RawBuilder<RrsetRow> {
  return sql`select at_name.* from unnest(${names}::text[]) as n (name), lateral (select * from rrsets where zone_id = ${zoneId} and name = n.name offset 0) as at_name`;
}

/**
 * PostgreSQL: an RRset's row as JSON, with its records (`records`: the table, or the rows a statement
 * wrote). Every column is an integer or text, so the objects are the rows the other reads return:
 * one statement can lock or write RRsets and answer with them.
 */
export function rrsetJson(row: RawBuilder<unknown>, rrsetId: RawBuilder<unknown>, records: RawBuilder<unknown>): RawBuilder<RrsetWithRecords> {
  return sql`(${row}) || jsonb_build_object('records', coalesce((
    select jsonb_agg(to_jsonb(c) order by c.position) from ${records} as c where c.rrset_id = ${rrsetId}
  ), '[]'::jsonb))`;
}

/**
 * PostgreSQL: every RRset row, their old records' removal, their new records, the deletes and the
 * forgotten health states in one statement, so a batch of writes (dns/rrset-batch.ts) costs one
 * round trip to the server instead of one to three per write; on PostgreSQL a write's time goes to
 * round trips.
 */
async function writeRrsetsInOneStatement(db: Db, zoneId: number, writes: readonly RrsetWrite[], at: string): Promise<(RrsetWithRecords | undefined)[]> {
  const { rows } = await sql<{ i: number; rrset: RrsetWithRecords }>`
    with ${rrsetWriteParts(zoneId, writes, at, sql<boolean>`true`)}
    ${writtenRrsets}`.execute(db);
  return storedByWrite(writes, rows);
}

/**
 * PostgreSQL: the parts of a WITH that do `writes`, each only when `gate` holds (`true`, or the
 * guard of a guarded change: guarded-change.ts); `written` holds each stored RRset's row with the
 * index `i` of its write, `written_records` their records (writtenRrsets). Everything comes as
 * arrays (unnest), so the statement's text is the same whatever the number of writes. Every part of
 * a statement reads the snapshot it started with: the removal does not see the records inserted
 * beside it.
 */
export function rrsetWriteParts(zoneId: number, writes: readonly RrsetWrite[], at: string, gate: RawBuilder<boolean>): RawBuilder<unknown> {
  const upserts = writes.flatMap((w, i) => ('upsert' in w ? [{ ...w, i }] : []));
  const records = upserts.flatMap((w) => w.upsert.records.map((r, position) => ({ ...r, i: w.i, position })));
  const deleted = writes.flatMap((w) => ('delete' in w ? [w.delete.id] : []));
  return sql`
    given as (
      select * from unnest(
        ${upserts.map((w) => w.i)}::integer[], ${upserts.map((w) => w.existing?.id ?? null)}::integer[],
        ${upserts.map((w) => w.upsert.name)}::text[], ${upserts.map((w) => w.upsert.type)}::text[],
        ${upserts.map((w) => w.upsert.ttl)}::integer[], ${upserts.map((w) => w.upsert.meta)}::text[],
        ${upserts.map((w) => w.upsert.pickers)}::text[], ${upserts.map((w) => w.upsert.healthcheck)}::integer[]
      ) as g (i, existing, name, type, ttl, meta, pickers, healthcheck)
    ), given_records as (
      select * from unnest(
        ${records.map((r) => r.i)}::integer[], ${records.map((r) => r.position)}::integer[], ${records.map((r) => r.content)}::text[],
        ${records.map((r) => r.enabled)}::integer[], ${records.map((r) => r.meta)}::text[]
      ) as r (i, position, content, enabled, meta)
    ), updated as (
      update rrsets set ttl = g.ttl, meta = g.meta, pickers = g.pickers, healthcheck = g.healthcheck, updated_at = ${at}
      from given g where rrsets.id = g.existing and ${gate}
      returning rrsets.*, g.i
    ), inserted as (
      insert into rrsets (zone_id, name, type, ttl, meta, pickers, healthcheck, updated_at)
      select ${zoneId}, name, type, ttl, meta, pickers, healthcheck, ${at} from given where existing is null and ${gate}
      returning *
    ), written as (
      select * from updated
      union all
      select inserted.*, g.i from inserted join given g on g.existing is null and g.name = inserted.name and g.type = inserted.type
    ), removed as (
      delete from records where rrset_id in (select existing from given) and ${gate}
    ), dropped as (
      delete from rrsets where id = any(${deleted}::integer[]) and ${gate}
    ), forgotten as (
      delete from failover_states using updated
      where failover_states.rrset_id = updated.id and updated.type in ('A', 'AAAA')
        and failover_states.address <> all (array(select content::jsonb ->> 0 from given_records where given_records.i = updated.i))
    ), inserted_records as (
      insert into records (rrset_id, position, content, enabled, meta)
      select written.id, r.position, r.content, r.enabled, r.meta from given_records r join written on written.i = r.i
      returning *
    ), written_records as (
      select rrset_id, jsonb_agg(to_jsonb(c) order by c.position) as records from inserted_records c group by rrset_id
    )`;
}

/**
 * PostgreSQL: rrsetWriteParts' stored RRsets as rows (i, rrset): the index of each's write, and the
 * RRset with its records as rrsetJson makes it. The records are grouped once and joined: looked up
 * per RRset, as rrsetJson does in a table, they would be scanned whole for each (a WITH's rows have
 * no index), which made a 10,000-line import take seconds.
 */
export const writtenRrsets = sql<{ i: number; rrset: RrsetWithRecords }>`
  select written.i, (to_jsonb(written) - 'i') || jsonb_build_object('records', coalesce(wr.records, '[]'::jsonb)) as rrset
  from written left join written_records wr on wr.rrset_id = written.id`;

/** For each of `writes`, its RRset as stored (`rows`: writtenRrsets), or undefined for a delete. */
export function storedByWrite(writes: readonly RrsetWrite[], rows: readonly { i: number; rrset: RrsetWithRecords }[]): (RrsetWithRecords | undefined)[] {
  const byWrite = new Map(rows.map((r) => [r.i, r.rrset]));
  return writes.map((w, i) => {
    if ('delete' in w) return undefined;
    const rrset = byWrite.get(i);
    if (rrset === undefined) throw new Error(`RRset ${w.upsert.name} ${w.upsert.type} was not written`);
    return rrset;
  });
}

/** The RRset `write` will store, as the store returns it but for the ids it gives (0 for those not known yet); undefined for a delete. */
export function plannedRrset(zoneId: number, write: RrsetWrite, at: string): RrsetWithRecords | undefined {
  if ('delete' in write) return undefined;
  const { upsert: data, existing } = write;
  const id = existing?.id ?? 0;
  const { name, type, ttl, meta, pickers, healthcheck } = data;
  return { id, zone_id: zoneId, name, type, ttl, meta, pickers, healthcheck, updated_at: at, records: data.records.map((r, position) => ({ id: 0, rrset_id: id, position, ...r })) };
}
