// /dns/v2/zones: create, list, read, update, delete, enable/disable; and the public platform info.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DnsContext } from '../../../dns/context.ts';
import { createZone, deleteZone, listZones, readZone, setZoneEnabled, updateZone } from '../../../dns/zones.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors } from '../../schemas/common.ts';
import { listParam, ZoneBody, ZoneListQuery, ZoneParams } from '../../schemas/dns.ts';

const tags = ['dns zones'];
const anyObject = Type.Record(Type.String(), Type.Unknown());

export function zoneRoutes(app: FastifyInstance, ctx: DnsContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/dns/v2/zones',
    {
      schema: {
        tags,
        summary: 'Create a zone (it gets the service\'s apex NS)',
        description:
          'A name has one owner: 400 reserved_name for a public suffix, a single label or a special-use name (unless listed in EDGEPLANE_ZONE_ALLOW_RESERVED); ' +
          '409 owned_by_another_account inside or above another account\'s zone; 409 conflict when the name exists.',
        body: ZoneBody,
        response: { 200: Type.Object({ id: Type.Integer(), warnings: Type.Array(Type.String()) }), ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => sendJson(reply, 200, await createZone(ctx, principal(request), request.body)),
  );

  r.get(
    '/dns/v2/zones',
    { schema: { tags, summary: 'List the account\'s zones', querystring: ZoneListQuery, response: { 200: Type.Object({ zones: Type.Array(anyObject), total_amount: Type.Integer() }), ...errors(400, 401) } } },
    async (request, reply) => {
      const q = request.query;
      const enabled = q.enabled ?? (q.status === undefined ? undefined : q.status === 'active');
      const body = await listZones(ctx, principal(request), {
        offset: q.offset ?? 0,
        limit: q.limit,
        orderBy: q.order_by ?? 'name',
        direction: q.order_direction ?? 'asc',
        filter: { names: listParam(q.name).map((n) => n.toLowerCase().replace(/\.$/, '')), exactMatch: q.exact_match ?? false, enabled },
      });
      return sendJson(reply, 200, body);
    },
  );

  r.get(
    '/dns/v2/zones/:name',
    { schema: { tags, summary: 'Read a zone with its SOA values and every RRset summary', params: ZoneParams, response: { 200: anyObject, ...errors(401, 404) } } },
    async (request, reply) => sendJson(reply, 200, await readZone(ctx, principal(request), request.params.name)),
  );

  r.put(
    '/dns/v2/zones/:name',
    { schema: { tags, summary: 'Update SOA values, enabled and meta; absent fields keep their value', params: ZoneParams, body: ZoneBody, response: { 200: anyObject, ...errors(400, 401, 403, 404) } } },
    async (request, reply) => sendJson(reply, 200, await updateZone(ctx, principal(request), request.params.name, request.body)),
  );

  r.delete(
    '/dns/v2/zones/:name',
    { schema: { tags, summary: 'Delete a zone with all its RRsets', params: ZoneParams, response: { 200: anyObject, ...errors(401, 403, 404) } } },
    async (request, reply) => {
      await deleteZone(ctx, principal(request), request.params.name);
      return sendJson(reply, 200, {});
    },
  );

  for (const action of ['enable', 'disable'] as const) {
    r.patch(
      `/dns/v2/zones/:name/${action}`,
      { schema: { tags, summary: `${action === 'enable' ? 'Serve' : 'Stop serving'} the zone`, params: ZoneParams, response: { 200: anyObject, ...errors(401, 403, 404) } } },
      async (request, reply) => {
        await setZoneEnabled(ctx, principal(request), request.params.name, action === 'enable');
        return sendJson(reply, 200, {});
      },
    );
  }
}

/** The seed's `{name_servers}`; the provider's `{"Info": {contact, name_server_1, name_server_2}}` under EDGEPLANE_COMPAT=gcore. */
const PlatformInfo = Type.Union([
  Type.Object({ name_servers: Type.Array(Type.String()) }),
  Type.Object({
    Info: Type.Object({
      contact: Type.String({ description: 'empty: the service has no platform-wide contact (each zone has its own SOA contact)' }),
      name_server_1: Type.String(),
      name_server_2: Type.String({ description: 'empty when EDGEPLANE_NAMESERVERS names one server' }),
    }),
  }),
]);

export function platformRoutes(app: FastifyInstance, ctx: DnsContext): void {
  app.get(
    '/dns/v2/platform/info',
    { schema: { tags, summary: 'The service\'s name servers (no authentication)', security: [], response: { 200: PlatformInfo } } },
    () => {
      const servers = ctx.config.nameservers;
      if (ctx.config.compat !== 'gcore') return { name_servers: servers };
      return { Info: { contact: '', name_server_1: servers[0] ?? '', name_server_2: servers[1] ?? '' } };
    },
  );
}
