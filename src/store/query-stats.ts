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

export interface QuerySummaryFilter {
  accountId: number;
  /** Unix seconds, inclusive. */
  from: number;
  /** Unix seconds, exclusive. */
  to: number;
  /** Zones in the ranking at most. */
  limit: number;
}

export interface QuerySummary {
  byType: { qtype: number; count: number }[];
  byRcode: { rcode: number; count: number }[];
  /** The zones with the most queries first (ties by name). */
  topZones: { name: string; count: number }[];
}

/** An account's queries in a range summed by QTYPE, by RCODE and by zone; none of another account's. */
export async function summarizeQueryCounts(db: Db, filter: QuerySummaryFilter): Promise<QuerySummary> {
  const inRange = db
    .selectFrom('dns_query_counts')
    .where('bucket', '>=', filter.from)
    .where('bucket', '<', filter.to)
    .where('zone_id', 'in', db.selectFrom('zones').select('id').where('account_id', '=', filter.accountId));
  const [byType, byRcode, topZones] = await Promise.all([
    inRange.select(['qtype', (eb) => eb.fn.sum<number | string>('count').as('count')]).groupBy('qtype').orderBy('qtype').execute(),
    inRange.select(['rcode', (eb) => eb.fn.sum<number | string>('count').as('count')]).groupBy('rcode').orderBy('rcode').execute(),
    // Named by a join on the same account: a zone id in the counts is the account's by the filter.
    inRange
      .innerJoin('zones', 'zones.id', 'dns_query_counts.zone_id')
      .select(['zones.name as name', (eb) => eb.fn.sum<number | string>('dns_query_counts.count').as('requests')])
      .groupBy(['zones.id', 'zones.name'])
      .orderBy('requests', 'desc')
      .orderBy('zones.name')
      .limit(filter.limit)
      .execute(),
  ]);
  return {
    byType: byType.map((r) => ({ qtype: r.qtype, count: Number(r.count) })),
    byRcode: byRcode.map((r) => ({ rcode: r.rcode, count: Number(r.count) })),
    topZones: topZones.map((r) => ({ name: r.name, count: Number(r.requests) })),
  };
}

/**
 * Queries answered for each zone of an account over every minute the store keeps, by zone name;
 * zones without any count 0. Only the account's zones: a count row is joined to its zone.
 */
export async function queryTotalsByZone(db: Db, accountId: number): Promise<{ id: number; name: string; count: number }[]> {
  const rows = await db
    .selectFrom('zones')
    .leftJoin('dns_query_counts', 'dns_query_counts.zone_id', 'zones.id')
    .select(['zones.id as id', 'zones.name as name', (eb) => eb.fn.coalesce(eb.fn.sum<number | string>('dns_query_counts.count'), eb.lit(0)).as('count')])
    .where('zones.account_id', '=', accountId)
    .groupBy(['zones.id', 'zones.name'])
    .orderBy('zones.name')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, count: Number(r.count) }));
}
