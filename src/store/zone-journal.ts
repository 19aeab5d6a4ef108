// The zone journal repository (0013_zone_journal.ts): entries appended in the transaction of each
// change (zone-change.ts), pruned right there to the per-zone bounds, and the entries an incremental
// transfer needs.
import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely';
import type { Db } from './database.ts';
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

/**
 * The statements, in order, that write `write` for the change at `version`: a number, or an
 * expression yielding it in the statement they join. An entry larger than the byte bound on its
 * own is not kept, and neither is anything older (no chain could cross it): the journal is cleared.
 * Each writes only when `gate` holds (on PostgreSQL, the guard of a guarded change: zone-change.ts).
 */
export function journalStatements(zoneId: number, write: JournalWrite, bounds: JournalBounds, version: RawBuilder<number>, gate: RawBuilder<boolean> = sql<boolean>`true`): RawBuilder<unknown>[] {
  const clear = sql`delete from zone_journal where zone_id = ${zoneId} and ${gate}`;
  if ('clear' in write || write.entry.size > bounds.bytes || bounds.versions < 1) return [clear];
  const { entry } = write;
  // The entries the new one pushes past the bounds go first, counting it in: newest first, the
  // first older entry past either bound and everything older. Nothing is sent back: the entry past
  // the count bound comes from the (zone_id, version) index; the entries are walked for the byte
  // bound only when their sum crosses it (a CASE evaluates its branch only then). On PostgreSQL
  // both join one statement, where the delete does not see the new row (the bounds count it in).
  const prune = sql`
    delete from zone_journal where zone_id = ${zoneId} and ${gate} and (
      version <= (select version from zone_journal where zone_id = ${zoneId} order by version desc limit 1 offset ${bounds.versions - 1})
      or version <= (case when (select sum(size) from zone_journal where zone_id = ${zoneId}) + ${entry.size} > ${bounds.bytes} then (
        select max(version) from (
          select version, ${entry.size} + sum(size) over (order by version desc) as kept from zone_journal where zone_id = ${zoneId}
        ) as newest_first where kept > ${bounds.bytes}
      ) end)
    )`;
  const insert = sql`
    insert into zone_journal (zone_id, version, serial_from, serial_to, removed, added, size)
    select ${zoneId}, ${version}, ${entry.serial_from}, ${entry.serial_to}, ${entry.removed}, ${entry.added}, ${entry.size} where ${gate}`;
  return [prune, insert];
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
