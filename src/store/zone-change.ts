// The store's side of one committed zone change (dns/commit.ts): the zone's row, locked, with the
// RRsets at the names the change may touch; then the zone's new fields, the store's version step,
// the change's journal entry and the NOTIFY to other nodes. On PostgreSQL each of the two is one
// statement, where a change's time goes to round trips to the server (bench/README.md): a batch of
// RRset writes (dns/rrset-batch.ts) makes five (begin, the lock, its writes: rrsets.ts writeRrsets,
// the change, commit) instead of seven and one to three per write; as a guarded change
// (guarded-change.ts: readZone, then one statement with the writes and zoneChangeParts) it makes two.
import { sql, type RawBuilder } from 'kysely';
import type { Db, Engine } from './database.ts';
import { prepared } from './prepared.ts';
import { rrsetJson, rrsetRowsAtNames, type RrsetWithRecords } from './rrsets.ts';
import { writeZoneFieldsSqlite, zoneWithRrsetsSqlite } from './sqlite-change.ts';
import { journalStatements, type JournalBounds, type JournalWrite } from './zone-journal.ts';
import { bumpCatalog, type ZoneRow } from './zones.ts';

/**
 * Reads the zone (by id, or by its name, unique across the service) inside a transaction, locking
 * its row on PostgreSQL so writers of one zone queue up, and the RRsets (with records) at `names`;
 * undefined when there is no such zone.
 */
export async function lockZone(
  db: Db,
  engine: Engine,
  zone: { id: number } | { name: string },
  names: readonly string[],
): Promise<{ zone: ZoneRow; here: RrsetWithRecords[] } | undefined> {
  if (engine === 'postgres') return lockZoneInOneStatement(db, zone, names);
  // SQLite has no row locks; its writers are serialised by the database lock.
  return zoneWithRrsetsSqlite(db, zone, names);
}

/**
 * PostgreSQL, without a transaction: the zone (by name) and its RRsets at `names`, as lockZone reads
 * them but taking no lock. A guarded change (guarded-change.ts) is planned against what this reads.
 */
export async function readZone(db: Db, name: string, names: readonly string[]): Promise<{ zone: ZoneRow; here: RrsetWithRecords[] } | undefined> {
  return zoneWithRrsets(db, sql`name = ${name}`, names, sql``);
}

/** The zone's row and its RRsets at `names` with their records, as JSON built by the server (rrsetJson). */
function lockZoneInOneStatement(db: Db, which: { id: number } | { name: string }, names: readonly string[]) {
  return zoneWithRrsets(db, 'id' in which ? sql`id = ${which.id}` : sql`name = ${which.name}`, names, sql`for update`);
}

async function zoneWithRrsets(db: Db, where: RawBuilder<unknown>, names: readonly string[], lock: RawBuilder<unknown>) {
  // One text whatever the zone and names (an array): prepared.
  const { rows } = await prepared(sql<{ zone: ZoneRow; here: RrsetWithRecords[] }>`
    select to_jsonb(z) as zone, coalesce((
      select jsonb_agg(${rrsetJson(sql`to_jsonb(r)`, sql.ref('r.id'), sql.table('records'))})
      from (${rrsetRowsAtNames(sql.ref('z.id'), names)}) as r
    ), '[]'::jsonb) as here
    from (select * from zones where ${where} ${lock}) as z`).execute(db);
  return rows[0];
}

/** Told to other nodes when the change commits (PostgreSQL NOTIFY); the statement sets its `version`. */
export interface ChangeNotice {
  channel: string;
  /** A JSON object. */
  payload: string;
}

export interface ZoneChangeWrite {
  zoneId: number;
  /** The zone's new field values: the serial and `updated_at` at least. */
  fields: Partial<Omit<ZoneRow, 'id' | 'account_id' | 'name' | 'version'>>;
  journal: JournalWrite;
  bounds: JournalBounds;
  notice: ChangeNotice;
}

/**
 * Writes the zone's fields with the store's next zone version, the journal entry at that version
 * and, on PostgreSQL, the notice; returns the version. The caller holds the zone's row lock, so the
 * version row is always taken after it (0007_zone_versions.ts).
 */
export async function writeZoneChange(db: Db, engine: Engine, change: ZoneChangeWrite): Promise<number> {
  const { zoneId, fields } = change;
  let version: number;
  if (engine === 'postgres') {
    const { rows } = await sql<{ version: number }>`with ${zoneChangeParts(change, sql<boolean>`true`)} ${zoneChangeAnswer(change.notice)}`.execute(db);
    const row = rows[0];
    if (row === undefined) throw new Error(`zone ${String(zoneId)} was not written`);
    version = row.version;
  } else {
    version = await writeZoneFieldsSqlite(db, zoneId, fields);
    // The zone's journal_from stays 0: SQLite's deletes leave nothing for a scan to step over.
    for (const statement of journalStatements('sqlite', zoneId, change.journal, change.bounds, sql<number>`${version}`).statements) await statement.execute(db);
  }
  if (fields.enabled !== undefined) await bumpCatalog(db);
  return version;
}

/**
 * PostgreSQL: the parts of a WITH that write a change (the version step, the zone's fields, the
 * journal), each done only when `gate` holds: `true`, or the guard of a guarded change. The step
 * is `next_version`, the zone's row as written `zone_after`.
 */
export function zoneChangeParts(change: ZoneChangeWrite, gate: RawBuilder<boolean>): RawBuilder<unknown> {
  const { zoneId, fields } = change;
  const journal = journalStatements('postgres', zoneId, change.journal, change.bounds, sql<number>`(select version from next_version)`, gate);
  // A field given as undefined is left as it is (as Kysely's set() does).
  const set = Object.entries(fields as Record<string, unknown>).flatMap(([column, value]) => (value === undefined ? [] : [sql`${sql.ref(column)} = ${value}`]));
  return sql.join([
    sql`next_version as (update zone_version set version = version + 1 where id = 1 and ${gate} returning version)`,
    sql`zone_after as (update zones set ${sql.join([...set, sql`version = (select version from next_version)`, sql`journal_from = ${journal.from}`])} where id = ${zoneId} and ${gate} returning version)`,
    ...journal.statements.map((statement, i) => sql`${sql.raw(`journal${String(i)}`)} as (${statement})`),
  ]);
}

/** The select closing zoneChangeParts' WITH: the version taken, and the notice sent with it; no row when the gate did not hold. */
export function zoneChangeAnswer(notice: ChangeNotice, more: RawBuilder<unknown> = sql``): RawBuilder<unknown> {
  return sql`select version, pg_notify(${notice.channel}, jsonb_set(${notice.payload}::jsonb, '{version}', to_jsonb(version))::text) ${more} from zone_after`;
}
