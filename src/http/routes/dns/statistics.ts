// GET /dns/v2/zones/{name}/statistics and GET /dns/v2/statistics/summary (dns/statistics.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DnsContext } from '../../../dns/context.ts';
import { queriesSummary, zoneStatistics } from '../../../dns/statistics.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors } from '../../schemas/common.ts';
import { ZoneParams } from '../../schemas/dns.ts';
import { countsByName, intervalCounts, rangeQuery, summaryQuery, topLimit } from '../../schemas/statistics.ts';

const StatisticsQuery = Type.Object({
  ...rangeQuery,
  record_type: Type.Optional(Type.String({ maxLength: 16, description: 'count only queries of this type (A, AAAA, NS, CNAME, MX, TXT, SRV, CAA, SOA, PTR, DS, DNSKEY, SVCB, HTTPS, ANY)' })),
});

const SummaryQuery = Type.Object({ ...summaryQuery, limit: topLimit('zones') });

const Summary = Type.Object({
  total: Type.Integer({ description: 'queries answered for the account\'s zones in the range' }),
  by_record_type: countsByName('queries by QTYPE name (A, AAAA, …; OTHER: the types not counted on their own); types without any are left out'),
  by_response_code: countsByName('queries by RCODE name (NOERROR, NXDOMAIN, SERVFAIL, …); codes without any are left out'),
  top_zones: Type.Array(Type.Object({ name: Type.String(), requests: Type.Integer() }), { description: 'the zones with the most queries, most first (ties by name); zones without any are left out' }),
});

export function statisticsRoutes(app: FastifyInstance, ctx: DnsContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/dns/v2/zones/:name/statistics',
    {
      schema: {
        tags: ['dns zones'],
        summary: 'Queries answered for the zone (`all`: every zone of the account) per interval',
        description: 'Counted by every DNS thread and node, written every EDGEPLANE_STATS_FLUSH seconds in one-minute buckets, kept EDGEPLANE_STATS_RETENTION_DAYS days.',
        params: ZoneParams,
        querystring: StatisticsQuery,
        response: { 200: Type.Object(intervalCounts), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => sendJson(reply, 200, await zoneStatistics(ctx, principal(request), request.params.name, request.query)),
  );
  r.get(
    '/dns/v2/statistics/summary',
    {
      schema: {
        tags: ['dns zones'],
        summary: 'Queries answered for every zone of the account in a range: total, by record type, by response code, busiest zones',
        description: 'The counts of GET /dns/v2/zones/all/statistics, summed over the range instead of per interval.',
        querystring: SummaryQuery,
        response: { 200: Summary, ...errors(400, 401) },
      },
    },
    async (request, reply) => sendJson(reply, 200, await queriesSummary(ctx, principal(request), request.query)),
  );
}
