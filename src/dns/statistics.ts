// GET /dns/v2/zones/{name}/statistics: queries the DNS servers answered for a zone (or, with `all`,
// for every zone of the caller's account) in a time range, summed per interval of the requested
// granularity, as the provider answers it: {"requests": {"<interval start, Unix ms>": n}, "total": n}.
// GET /dns/v2/statistics/summary (edgeplane's own): the account's queries in a range by record type,
// by response code and by zone, for a dashboard.
// The counts are kept in one-minute buckets (dns/server/query-stats.ts); the range: statistics/range.ts.
import type { Principal } from '../accounts/principal.ts';
import { invalid } from '../errors.ts';
import { sumQueryCounts, summarizeQueryCounts } from '../store/query-stats.ts';
import { callerZone } from './access.ts';
import type { DnsContext } from './context.ts';
import { byInterval, defaultTopLimit, statisticsRange, summaryRange, type RangeQuery, type SummaryQuery } from '../statistics/range.ts';
import { countedTypeCode, countedTypeName, countedTypeNames, rcodeName } from './server/metrics.ts';

export interface StatisticsQuery extends RangeQuery {
  record_type?: string | undefined;
}

export async function zoneStatistics(ctx: DnsContext, caller: Principal, zonePath: string, query: StatisticsQuery): Promise<{ requests: Record<string, number>; total: number }> {
  const range = statisticsRange(query);
  let qtype: number | undefined;
  if (query.record_type !== undefined) {
    qtype = countedTypeCode(query.record_type.toUpperCase());
    if (qtype === undefined) throw invalid('no statistics are kept for this record type', { record_type: `one of ${countedTypeNames.join(', ')}` });
  }
  const zones = zonePath === 'all' ? { accountId: caller.accountId } : { zoneId: (await callerZone(ctx.store.db, caller, zonePath)).id };
  return byInterval(await sumQueryCounts(ctx.store.db, { ...range, zones, qtype }));
}

export interface QueriesSummary {
  total: number;
  by_record_type: Record<string, number>;
  by_response_code: Record<string, number>;
  top_zones: { name: string; requests: number }[];
}

/** The caller's account's queries in the range: in total, by type and RCODE name, and its busiest zones. */
export async function queriesSummary(ctx: DnsContext, caller: Principal, query: SummaryQuery): Promise<QueriesSummary> {
  const range = summaryRange(query);
  const summary = await summarizeQueryCounts(ctx.store.db, { ...range, accountId: caller.accountId, limit: query.limit ?? defaultTopLimit });
  const by_record_type: Record<string, number> = {};
  let total = 0;
  for (const { qtype, count } of summary.byType) {
    const name = countedTypeName(qtype);
    by_record_type[name] = (by_record_type[name] ?? 0) + count;
    total += count;
  }
  const by_response_code: Record<string, number> = {};
  for (const { rcode, count } of summary.byRcode) by_response_code[rcodeName(rcode)] = count;
  return { total, by_record_type, by_response_code, top_zones: summary.topZones.map(({ name, count }) => ({ name, requests: count })) };
}
