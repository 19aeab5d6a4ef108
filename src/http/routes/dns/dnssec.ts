// The DNSSEC toggle of a zone.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DnsContext } from '../../../dns/context.ts';
import { readDnssec, toggleDnssec } from '../../../dns/dnssec/toggle.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors } from '../../schemas/common.ts';
import { ZoneParams } from '../../schemas/dns.ts';

const tags = ['dns zones'];
const DnssecResult = Type.Object({
  algorithm: Type.String(),
  digest: Type.String(),
  digest_algorithm: Type.String(),
  digest_type: Type.String(),
  ds: Type.String(),
  flags: Type.Integer(),
  key_tag: Type.Integer(),
  key_type: Type.String(),
  message: Type.String(),
  public_key: Type.String(),
});

export function dnssecRoutes(app: FastifyInstance, ctx: DnsContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.patch(
    '/dns/v2/zones/:name/dnssec',
    {
      schema: {
        tags,
        summary: 'Turn DNSSEC on (creating the zone\'s ECDSA P-256 key once) or off',
        params: ZoneParams,
        body: Type.Object({ enabled: Type.Boolean() }),
        response: { 200: DnssecResult, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => sendJson(reply, 200, await toggleDnssec(ctx, principal(request), request.params.name, request.body.enabled)),
  );
  r.get(
    '/dns/v2/zones/:name/dnssec',
    { schema: { tags, summary: 'The zone\'s key and DS (400 while DNSSEC is off)', params: ZoneParams, response: { 200: DnssecResult, ...errors(400, 401, 404) } } },
    async (request, reply) => sendJson(reply, 200, await readDnssec(ctx, principal(request), request.params.name)),
  );
}
