// GET /dns/v2/zones/{name}/statistics (dns/statistics.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DnsContext } from '../../../dns/context.ts';
import { zoneStatistics } from '../../../dns/statistics.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { BoundedInteger, errors } from '../../schemas/common.ts';
import { ZoneParams } from '../../schemas/dns.ts';

const unixSeconds = (description: string) => BoundedInteger({ minimum: 0, maximum: 2 ** 40, description });

const StatisticsQuery = Type.Object({
  from: Type.Optional(unixSeconds('start of the range, Unix seconds (rounded down to the minute); default: 24 hours before `to`')),
  to: Type.Optional(unixSeconds('end of the range, Unix seconds, exclusive; default: now')),
  granularity: Type.Optional(Type.String({ maxLength: 32, description: 'interval length as a Go duration (5m, 1h, 24h): a whole number of minutes; default 1h' })),
  record_type: Type.Optional(Type.String({ maxLength: 16, description: 'count only queries of this type (A, AAAA, NS, CNAME, MX, TXT, SRV, CAA, SOA, PTR, DS, DNSKEY, SVCB, HTTPS, ANY)' })),
});

const StatisticsResult = Type.Object({
  requests: Type.Record(Type.String(), Type.Integer(), { description: 'queries per interval, keyed by the interval\'s start in Unix milliseconds; intervals without queries are left out' }),
  total: Type.Integer(),
});

export function statisticsRoutes(app: FastifyInstance, ctx: DnsContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/dns/v2/zones/:name/statistics',
    {
      schema: {
        tags: ['dns zones'],
        summary: 'Queries answered for the zone (`all`: every zone of the account) per interval',
        description: 'Counted by every DNS thread and node, written every EDGEPLANE_DNS_STATS_FLUSH seconds in one-minute buckets, kept EDGEPLANE_DNS_STATS_RETENTION_DAYS days.',
        params: ZoneParams,
        querystring: StatisticsQuery,
        response: { 200: StatisticsResult, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => sendJson(reply, 200, await zoneStatistics(ctx, principal(request), request.params.name, request.query)),
  );
}
