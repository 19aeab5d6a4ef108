// The store's side of one committed zone change (dns/commit.ts): the zone's row, locked, with the
// RRsets at the names the change may touch; then the zone's new fields, the store's version step,
// the change's journal entry and the NOTIFY to other nodes. On PostgreSQL each of the two is one
// statement, where a change's time goes to round trips to the server (bench/README.md): a batch of
// RRset writes (dns/rrset-batch.ts) makes five (begin, the lock, its writes: rrsets.ts writeRrsets,
// the change, commit) instead of seven and one to three per write.
import { sql } from 'kysely';
import type { Db, Engine } from './database.ts';
import { rrsetJson, rrsetsAtNames, type RrsetWithRecords } from './rrsets.ts';
import { journalStatements, type JournalBounds, type JournalWrite } from './zone-journal.ts';
import { bumpCatalog, nextVersion, type ZoneRow } from './zones.ts';

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
  const row = await ('id' in zone ? db.selectFrom('zones').selectAll().where('id', '=', zone.id) : db.selectFrom('zones').selectAll().where('name', '=', zone.name)).executeTakeFirst();
  return row === undefined ? undefined : { zone: row, here: names.length === 0 ? [] : await rrsetsAtNames(db, row.id, names) };
}

/** The zone's row and its RRsets at `names` with their records, as JSON built by the server (rrsetJson). */
async function lockZoneInOneStatement(db: Db, which: { id: number } | { name: string }, names: readonly string[]) {
  const where = 'id' in which ? sql`id = ${which.id}` : sql`name = ${which.name}`;
  const { rows } = await sql<{ zone: ZoneRow; here: RrsetWithRecords[] }>`
    select to_jsonb(z) as zone, coalesce((
      select jsonb_agg(${rrsetJson(sql`to_jsonb(r)`, sql.ref('r.id'), sql.table('records'))})
      from rrsets r where r.zone_id = z.id and r.name = any(${names}::text[])
    ), '[]'::jsonb) as here
    from (select * from zones where ${where} for update) as z`.execute(db);
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
    const journal = journalStatements(zoneId, change.journal, change.bounds, sql<number>`(select version from next)`);
    // A field given as undefined is left as it is (as Kysely's set() does).
    const set = Object.entries(fields as Record<string, unknown>).flatMap(([column, value]) => (value === undefined ? [] : [sql`${sql.ref(column)} = ${value}`]));
    const { rows } = await sql<{ version: number }>`
      with next as (update zone_version set version = version + 1 where id = 1 returning version),
      updated as (update zones set ${sql.join([...set, sql`version = (select version from next)`])} where id = ${zoneId} returning version),
      ${sql.join(journal.map((statement, i) => sql`${sql.raw(`journal${String(i)}`)} as (${statement})`))}
      select version, pg_notify(${change.notice.channel}, jsonb_set(${change.notice.payload}::jsonb, '{version}', to_jsonb(version))::text)
      from updated`.execute(db);
    const row = rows[0];
    if (row === undefined) throw new Error(`zone ${String(zoneId)} was not written`);
    version = row.version;
  } else {
    version = await nextVersion(db);
    await db.updateTable('zones').set({ ...fields, version }).where('id', '=', zoneId).execute();
    for (const statement of journalStatements(zoneId, change.journal, change.bounds, sql<number>`${version}`)) await statement.execute(db);
  }
  if (fields.enabled !== undefined) await bumpCatalog(db);
  return version;
}
