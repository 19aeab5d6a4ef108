// GET /security/resources/{id}/statistics: requests the protection proxy ended for one of the
// caller's resources in a time range, per interval (statistics/range.ts), in the shape of the DNS
// statistics plus the range's totals by outcome:
// {"requests": {"<interval start, Unix ms>": n}, "total": n, "outcomes": {"passed": n, "blacklist": n, ...}}.
// GET /security/statistics: the same over every resource of the caller's account; and
// GET /security/statistics/summary (edgeplane's own, for a dashboard):
// {"total": n, "by_outcome": {...}, "top_resources": [{"id", "name", "requests"}]}.
import type { Principal } from '../accounts/principal.ts';
import { invalid } from '../errors.ts';
import { byInterval, defaultTopLimit, statisticsRange, summaryRange, type RangeQuery, type SummaryQuery } from '../statistics/range.ts';
import { findAccountResource } from '../store/resources.ts';
import { summarizeRequestCounts, sumRequestCounts } from '../store/request-stats.ts';
import type { SecurityContext } from './context.ts';
import { resourceNotFound } from './resources.ts';

export interface RequestStatisticsQuery extends RangeQuery {
  outcome?: string | undefined;
}

/** What the proxy's steps name an outcome (proxy-metrics.ts): anything else matches nothing, and is refused. */
const outcomeName = /^[a-z][a-z0-9_]{0,31}$/;

function checkOutcome(outcome: string | undefined): void {
  if (outcome !== undefined && !outcomeName.test(outcome)) throw invalid('no such outcome', { outcome: 'passed, origin_error, or a refusal reason such as blacklist, geo, rate_limit, waf' });
}

export async function resourceStatistics(ctx: SecurityContext, caller: Principal, id: number, query: RequestStatisticsQuery) {
  const range = statisticsRange(query);
  checkOutcome(query.outcome);
  if ((await findAccountResource(ctx.store.db, caller.accountId, id)) === undefined) throw resourceNotFound();
  const { intervals, outcomes } = await sumRequestCounts(ctx.store.db, { ...range, resourceId: id, outcome: query.outcome });
  return { ...byInterval(intervals), outcomes: Object.fromEntries(outcomes) };
}

export async function accountRequestStatistics(ctx: SecurityContext, caller: Principal, query: RequestStatisticsQuery) {
  const range = statisticsRange(query);
  checkOutcome(query.outcome);
  const { intervals, outcomes } = await sumRequestCounts(ctx.store.db, { ...range, accountId: caller.accountId, outcome: query.outcome });
  return { ...byInterval(intervals), outcomes: Object.fromEntries(outcomes) };
}

export async function accountRequestsSummary(ctx: SecurityContext, caller: Principal, query: SummaryQuery) {
  const range = summaryRange(query);
  const { outcomes, topResources } = await summarizeRequestCounts(ctx.store.db, { ...range, accountId: caller.accountId, limit: query.limit ?? defaultTopLimit });
  let total = 0;
  for (const count of outcomes.values()) total += count;
  return {
    total,
    by_outcome: Object.fromEntries(outcomes),
    top_resources: topResources.map(({ id, name, count }) => ({ id, name, requests: count })),
  };
}
