// The caller's account (/iam/clients/me) and account creation by the platform's operators.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createAccount, describeAccount } from '../../../accounts/accounts.ts';
import type { AppContext } from '../../context.ts';
import { principal, requireOperator } from '../../auth.ts';
import { errors } from '../../schemas/common.ts';
import { NewAccountBody } from '../../schemas/iam.ts';

export function accountRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = ctx.store;

  r.get(
    '/iam/clients/me',
    { schema: { tags: ['iam'], summary: 'The caller\'s account and users', response: { 200: Type.Ref('Account'), ...errors(401) } } },
    (request) => {
      const caller = principal(request);
      return describeAccount(db, caller.accountId, caller.userId);
    },
  );

  r.post(
    '/iam/accounts',
    {
      preHandler: requireOperator,
      schema: {
        tags: ['iam'],
        summary: 'Create an account with its first administrator (platform operators only)',
        body: NewAccountBody,
        response: { 201: Type.Ref('Account'), ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await createAccount(db, ctx.passwords, request.body)),
  );
}
