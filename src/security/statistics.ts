// GET /security/resources/{id}/statistics: requests the protection proxy ended for one of the
// caller's resources in a time range, per interval (statistics/range.ts), in the shape of the DNS
// statistics plus the range's totals by outcome:
// {"requests": {"<interval start, Unix ms>": n}, "total": n, "outcomes": {"passed": n, "blacklist": n, ...}}.
import type { Principal } from '../accounts/principal.ts';
import { invalid } from '../errors.ts';
import { byInterval, statisticsRange, type RangeQuery } from '../statistics/range.ts';
import { findAccountResource } from '../store/resources.ts';
import { sumRequestCounts } from '../store/request-stats.ts';
import type { SecurityContext } from './context.ts';
import { resourceNotFound } from './resources.ts';

export interface RequestStatisticsQuery extends RangeQuery {
  outcome?: string | undefined;
}

/** What the proxy's steps name an outcome (proxy-metrics.ts): anything else matches nothing, and is refused. */
const outcomeName = /^[a-z][a-z0-9_]{0,31}$/;

export async function resourceStatistics(ctx: SecurityContext, caller: Principal, id: number, query: RequestStatisticsQuery) {
  const range = statisticsRange(query);
  if (query.outcome !== undefined && !outcomeName.test(query.outcome)) throw invalid('no such outcome', { outcome: 'passed, origin_error, or a refusal reason such as blacklist, geo, rate_limit, waf' });
  if ((await findAccountResource(ctx.store.db, caller.accountId, id)) === undefined) throw resourceNotFound();
  const { intervals, outcomes } = await sumRequestCounts(ctx.store.db, { ...range, resourceId: id, outcome: query.outcome });
  return { ...byInterval(intervals), outcomes: Object.fromEntries(outcomes) };
}
