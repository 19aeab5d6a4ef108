// RRsets put together with their records, read from the two tables: every read of RRsets with
// records (rrsets.ts withRecords, SQLite's batch read in sqlite-change.ts) joins them here.
import type { RecordRow, RrsetRow, RrsetWithRecords } from './rrsets.ts';

/** Values per IN list: SQLite allows 32,766 parameters, PostgreSQL 65,535. */
export const inListMax = 5000;

/** Each of `rrsets` with its records from `records`, in the order given there. */
export function joinRecords(rrsets: readonly RrsetRow[], records: readonly RecordRow[]): RrsetWithRecords[] {
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
