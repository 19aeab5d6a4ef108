// Query statistics repository: answered queries per zone, one-minute bucket, QTYPE and RCODE,
// summed as DNS threads and nodes add their counts (dns/server/query-stats.ts).
import { sql } from 'kysely';
import type { Db } from './database.ts';
import { intervalStart } from './intervals.ts';

export interface QueryCount {
  zone_id: number;
  /** Unix seconds of the bucket's start. */
  bucket: number;
  qtype: number;
  rcode: number;
  count: number;
}

/** Rows an insert carries at most: well under SQLite's 32,766 bound parameters (5 a row). */
const rowsPerInsert = 1000;

/** Adds the counts to what the store holds for their keys. */
export async function addQueryCounts(db: Db, rows: readonly QueryCount[]): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < rows.length; i += rowsPerInsert) {
      await tx
        .insertInto('dns_query_counts')
        .values(rows.slice(i, i + rowsPerInsert))
        .onConflict((oc) => oc.columns(['zone_id', 'bucket', 'qtype', 'rcode']).doUpdateSet({ count: sql`dns_query_counts.count + excluded.count` }))
        .execute();
    }
  });
}

export async function dropQueryCountsBefore(db: Db, bucket: number): Promise<void> {
  await db.deleteFrom('dns_query_counts').where('bucket', '<', bucket).execute();
}

export interface QueryCountFilter {
  /** One zone, or every zone of an account (chosen in the query: an account may have more zones than a query takes parameters). */
  zones: { zoneId: number } | { accountId: number };
  /** Unix seconds, inclusive. */
  from: number;
  /** Unix seconds, exclusive. */
  to: number;
  /** Seconds a result bucket spans (a multiple of 60). */
  granularity: number;
  qtype: number | undefined;
}

/** Queries per result bucket (its start, Unix seconds), the buckets with none left out. */
export async function sumQueryCounts(db: Db, filter: QueryCountFilter): Promise<{ start: number; count: number }[]> {
  const start = intervalStart(filter.from, filter.granularity);
  const zones = filter.zones;
  let query = db
    .selectFrom('dns_query_counts')
    .select([start.as('start'), (eb) => eb.fn.sum<number | string>('count').as('count')])
    .where('bucket', '>=', filter.from)
    .where('bucket', '<', filter.to);
  query = 'zoneId' in zones ? query.where('zone_id', '=', zones.zoneId) : query.where('zone_id', 'in', db.selectFrom('zones').select('id').where('account_id', '=', zones.accountId));
  if (filter.qtype !== undefined) query = query.where('qtype', '=', filter.qtype);
  const rows = await query.groupBy(start).orderBy(start).execute();
  return rows.map((r) => ({ start: Number(r.start), count: Number(r.count) }));
}
