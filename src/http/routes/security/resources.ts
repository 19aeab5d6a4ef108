// /security/resources: protected web resources of the caller's account.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SecurityContext } from '../../../security/context.ts';
import { createResource, deleteResource, getResource, listResources, replaceResource } from '../../../security/resources.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors, IntegerId } from '../../schemas/common.ts';

const tags = ['security resources'];
const Params = Type.Object({ resource_id: IntegerId });
// The document's members, named for the OpenAPI description; their rules are checked by the use case
// (src/security/resource-input.ts), which reports every problem with its path.
const field = (description: string) => Type.Optional(Type.Unknown({ description }));
const Body = Type.Object(
  {
    name: field('The domain (a host name); required'),
    aliases: field('[{alias_data}]: more host names'),
    origins: field('[{origin_data, origin_weight 1-100, origin_mode primary|backup|down}]'),
    rate_limier_rules: field('[{method, path, value 0-100000 per second, test_cookie}]'),
    blacklists: field('[{blacklist_data}]: addresses or CIDRs refused'),
    whitelists: field('[{whitelist_data}]: addresses or CIDRs let through'),
    is_waf_enabled: field('boolean'),
    is_redirect_to_https_enabled: field('boolean'),
    ssl_type: field('"custom", "le" or "" (off); absent with no certificate fields: unchanged'),
    service_ssl_crt: field('PEM chain, leaf first'),
    service_ssl_key: field('PEM private key; write-only'),
    service_enable: field('0/1'),
    service_https2http: field('0/1'),
    service_http2: field('0/1'),
    service_iphash: field('0/1'),
    service_forcessl: field('0/1, twin of is_redirect_to_https_enabled'),
    service_wwwredir: field('0/1'),
    service_hsts: field('0/1'),
    service_botprotect: field('0 or 4'),
    service_geoip_mode: field('0 off, 1 all but the list, 2 only the list'),
    service_geoip_list: field('comma-separated ISO country codes'),
    service_methods: field('string or integer, kept as a string'),
  },
  { description: 'The resource document; see docs/api/security.md' },
);
const anyObject = Type.Record(Type.String(), Type.Unknown());
/** Who may hold a host name (docs/api/security.md#host-names-and-zones). */
const hostRules =
  'A name or alias inside a zone of another account is 409 owned_by_another_account (fields name each); one another resource holds is 409 conflict. ' +
  'Reads add released_hosts when names of the resource went to the account of a zone created over them.';

export function resourceRoutes(app: FastifyInstance, ctx: SecurityContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/security/resources',
    { schema: { tags, summary: 'Protect a domain: name, aliases, origins, rate rules, access lists, TLS', description: hostRules, body: Body, response: { 201: anyObject, ...errors(400, 401, 403, 409) } } },
    async (request, reply) => sendJson(reply, 201, await createResource(ctx, principal(request), request.body as Record<string, unknown>)),
  );
  r.get(
    '/security/resources',
    { schema: { tags, summary: 'Every resource of the account (list shape)', response: { 200: Type.Array(anyObject), ...errors(401) } } },
    async (request, reply) => sendJson(reply, 200, await listResources(ctx, principal(request))),
  );
  r.get(
    '/security/resources/:resource_id',
    { schema: { tags, summary: 'One resource (single shape)', params: Params, response: { 200: anyObject, ...errors(400, 401, 404) } } },
    async (request, reply) => sendJson(reply, 200, await getResource(ctx, principal(request), request.params.resource_id)),
  );
  r.put(
    '/security/resources/:resource_id',
    {
      schema: {
        tags,
        summary: 'Replace a resource (lists included; absent TLS fields keep the certificate)',
        description: hostRules,
        params: Params,
        body: Body,
        response: { 200: anyObject, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => sendJson(reply, 200, await replaceResource(ctx, principal(request), request.params.resource_id, request.body as Record<string, unknown>)),
  );
  r.delete(
    '/security/resources/:resource_id',
    { schema: { tags, summary: 'Stop protecting a resource', params: Params, response: { 204: Type.Null(), ...errors(401, 403, 404) } } },
    async (request, reply) => {
      await deleteResource(ctx, principal(request), request.params.resource_id);
      return reply.code(204).send(null);
    },
  );
}
