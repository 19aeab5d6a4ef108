// GET /dns/v2/zones/{name}/statistics: queries the DNS servers answered for a zone (or, with `all`,
// for every zone of the caller's account) in a time range, summed per interval of the requested
// granularity, as the provider answers it: {"requests": {"<interval start, Unix ms>": n}, "total": n}.
// The counts are kept in one-minute buckets (dns/server/query-stats.ts); the range: statistics/range.ts.
import type { Principal } from '../accounts/principal.ts';
import { invalid } from '../errors.ts';
import { sumQueryCounts } from '../store/query-stats.ts';
import { callerZone } from './access.ts';
import type { DnsContext } from './context.ts';
import { byInterval, statisticsRange, type RangeQuery } from '../statistics/range.ts';
import { countedTypeCode } from './server/metrics.ts';

export interface StatisticsQuery extends RangeQuery {
  record_type?: string | undefined;
}

export async function zoneStatistics(ctx: DnsContext, caller: Principal, zonePath: string, query: StatisticsQuery): Promise<{ requests: Record<string, number>; total: number }> {
  const range = statisticsRange(query);
  let qtype: number | undefined;
  if (query.record_type !== undefined) {
    qtype = countedTypeCode(query.record_type.toUpperCase());
    if (qtype === undefined) throw invalid('no statistics are kept for this record type', { record_type: 'A, AAAA, NS, CNAME, MX, TXT, SRV, CAA, SOA, PTR, DS, DNSKEY, SVCB, HTTPS or ANY' });
  }
  const zones = zonePath === 'all' ? { accountId: caller.accountId } : { zoneId: (await callerZone(ctx.store.db, caller, zonePath)).id };
  return byInterval(await sumQueryCounts(ctx.store.db, { ...range, zones, qtype }));
}
