// GET /dns/v2/zones/{name}/statistics (dns/statistics.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DnsContext } from '../../../dns/context.ts';
import { zoneStatistics } from '../../../dns/statistics.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors } from '../../schemas/common.ts';
import { ZoneParams } from '../../schemas/dns.ts';
import { intervalCounts, rangeQuery } from '../../schemas/statistics.ts';

const StatisticsQuery = Type.Object({
  ...rangeQuery,
  record_type: Type.Optional(Type.String({ maxLength: 16, description: 'count only queries of this type (A, AAAA, NS, CNAME, MX, TXT, SRV, CAA, SOA, PTR, DS, DNSKEY, SVCB, HTTPS, ANY)' })),
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
}
