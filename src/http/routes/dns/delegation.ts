// Endpoints answered through the operator's resolver (EDGEPLANE_RESOLVER): the DS a zone's parent
// publishes, a name's delegation status, and the lookup.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DnsContext } from '../../../dns/context.ts';
import { delegationStatus } from '../../../dns/delegation/delegation-status.ts';
import { lookup } from '../../../dns/delegation/lookup.ts';
import { parentDs } from '../../../dns/delegation/parent-ds.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors } from '../../schemas/common.ts';
import { ZoneParams } from '../../schemas/dns.ts';
import { DelegationStatusResult, LookupQuery, LookupResult, ParentDsResult } from '../../schemas/delegation.ts';

const resolverErrors = errors(429, 502, 503, 504);

export function delegationRoutes(app: FastifyInstance, ctx: DnsContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/dns/v2/zones/:name/dnssec/parent-ds',
    {
      schema: {
        tags: ['dns zones'],
        summary: 'The DS records the zone\'s parent publishes, against the DS of the zone\'s key',
        params: ZoneParams,
        response: { 200: ParentDsResult, ...errors(401, 404), ...resolverErrors },
      },
    },
    async (request, reply) => sendJson(reply, 200, await parentDs(ctx, principal(request), request.params.name)),
  );
  r.get(
    '/dns/v2/analyze/:name/delegation-status',
    {
      schema: {
        tags: ['dns analyze'],
        summary: 'Whether the parent delegates the name to this service\'s name servers',
        params: ZoneParams,
        response: { 200: DelegationStatusResult, ...errors(400, 401), ...resolverErrors },
      },
    },
    async (request, reply) => sendJson(reply, 200, await delegationStatus(ctx, principal(request), request.params.name)),
  );
  r.get(
    '/dns/v2/lookup',
    {
      schema: {
        tags: ['dns analyze'],
        summary: 'The records the operator\'s resolver finds for a name',
        querystring: LookupQuery,
        response: { 200: LookupResult, ...errors(400, 401), ...resolverErrors },
      },
    },
    async (request, reply) => sendJson(reply, 200, await lookup(ctx, request.query)),
  );
}
