// The zone journal repository (0013_zone_journal.ts): entries appended in the transaction of each
// change, pruned right there to the per-zone bounds, and the entries an incremental transfer needs.
import type { Insertable, Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { ZoneJournalTable } from './schema.ts';

export type JournalEntry = Selectable<ZoneJournalTable>;

/** How much history a zone keeps: at most `versions` entries and `bytes` octets of records (EDGEPLANE_DNS_JOURNAL_*). */
export interface JournalBounds {
  versions: number;
  bytes: number;
}

/** Forgets a zone's history: transfers from before now are full ones. */
export async function clearJournal(db: Db, zoneId: number): Promise<void> {
  await db.deleteFrom('zone_journal').where('zone_id', '=', zoneId).execute();
}

/**
 * Appends an entry and drops the oldest beyond the bounds. An entry larger than the byte bound on
 * its own is not kept, and neither is anything older (no chain could cross it).
 */
export async function appendJournal(db: Db, entry: Insertable<ZoneJournalTable>, bounds: JournalBounds): Promise<void> {
  if (entry.size > bounds.bytes || bounds.versions < 1) {
    await clearJournal(db, entry.zone_id);
    return;
  }
  await db.insertInto('zone_journal').values(entry).execute();
  // One row back, from the (zone_id, version) index and the sizes: the newest entry past the count
  // bound, and the bytes kept. Walking the entries happens only when the byte bound is crossed.
  const zoneId = entry.zone_id;
  const { over, bytes } = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('zone_journal').select('version').where('zone_id', '=', zoneId).orderBy('version', 'desc').limit(1).offset(bounds.versions).as('over'),
      eb.selectFrom('zone_journal').select((e) => e.fn.sum<number | string>('size').as('bytes')).where('zone_id', '=', zoneId).as('bytes'),
    ])
    .executeTakeFirstOrThrow();
  const cut = Number(bytes) > bounds.bytes ? await bytesCut(db, zoneId, bounds.bytes) : undefined;
  const newestDropped = Math.max(over ?? -Infinity, cut ?? -Infinity);
  if (Number.isFinite(newestDropped)) await db.deleteFrom('zone_journal').where('zone_id', '=', zoneId).where('version', '<=', newestDropped).execute();
}

/** The newest entry that, counting from the newest, takes the zone's journal past `bytes`. */
async function bytesCut(db: Db, zoneId: number, bytes: number): Promise<number | undefined> {
  const rows = await db.selectFrom('zone_journal').select(['version', 'size']).where('zone_id', '=', zoneId).orderBy('version', 'desc').execute();
  let kept = 0;
  return rows.find((row) => (kept += row.size) > bytes)?.version;
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
