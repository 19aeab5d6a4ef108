// GET /dns/v2/monitor/metrics: Prometheus text of the caller's account's zones (dns/monitor-metrics.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DnsContext } from '../../../dns/context.ts';
import { monitorMetrics } from '../../../dns/monitor-metrics.ts';
import { principal } from '../../auth.ts';
import { errors } from '../../schemas/common.ts';
import { listParam } from '../../schemas/dns.ts';
import { MetricsQuery } from '../../schemas/dns-catalogue.ts';

export function monitorRoutes(app: FastifyInstance, ctx: DnsContext): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/dns/v2/monitor/metrics',
    {
      schema: {
        tags: ['dns zones'],
        summary: 'The account\'s zones as Prometheus text: dns_zone_queries_total{client_id, zone_name} and healthcheck_state of each health-checked record',
        querystring: MetricsQuery,
        produces: ['text/plain'],
        response: { 200: Type.String({ description: 'Prometheus text exposition format 0.0.4' }), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const metrics = await monitorMetrics(ctx, principal(request), listParam(request.query.zone_names));
      return reply.code(200).type(metrics.contentType).send(metrics.text);
    },
  );
}
