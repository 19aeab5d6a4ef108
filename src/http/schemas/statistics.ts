// Query strings and answers of the statistics endpoints (statistics/range.ts).
import { Type } from 'typebox';
import { BoundedInteger } from './common.ts';

const unixSeconds = (description: string) => BoundedInteger({ minimum: 0, maximum: 2 ** 40, description });

/** from, to and granularity, as the provider names them. */
export const rangeQuery = {
  from: Type.Optional(unixSeconds('start of the range, Unix seconds (rounded down to the minute); default: 24 hours before `to`')),
  to: Type.Optional(unixSeconds('end of the range, Unix seconds, exclusive; default: now')),
  granularity: Type.Optional(Type.String({ maxLength: 32, description: 'interval length as a Go duration (5m, 1h, 24h): a whole number of minutes; default 1h' })),
};

/** Counts per interval and their total. */
export const intervalCounts = {
  requests: Type.Record(Type.String(), Type.Integer(), { description: 'counts per interval, keyed by the interval\'s start in Unix milliseconds; intervals without any are left out' }),
  total: Type.Integer(),
};

/** from and to of a summary, which sums the whole range (no granularity). */
export const summaryQuery = {
  from: rangeQuery.from,
  to: rangeQuery.to,
};

/** How many of the busiest zones or resources a summary names. */
export const topLimit = (what: string) => Type.Optional(BoundedInteger({ minimum: 1, maximum: 100, description: `${what} in the ranking at most (1–100); default 10` }));

/** Counts keyed by a name (record type, response code, outcome); names without any are left out. */
export const countsByName = (description: string) => Type.Record(Type.String(), Type.Integer(), { description });
