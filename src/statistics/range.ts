// The time range and granularity a statistics endpoint is asked for (`from`, `to` in Unix seconds,
// `granularity` a Go duration as the provider takes it), checked: counts are kept in one-minute
// buckets, so intervals start at `from` rounded down to the minute and last whole minutes.
import { invalid } from '../errors.ts';

/** Seconds a stored bucket spans: the finest granularity answered. */
export const bucketSeconds = 60;

export interface RangeQuery {
  from?: number | undefined;
  to?: number | undefined;
  granularity?: string | undefined;
}

export interface Range {
  /** Unix seconds, a minute's start, inclusive. */
  from: number;
  /** Unix seconds, exclusive. */
  to: number;
  /** Seconds an interval lasts: a whole number of minutes. */
  granularity: number;
}

const defaultRangeSeconds = 86_400;
/** Zones or resources a summary ranks when not asked for another number. */
export const defaultTopLimit = 10;

/** What a summary is asked for: a range, and how many zones or resources to rank. */
export interface SummaryQuery {
  from?: number | undefined;
  to?: number | undefined;
  limit?: number | undefined;
}
const defaultGranularity = '1h';
/** Intervals one answer may hold: a week by the minute. */
const maxIntervals = 10_080;

const unitSeconds: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** A Go duration (`5m`, `1.5h`, `2h45m`) in seconds; undefined when malformed. */
export function durationSeconds(text: string): number | undefined {
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let seconds = 0;
  while (part.lastIndex < text.length) {
    const m = part.exec(text);
    if (m === null) return undefined;
    seconds += Number(m[1]) * (unitSeconds[m[2] ?? ''] ?? Number.NaN);
  }
  return text === '' || !Number.isFinite(seconds) ? undefined : Math.round(seconds * 1e6) / 1e6;
}

/** The range asked for, or a 400 naming the field: by default the last 24 hours by the hour. */
export function statisticsRange(query: RangeQuery): Range {
  const granularity = durationSeconds(query.granularity ?? defaultGranularity);
  if (granularity === undefined || granularity < bucketSeconds || granularity % bucketSeconds !== 0) {
    throw invalid('granularity must be a whole number of minutes', { granularity: 'a duration such as 5m, 1h or 24h, at least 1m' });
  }
  const { from, to } = summaryRange(query);
  if ((to - from) / granularity > maxIntervals) throw invalid(`at most ${String(maxIntervals)} intervals in one answer`, { granularity: 'larger, or a shorter range' });
  return { from, to, granularity };
}

/**
 * The range of an answer that sums it as a whole (the summaries): `from` and `to` with the same
 * defaults and rounding as `statisticsRange`. No granularity, so no bound on the span but the
 * store's retention.
 */
export function summaryRange(query: Pick<RangeQuery, 'from' | 'to'>): Omit<Range, 'granularity'> {
  const to = query.to ?? Math.floor(Date.now() / 1000);
  const from = Math.floor((query.from ?? to - defaultRangeSeconds) / bucketSeconds) * bucketSeconds;
  if (from >= to) throw invalid('from must be before to', { from: 'Unix seconds before `to`' });
  return { from, to };
}

/** Counts per interval start as the provider keys them (Unix milliseconds, as text), and their total. */
export function byInterval(intervals: readonly { start: number; count: number }[]): { requests: Record<string, number>; total: number } {
  const requests: Record<string, number> = {};
  let total = 0;
  for (const { start, count } of intervals) {
    requests[String(start * 1000)] = count;
    total += count;
  }
  return { requests, total };
}
