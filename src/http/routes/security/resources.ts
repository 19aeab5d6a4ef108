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
const Body = Type.Record(Type.String(), Type.Unknown(), { description: 'The resource document; see docs/api/security.md' });
const anyObject = Type.Record(Type.String(), Type.Unknown());

export function resourceRoutes(app: FastifyInstance, ctx: SecurityContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/security/resources',
    { schema: { tags, summary: 'Protect a domain: name, aliases, origins, rate rules, access lists, TLS', body: Body, response: { 201: anyObject, ...errors(400, 401, 403, 409) } } },
    async (request, reply) => sendJson(reply, 201, await createResource(ctx, principal(request), request.body)),
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
        params: Params,
        body: Body,
        response: { 200: anyObject, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => sendJson(reply, 200, await replaceResource(ctx, principal(request), request.params.resource_id, request.body)),
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
