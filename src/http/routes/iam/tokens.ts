// Permanent API tokens of an account: /iam/v2/clients/{clientId}/tokens.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createApiToken, deleteApiToken, getApiToken, listApiTokens } from '../../../accounts/api-tokens.ts';
import type { AppContext } from '../../context.ts';
import { principal } from '../../auth.ts';
import { errors, IntegerId } from '../../schemas/common.ts';
import { CreatedApiToken, NewApiTokenBody } from '../../schemas/iam.ts';

const ClientParams = Type.Object({ clientId: IntegerId });
const TokenParams = Type.Object({ clientId: IntegerId, tokenId: IntegerId });

export function tokenRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = ctx.store;
  const base = '/iam/v2/clients/:clientId/tokens';

  r.post(
    base,
    {
      schema: {
        tags: ['iam'],
        summary: 'Create an API token; the answer holds the token once, it cannot be read again',
        params: ClientParams,
        body: NewApiTokenBody,
        response: { 201: CreatedApiToken, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createApiToken(db, principal(request), request.params.clientId, request.body)),
  );

  r.get(
    base,
    {
      schema: {
        tags: ['iam'],
        summary: 'List API tokens (administrators see all of the account, others their own)',
        params: ClientParams,
        response: { 200: Type.Array(Type.Ref('ApiToken')), ...errors(401, 404) },
      },
    },
    (request) => listApiTokens(db, principal(request), request.params.clientId),
  );

  r.get(
    `${base}/:tokenId`,
    {
      schema: {
        tags: ['iam'],
        summary: 'Read one API token (never its secret)',
        params: TokenParams,
        response: { 200: Type.Ref('ApiToken'), ...errors(401, 404) },
      },
    },
    (request) => getApiToken(db, principal(request), request.params.clientId, request.params.tokenId),
  );

  r.delete(
    `${base}/:tokenId`,
    {
      schema: {
        tags: ['iam'],
        summary: 'Delete an API token; it stops working at once on this node, within a second on others',
        params: TokenParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteApiToken(db, principal(request), request.params.clientId, request.params.tokenId);
      return reply.code(204).send(null);
    },
  );
}
