// RRsets: /dns/v2/zones/{zoneName}/rrsets and /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DnsContext } from '../../../dns/context.ts';
import { deleteRrset, getRrset, listRrsets, writeRrset } from '../../../dns/rrsets.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors } from '../../schemas/common.ts';
import { listParam, RrsetBody, RrsetListQuery, RrsetParams } from '../../schemas/dns.ts';

const tags = ['dns rrsets'];
const anyObject = Type.Record(Type.String(), Type.Unknown());
const rrsetResult = Type.Ref('RrsetResult');
const path = '/dns/v2/zones/:zoneName/:rrsetName/:rrsetType';

export function rrsetRoutes(app: FastifyInstance, ctx: DnsContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/dns/v2/zones/:zoneName/rrsets',
    {
      schema: {
        tags,
        summary: 'List a zone\'s RRsets',
        params: Type.Object({ zoneName: Type.String({ maxLength: 255 }) }),
        querystring: RrsetListQuery,
        response: { 200: Type.Object({ rrsets: Type.Array(rrsetResult), total_amount: Type.Integer() }), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const body = await listRrsets(ctx, principal(request), request.params.zoneName, {
        offset: q.offset ?? 0,
        limit: q.limit,
        orderBy: q.order_by ?? 'name',
        direction: q.order_direction ?? 'asc',
        types: listParam(q.type).map((t) => t.toUpperCase()),
      });
      return sendJson(reply, 200, body);
    },
  );

  r.get(
    path,
    { schema: { tags, summary: 'Read an RRset', params: RrsetParams, response: { 200: rrsetResult, ...errors(400, 401, 404) } } },
    async (request, reply) => {
      const { zoneName, rrsetName, rrsetType } = request.params;
      return sendJson(reply, 200, await getRrset(ctx, principal(request), zoneName, rrsetName, rrsetType));
    },
  );

  for (const [method, mode, summary] of [
    ['POST', 'create', 'Create an RRset (409 when it exists)'],
    ['PUT', 'upsert', 'Create or replace an RRset'],
  ] as const) {
    r.route({
      method,
      url: path,
      schema: { tags, summary, params: RrsetParams, body: RrsetBody, response: { 200: rrsetResult, ...errors(400, 401, 403, 404, 409) } },
      handler: async (request, reply) => {
        const { zoneName, rrsetName, rrsetType } = request.params;
        const body = request.body as unknown as Record<string, unknown>;
        return sendJson(reply, 200, await writeRrset(ctx, principal(request), { zone: zoneName, name: rrsetName, type: rrsetType }, body, mode));
      },
    });
  }

  r.delete(
    path,
    { schema: { tags, summary: 'Delete an RRset', params: RrsetParams, response: { 200: anyObject, ...errors(400, 401, 403, 404, 409) } } },
    async (request, reply) => {
      const { zoneName, rrsetName, rrsetType } = request.params;
      await deleteRrset(ctx, principal(request), zoneName, rrsetName, rrsetType);
      return sendJson(reply, 200, {});
    },
  );
}
