// /dns/v2/network-mappings: create, list, read by id or by name, replace, delete, import from YAML
// (dns/network-mappings.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DnsContext } from '../../../dns/context.ts';
import {
  createNetworkMapping,
  importNetworkMappings,
  listAccountNetworkMappings,
  readNetworkMapping,
  removeNetworkMapping,
  replaceNetworkMapping,
  type NetworkMappingView,
} from '../../../dns/network-mappings.ts';
import { invalid } from '../../../errors.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors, IntegerId } from '../../schemas/common.ts';
import { NetworkMapping, NetworkMappingBody, NetworkMappingRead } from '../../schemas/dns-catalogue.ts';
import { maxId } from '../../../store/schema.ts';
import { paging } from '../../schemas/dns.ts';

const tags = ['dns network mappings'];
const IdParams = Type.Object({ id: IntegerId });
const ListQuery = Type.Object({ ...paging, order_by: Type.Optional(Type.Union([Type.Literal('id'), Type.Literal('name')])) });
const empty = Type.Object({});
/** The YAML file's media types; `text/plain` is what the provider's example sends. */
const yamlTypes = ['text/plain', 'application/yaml', 'application/x-yaml', 'text/yaml'];

/** A path key: all digits is an id (a mapping named only with digits is read by-name/), else a name. */
function mappingKey(key: string): { id: number } | { name: string } {
  if (!/^[0-9]+$/.test(key)) return { name: key };
  const id = Number(key);
  if (id < 1 || id > maxId) throw invalid('the network mapping id is out of range', { id: `must be an integer from 1 to ${String(maxId)}` });
  return { id };
}

/**
 * One mapping read: its fields, and the same again under `network_mapping`. The provider's generated
 * SDKs and its API reference read the fields; its hand-written Go SDK (lego's, Terraform's) reads the
 * wrapper. Each ignores what it does not know, so both work unchanged.
 */
const readShape = (mapping: NetworkMappingView) => ({ ...mapping, network_mapping: mapping });

export async function networkMappingRoutes(app: FastifyInstance, ctx: DnsContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/dns/v2/network-mappings',
    { schema: { tags, summary: 'Create a network mapping: a named list of {tags, cidr4, cidr6}', body: NetworkMappingBody, response: { 200: Type.Object({ id: Type.Integer() }), ...errors(400, 401, 403, 409) } } },
    async (request, reply) => sendJson(reply, 200, await createNetworkMapping(ctx, principal(request), request.body)),
  );
  r.get(
    '/dns/v2/network-mappings',
    { schema: { tags, summary: 'The account\'s network mappings', querystring: ListQuery, response: { 200: Type.Object({ network_mappings: Type.Array(NetworkMapping), total_amount: Type.Integer() }), ...errors(400, 401) } } },
    async (request, reply) => {
      const q = request.query;
      return sendJson(reply, 200, await listAccountNetworkMappings(ctx, principal(request), { offset: q.offset ?? 0, limit: q.limit, orderBy: q.order_by ?? 'id', direction: q.order_direction ?? 'asc' }));
    },
  );
  r.get(
    '/dns/v2/network-mappings/:key',
    {
      schema: {
        tags,
        summary: 'One network mapping by id, or by name when the key is not a number (as the provider\'s Go SDK asks for it)',
        params: Type.Object({ key: Type.String({ maxLength: 255 }) }),
        response: { 200: NetworkMappingRead, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => sendJson(reply, 200, readShape(await readNetworkMapping(ctx, principal(request), mappingKey(request.params.key)))),
  );
  r.get(
    '/dns/v2/network-mappings/by-name/:name',
    { schema: { tags, summary: 'One network mapping by name', params: Type.Object({ name: Type.String({ maxLength: 255 }) }), response: { 200: NetworkMappingRead, ...errors(401, 404) } } },
    async (request, reply) => sendJson(reply, 200, readShape(await readNetworkMapping(ctx, principal(request), { name: request.params.name }))),
  );
  r.put(
    '/dns/v2/network-mappings/:id',
    { schema: { tags, summary: 'Replace a network mapping\'s entries (its name cannot change)', params: IdParams, body: NetworkMappingBody, response: { 200: empty, ...errors(400, 401, 403, 404) } } },
    async (request, reply) => {
      await replaceNetworkMapping(ctx, principal(request), request.params.id, request.body);
      return sendJson(reply, 200, {});
    },
  );
  r.delete(
    '/dns/v2/network-mappings/:id',
    { schema: { tags, summary: 'Delete a network mapping', params: IdParams, response: { 200: empty, ...errors(400, 401, 403, 404) } } },
    async (request, reply) => {
      await removeNetworkMapping(ctx, principal(request), request.params.id);
      return sendJson(reply, 200, {});
    },
  );

  // Its own scope: only the import reads YAML bodies (up to the JSON limit, 1 MiB).
  await app.register(async (scope) => {
    scope.addContentTypeParser(yamlTypes, { parseAs: 'string' }, (_request, body, done) => {
      done(null, typeof body === 'string' ? body : body.toString('utf8'));
    });
    scope.post(
      '/dns/v2/network-mappings/import',
      {
        schema: {
          tags,
          summary: 'Create network mappings from YAML documents (`---` between them), all or none',
          description: 'The body is the YAML file, sent as text/plain (or application/yaml); a name that exists is a 409 and nothing is imported.',
          consumes: yamlTypes,
          response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        if (typeof request.body !== 'string') throw invalid('send the YAML file as text/plain', { body: 'must be a YAML file' });
        return sendJson(reply, 200, await importNetworkMappings(ctx, principal(request), request.body));
      },
    );
  });
}
