// GET /dns/v2/zones/{name}/statistics: queries the DNS servers answered for a zone (or, with `all`,
// for every zone of the caller's account) in a time range, summed per interval of the requested
// granularity, as the provider answers it: {"requests": {"<interval start, Unix ms>": n}, "total": n}.
// The counts are kept in one-minute buckets (dns/server/query-stats.ts): intervals start at `from`
// rounded down to the minute, and the granularity is a whole number of minutes.
import type { Principal } from '../accounts/principal.ts';
import { invalid } from '../errors.ts';
import { sumQueryCounts } from '../store/query-stats.ts';
import { accountZoneIds } from '../store/zones.ts';
import { callerZone } from './access.ts';
import type { DnsContext } from './context.ts';
import { bucketSeconds } from './server/query-stats.ts';
import { countedTypeCode } from './server/metrics.ts';

export interface StatisticsQuery {
  from?: number | undefined;
  to?: number | undefined;
  granularity?: string | undefined;
  record_type?: string | undefined;
}

const defaultRangeSeconds = 86_400;
const defaultGranularity = '1h';
/** Intervals one answer may hold: a week by the minute. */
const maxIntervals = 10_080;

const unitSeconds: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** A Go duration (`5m`, `1.5h`, `2h45m`), as the provider takes it, in seconds; undefined when malformed. */
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

export async function zoneStatistics(ctx: DnsContext, caller: Principal, zonePath: string, query: StatisticsQuery): Promise<{ requests: Record<string, number>; total: number }> {
  const granularity = durationSeconds(query.granularity ?? defaultGranularity);
  if (granularity === undefined || granularity < bucketSeconds || granularity % bucketSeconds !== 0) {
    throw invalid('granularity must be a whole number of minutes', { granularity: 'a duration such as 5m, 1h or 24h, at least 1m' });
  }
  const to = query.to ?? Math.floor(Date.now() / 1000);
  const from = Math.floor((query.from ?? to - defaultRangeSeconds) / bucketSeconds) * bucketSeconds;
  if (from >= to) throw invalid('from must be before to', { from: 'Unix seconds before `to`' });
  if ((to - from) / granularity > maxIntervals) throw invalid(`at most ${String(maxIntervals)} intervals in one answer`, { granularity: 'larger, or a shorter range' });
  let qtype: number | undefined;
  if (query.record_type !== undefined) {
    qtype = countedTypeCode(query.record_type.toUpperCase());
    if (qtype === undefined) throw invalid('no statistics are kept for this record type', { record_type: 'A, AAAA, NS, CNAME, MX, TXT, SRV, CAA, SOA, PTR, DS, DNSKEY, SVCB, HTTPS or ANY' });
  }
  const zoneIds = zonePath === 'all' ? await accountZoneIds(ctx.store.db, caller.accountId) : [(await callerZone(ctx.store.db, caller, zonePath)).id];
  const intervals = await sumQueryCounts(ctx.store.db, { zoneIds, from, to, granularity, qtype });
  const requests: Record<string, number> = {};
  let total = 0;
  for (const { start, count } of intervals) {
    requests[String(start * 1000)] = count;
    total += count;
  }
  return { requests, total };
}
