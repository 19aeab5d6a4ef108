// SQLite's side of a zone change (zone-change.ts, and rrsets.ts writeRrsets), as SQL written out
// once: Kysely builds a query's tree and compiles it to text at every call, which costs more than
// SQLite takes to run statements this small, and an RRset write runs several (bench/README.md,
// "api": a quarter of the store's time went to Kysely). Values are always bound parameters; the
// only text that varies is the count of placeholders and, for a zone's fields, column names from
// the allowlist below. sqlite.ts keeps each text's prepared statement.
import { CompiledQuery } from 'kysely';
import type { Db } from './database.ts';
import { inListMax, joinRecords } from './rrset-records.ts';
import type { RecordRow, RrsetData, RrsetRow, RrsetWithRecords } from './rrsets.ts';
import type { ZoneRow } from './zones.ts';

/** The rows `text` answers with, run on `db` (a transaction's too) without Kysely's builder. */
async function rows<R>(db: Db, text: string, parameters: unknown[]): Promise<R[]> {
  return (await db.executeQuery<R>(CompiledQuery.raw(text, parameters))).rows;
}

/** Runs `text`, which answers with no rows; the rowid of the last row it inserted. */
async function run(db: Db, text: string, parameters: unknown[]): Promise<number> {
  return Number((await db.executeQuery(CompiledQuery.raw(text, parameters))).insertId);
}

/** Texts of placeholders made so far, for the counts a batch meets most (up to 64 names or records). */
const madePlaceholders = new Map<string, string>();

/** `?, ?, ?` for `count` values, or `(?, ?), (?, ?)` for `count` rows of `columns`. */
function placeholders(count: number, columns = 1): string {
  const key = `${String(count)}x${String(columns)}`;
  let text = madePlaceholders.get(key);
  if (text === undefined) {
    const one = columns === 1 ? '?' : `(${Array.from({ length: columns }, () => '?').join(', ')})`;
    text = Array.from({ length: count }, () => one).join(', ');
    if (count <= 64) madePlaceholders.set(key, text);
  }
  return text;
}

/** The zone's row (by id, or by its name) and the RRsets at `names` with their records; undefined when there is none. */
export async function zoneWithRrsetsSqlite(db: Db, zone: { id: number } | { name: string }, names: readonly string[]): Promise<{ zone: ZoneRow; here: RrsetWithRecords[] } | undefined> {
  const [row] = 'id' in zone ? await rows<ZoneRow>(db, 'select * from zones where id = ?', [zone.id]) : await rows<ZoneRow>(db, 'select * from zones where name = ?', [zone.name]);
  if (row === undefined) return undefined;
  const rrsets: RrsetRow[] = [];
  for (let i = 0; i < names.length; i += inListMax) {
    const some = names.slice(i, i + inListMax);
    rrsets.push(...(await rows<RrsetRow>(db, `select * from rrsets where zone_id = ? and name in (${placeholders(some.length)})`, [row.id, ...some])));
  }
  const records: RecordRow[] = [];
  for (let i = 0; i < rrsets.length; i += inListMax) {
    const ids = rrsets.slice(i, i + inListMax).map((r) => r.id);
    records.push(...(await rows<RecordRow>(db, `select * from records where rrset_id in (${placeholders(ids.length)}) order by rrset_id, position`, ids)));
  }
  return { zone: row, here: joinRecords(rrsets, records) };
}

/**
 * Stores `data` (replacing `existing`, the row there now, when there is one) and answers it as
 * stored. Nothing is read back (RETURNING costs SQLite about three times the statement): the rows
 * are what was written, the ids SQLite gave. The records' ids follow one another: an INSERT of
 * several rows gives each the table's largest id so far plus one (AUTOINCREMENT, migrations/index.ts),
 * in order, in a transaction no other connection writes in.
 */
export async function writeRrsetSqlite(db: Db, zoneId: number, data: RrsetData, at: string, existing: RrsetRow | undefined): Promise<RrsetWithRecords> {
  const { name, type, ttl, meta, pickers, healthcheck } = data;
  let id: number;
  if (existing) {
    id = existing.id;
    await run(db, 'update rrsets set ttl = ?, meta = ?, pickers = ?, healthcheck = ?, updated_at = ? where id = ?', [ttl, meta, pickers, healthcheck, at, id]);
    await run(db, 'delete from records where rrset_id = ?', [id]);
    // Health states are per address (failover.ts): those of addresses no longer here go.
    if (type === 'A' || type === 'AAAA') {
      const addresses = data.records.map((r) => String((JSON.parse(r.content) as unknown[])[0]));
      await run(db, 'delete from failover_states where rrset_id = ? and address not in (select value from json_each(?))', [id, JSON.stringify(addresses)]);
    }
  } else {
    id = await run(db, 'insert into rrsets (zone_id, name, type, ttl, meta, pickers, healthcheck, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)', [zoneId, name, type, ttl, meta, pickers, healthcheck, at]);
  }
  const count = data.records.length;
  const last = count === 0 ? 0 : await run(db, `insert into records (rrset_id, position, content, enabled, meta) values ${placeholders(count, 5)}`, data.records.flatMap((r, position) => [id, position, r.content, r.enabled, r.meta]));
  const records = data.records.map((r, position) => ({ id: last - count + 1 + position, rrset_id: id, position, content: r.content, enabled: r.enabled, meta: r.meta }));
  return { id, zone_id: existing?.zone_id ?? zoneId, name, type, ttl, meta, pickers, healthcheck, updated_at: at, records };
}

/** Deletes an RRset (its records and health states go with it: ON DELETE CASCADE). */
export async function deleteRrsetSqlite(db: Db, id: number): Promise<void> {
  await run(db, 'delete from rrsets where id = ?', [id]);
}

/** The zone columns a change may set: the only names that reach a statement's text. */
const zoneColumns = new Set(['contact', 'primary_server', 'serial', 'refresh', 'retry', 'expiry', 'nx_ttl', 'enabled', 'dnssec_enabled', 'meta', 'updated_at']);

/** Takes the store's next zone version and writes it with `fields` to the zone's row; returns the version. */
export async function writeZoneFieldsSqlite(db: Db, zoneId: number, fields: Partial<Record<string, unknown>>): Promise<number> {
  const [step] = await rows<{ version: number }>(db, 'update zone_version set version = version + 1 where id = 1 returning version', []);
  if (step === undefined) throw new Error('the store has no zone version row');
  // A field given as undefined is left as it is (as Kysely's set() does).
  const set = Object.entries(fields).filter(([, value]) => value !== undefined);
  for (const [column] of set) if (!zoneColumns.has(column)) throw new Error(`a zone change cannot set ${column}`);
  await rows(db, `update zones set ${[...set.map(([column]) => `${column} = ?`), 'version = ?'].join(', ')} where id = ?`, [...set.map(([, value]) => value), step.version, zoneId]);
  return step.version;
}
