// Proxy request statistics repository: requests per resource, one-minute bucket and outcome, summed
// as proxy processes add their counts (security/proxy/request-stats.ts).
import { sql } from 'kysely';
import type { Db } from './database.ts';
import { intervalStart } from './intervals.ts';

export interface RequestCount {
  resource_id: number;
  /** Unix seconds of the bucket's start. */
  bucket: number;
  outcome: string;
  count: number;
}

/** Rows an insert carries at most: well under SQLite's 32,766 bound parameters (4 a row). */
const rowsPerInsert = 1000;

/** Adds the counts to what the store holds for their keys. */
export async function addRequestCounts(db: Db, rows: readonly RequestCount[]): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < rows.length; i += rowsPerInsert) {
      await tx
        .insertInto('proxy_request_counts')
        .values(rows.slice(i, i + rowsPerInsert))
        .onConflict((oc) => oc.columns(['resource_id', 'bucket', 'outcome']).doUpdateSet({ count: sql`proxy_request_counts.count + excluded.count` }))
        .execute();
    }
  });
}

export async function dropRequestCountsBefore(db: Db, bucket: number): Promise<void> {
  await db.deleteFrom('proxy_request_counts').where('bucket', '<', bucket).execute();
}

/** One resource, or every resource of an account. */
export type RequestCountFilter = RequestCountRange & ({ resourceId: number } | { accountId: number });

/** The ids of an account's resources, as a subquery: an account may have more than a query takes parameters. */
const accountResources = (db: Db, accountId: number) => db.selectFrom('resources').select('id').where('account_id', '=', accountId);

interface RequestCountRange {
  /** Unix seconds, inclusive. */
  from: number;
  /** Unix seconds, exclusive. */
  to: number;
  /** Seconds an interval spans (a multiple of 60). */
  granularity: number;
  outcome: string | undefined;
}

/** Requests per interval (its start, Unix seconds), the intervals with none left out, and per outcome over the range. */
export async function sumRequestCounts(db: Db, filter: RequestCountFilter): Promise<{ intervals: { start: number; count: number }[]; outcomes: Map<string, number> }> {
  const start = intervalStart(filter.from, filter.granularity);
  let rows = db
    .selectFrom('proxy_request_counts')
    .where('bucket', '>=', filter.from)
    .where('bucket', '<', filter.to);
  rows = 'resourceId' in filter ? rows.where('resource_id', '=', filter.resourceId) : rows.where('resource_id', 'in', accountResources(db, filter.accountId));
  if (filter.outcome !== undefined) rows = rows.where('outcome', '=', filter.outcome);
  // One statement, so both sums read the same rows: two (on PostgreSQL, on two connections) could
  // fall either side of a flush and disagree.
  const sums = await rows
    .select([start.as('start'), 'outcome', (eb) => eb.fn.sum<number | string>('count').as('count')])
    .groupBy([start, 'outcome'])
    .orderBy(start)
    .orderBy('outcome')
    .execute();
  const intervals: { start: number; count: number }[] = [];
  const outcomes = new Map<string, number>();
  for (const row of sums) {
    const count = Number(row.count);
    const at = Number(row.start);
    const last = intervals.at(-1);
    if (last?.start === at) last.count += count;
    else intervals.push({ start: at, count });
    outcomes.set(row.outcome, (outcomes.get(row.outcome) ?? 0) + count);
  }
  return { intervals, outcomes: new Map([...outcomes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}

export interface RequestSummaryFilter {
  accountId: number;
  /** Unix seconds, inclusive. */
  from: number;
  /** Unix seconds, exclusive. */
  to: number;
  /** Resources in the ranking at most. */
  limit: number;
}

export interface RequestSummary {
  outcomes: Map<string, number>;
  /** The resources with the most requests first (ties by name, then id). */
  topResources: { id: number; name: string; count: number }[];
}

/** An account's requests in a range summed by outcome and by resource; none of another account's. */
export async function summarizeRequestCounts(db: Db, filter: RequestSummaryFilter): Promise<RequestSummary> {
  const inRange = db
    .selectFrom('proxy_request_counts')
    .where('resource_id', 'in', accountResources(db, filter.accountId))
    .where('bucket', '>=', filter.from)
    .where('bucket', '<', filter.to);
  const [outcomes, top] = await Promise.all([
    inRange.select(['outcome', (eb) => eb.fn.sum<number | string>('count').as('count')]).groupBy('outcome').orderBy('outcome').execute(),
    inRange
      .innerJoin('resources', 'resources.id', 'proxy_request_counts.resource_id')
      .select(['resources.id as id', 'resources.name as name', (eb) => eb.fn.sum<number | string>('proxy_request_counts.count').as('requests')])
      .groupBy(['resources.id', 'resources.name'])
      .orderBy('requests', 'desc')
      .orderBy('resources.name')
      .orderBy('resources.id')
      .limit(filter.limit)
      .execute(),
  ]);
  return {
    outcomes: new Map(outcomes.map((r) => [r.outcome, Number(r.count)])),
    topResources: top.map((r) => ({ id: r.id, name: r.name, count: Number(r.requests) })),
  };
}
