// GET /security/resources/{id}/statistics (security/statistics.ts); GET /security/statistics and
// /security/statistics/summary, over every resource of the account (also security/statistics.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SecurityContext } from '../../../security/context.ts';
import { accountRequestStatistics, accountRequestsSummary, resourceStatistics } from '../../../security/statistics.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors, IntegerId } from '../../schemas/common.ts';
import { countsByName, intervalCounts, rangeQuery, summaryQuery, topLimit } from '../../schemas/statistics.ts';

const Query = Type.Object({
  ...rangeQuery,
  outcome: Type.Optional(Type.String({ maxLength: 32, description: 'count only requests with this outcome: passed, origin_error, or a refusal reason (blacklist, geo, method, rate_limit, waf, bot_challenge, shed, redirect, ...)' })),
});

const Result = Type.Object({
  ...intervalCounts,
  outcomes: Type.Record(Type.String(), Type.Integer(), { description: 'the range\'s requests by outcome' }),
});

const SummaryQuery = Type.Object({ ...summaryQuery, limit: topLimit('resources') });

const Summary = Type.Object({
  total: Type.Integer({ description: 'requests the proxy ended for the account\'s resources in the range' }),
  by_outcome: countsByName('requests by outcome (passed, origin_error, blacklist, …); outcomes without any are left out'),
  top_resources: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), requests: Type.Integer() }), { description: 'the resources with the most requests, most first (ties by name); resources without any are left out' }),
});

const description = 'Counted by every proxy thread and node, written every EDGEPLANE_STATS_FLUSH seconds in one-minute buckets, kept EDGEPLANE_STATS_RETENTION_DAYS days.';

export function requestStatisticsRoutes(app: FastifyInstance, ctx: SecurityContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/security/resources/:resource_id/statistics',
    {
      schema: {
        tags: ['security resources'],
        summary: 'Requests the protection proxy ended for the resource, per interval and by outcome',
        description,
        params: Type.Object({ resource_id: IntegerId }),
        querystring: Query,
        response: { 200: Result, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => sendJson(reply, 200, await resourceStatistics(ctx, principal(request), request.params.resource_id, request.query)),
  );
  r.get(
    '/security/statistics',
    {
      schema: {
        tags: ['security resources'],
        summary: 'Requests the protection proxy ended for every resource of the account, per interval and by outcome',
        description,
        querystring: Query,
        response: { 200: Result, ...errors(400, 401) },
      },
    },
    async (request, reply) => sendJson(reply, 200, await accountRequestStatistics(ctx, principal(request), request.query)),
  );
  r.get(
    '/security/statistics/summary',
    {
      schema: {
        tags: ['security resources'],
        summary: 'Requests the protection proxy ended for every resource of the account in a range: total, by outcome, busiest resources',
        description,
        querystring: SummaryQuery,
        response: { 200: Summary, ...errors(400, 401) },
      },
    },
    async (request, reply) => sendJson(reply, 200, await accountRequestsSummary(ctx, principal(request), request.query)),
  );
}
