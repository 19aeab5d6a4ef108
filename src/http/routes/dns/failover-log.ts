// GET /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}/failover/log: an RRset's health check log.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DnsContext } from '../../../dns/context.ts';
import { rrsetFailoverLog } from '../../../dns/failover-log.ts';
import { failoverLogKept } from '../../../store/failover.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors } from '../../schemas/common.ts';
import { FailoverLogQuery, FailoverLogResult, RrsetParams } from '../../schemas/dns.ts';

export function failoverLogRoutes(app: FastifyInstance, ctx: DnsContext): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/dns/v2/zones/:zoneName/:rrsetName/:rrsetType/failover/log',
    {
      schema: {
        tags: ['dns rrsets'],
        summary: 'Read the log of an RRset\'s health check changes (meta.failover)',
        params: RrsetParams,
        querystring: FailoverLogQuery,
        response: { 200: FailoverLogResult, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { zoneName, rrsetName, rrsetType } = request.params;
      const page = { offset: request.query.offset ?? 0, limit: request.query.limit ?? failoverLogKept };
      return sendJson(reply, 200, await rrsetFailoverLog(ctx, principal(request), { zone: zoneName, name: rrsetName, type: rrsetType }, page));
    },
  );
}
