// Sums of one-minute buckets per interval of a statistics answer (statistics/range.ts): an interval
// starts at `from` plus a whole number of granularities.
import { sql, type RawBuilder } from 'kysely';

/** The start (Unix seconds) of the interval a row's `bucket` falls in. `from` and `granularity` are checked integers. */
export const intervalStart = (from: number, granularity: number): RawBuilder<number | string> =>
  sql<number | string>`(${sql.lit(from)} + ((bucket - ${sql.lit(from)}) / ${sql.lit(granularity)}) * ${sql.lit(granularity)})`;
