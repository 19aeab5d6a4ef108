// The zone journal repository (0013_zone_journal.ts): entries appended in the transaction of each
// change (zone-change.ts), pruned right there to the per-zone bounds, and the entries an incremental
// transfer needs.
import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely';
import type { Db, Engine } from './database.ts';
import type { ZoneJournalTable } from './schema.ts';

export type JournalEntry = Selectable<ZoneJournalTable>;

/** How much history a zone keeps: at most `versions` entries and `bytes` octets of records (EDGEPLANE_DNS_JOURNAL_*). */
export interface JournalBounds {
  versions: number;
  bytes: number;
}

/** An entry to append: the version is the change's, which the statement writing it knows (zone-change.ts). */
export type NewJournalEntry = Omit<Insertable<ZoneJournalTable>, 'version'>;

/** What a change does to its zone's journal: append its entry, or forget the history (transfers from before it are full ones). */
export type JournalWrite = { entry: NewJournalEntry } | { clear: true };

/** What a change does to its zone's journal: statements to run in order, and the zone's `journal_from` after them. */
export interface JournalStatements {
  statements: RawBuilder<unknown>[];
  /** The lowest version a live entry can have once they ran: PostgreSQL's zone row keeps it. */
  from: RawBuilder<number>;
}

/**
 * The statements, in order, that write `write` for the change at `version`: a number, or an
 * expression yielding it in the statement they join. An entry larger than the byte bound on its
 * own is not kept, and neither is anything older (no chain could cross it): the journal is cleared.
 * Each writes only when `gate` holds (on PostgreSQL, the guard of a guarded change: zone-change.ts).
 *
 * On PostgreSQL every scan of the zone's entries starts at its row's `journal_from`
 * (0016_journal_from.ts). A deleted entry stays in PostgreSQL's table and index, dead, until VACUUM
 * removes it, and at thousands of changes a second (autovacuum looks once a minute) tens of
 * thousands of them lie at the old end of a zone's range: a prune that scanned the whole range took
 * 3 ms where it takes 0.3, and the zone's writes slowed as they went (bench/README.md, session 24).
 * The pruned entries are all below the oldest one left, which becomes the row's `journal_from`.
 */
export function journalStatements(
  engine: Engine,
  zoneId: number,
  write: JournalWrite,
  bounds: JournalBounds,
  version: RawBuilder<number>,
  gate: RawBuilder<boolean> = sql<boolean>`true`,
): JournalStatements {
  // The zone's live entries. SQLite's deletes leave nothing behind: there its row's journal_from stays 0.
  const live = engine === 'postgres' ? sql`zone_id = ${zoneId} and version >= (select journal_from from zones where id = ${zoneId})` : sql`zone_id = ${zoneId}`;
  const clear = sql`delete from zone_journal where ${live} and ${gate}`;
  if ('clear' in write || write.entry.size > bounds.bytes || bounds.versions < 1) return { statements: [clear], from: version };
  const { entry } = write;
  // The entries the new one pushes past the bounds go first, counting it in: newest first, the
  // first older entry past either bound and everything older. Nothing is sent back: the entry past
  // the count bound comes from the (zone_id, version, size) index; the entries are walked for the
  // byte bound only when their sum crosses it (a CASE evaluates its branch only then). On
  // PostgreSQL both join one statement, where the delete does not see the new row (the bounds
  // count it in).
  const countCut = sql<number>`(select version from zone_journal where ${live} order by version desc limit 1 offset ${bounds.versions - 1})`;
  const byteCut = sql<number>`(case when (select sum(size) from zone_journal where ${live}) + ${entry.size} > ${bounds.bytes} then (
    select max(version) from (
      select version, ${entry.size} + sum(size) over (order by version desc) as kept from zone_journal where ${live}
    ) as newest_first where kept > ${bounds.bytes}
  ) end)`;
  const prune = sql`delete from zone_journal where ${live} and ${gate} and (version <= ${countCut} or version <= ${byteCut})`;
  const insert = sql`
    insert into zone_journal (zone_id, version, serial_from, serial_to, removed, added, size)
    select ${zoneId}, ${version}, ${entry.serial_from}, ${entry.serial_to}, ${entry.removed}, ${entry.added}, ${entry.size} where ${gate}`;
  // The oldest entry the prune leaves (read as the statement found the journal, before it), else the new one.
  const left = sql<number>`(select version from zone_journal where ${live}
    and version > coalesce(${countCut}, 0) and version > coalesce(${byteCut}, 0) order by version limit 1)`;
  return { statements: [prune, insert], from: sql<number>`coalesce(${left}, ${version})` };
}

/**
 * The entries leading from serial `from` to serial `to`, the last of them at zone version `upTo` or
 * before, oldest first; undefined when the journal does not reach back to `from` unbroken.
 */
export async function journalChain(db: Db, zoneId: number, from: number, to: number, upTo: number): Promise<JournalEntry[] | undefined> {
  const heads = await db
    .selectFrom('zone_journal')
    .select(['id', 'serial_from', 'serial_to'])
    .where('zone_id', '=', zoneId)
    .where('version', '>=', (eb) => eb.selectFrom('zones').select('journal_from').where('id', '=', zoneId))
    .where('version', '<=', upTo)
    .orderBy('version')
    .execute();
  // Serials may come back after a wrap (RFC 1982): the latest entry leaving `from` starts the chain.
  const start = heads.findLastIndex((h) => h.serial_from === from);
  if (start < 0) return undefined;
  const chain = heads.slice(start);
  const unbroken = chain.every((h, i) => i === 0 || h.serial_from === chain[i - 1]?.serial_to);
  if (!unbroken || chain.at(-1)?.serial_to !== to) return undefined;
  const ids = chain.map((h) => h.id);
  const entries = await db.selectFrom('zone_journal').selectAll().where('id', 'in', ids).orderBy('version').execute();
  return entries.length === ids.length ? entries : undefined;
}
