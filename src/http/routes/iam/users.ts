// Users of the caller's account; administrators add and remove them.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parseRole } from '../../../accounts/roles.ts';
import { addUser, getUser, listUsers, removeUser } from '../../../accounts/users.ts';
import { invalid } from '../../../errors.ts';
import type { AppContext } from '../../context.ts';
import { principal, requireRole } from '../../auth.ts';
import { errors, IntegerId } from '../../schemas/common.ts';
import { NewUserBody } from '../../schemas/iam.ts';

const UserParams = Type.Object({ userId: IntegerId });
const adminsOnly = requireRole('Administrators');

export function userRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = ctx.store;

  r.get(
    '/iam/users',
    { schema: { tags: ['iam'], summary: 'Users of the caller\'s account', response: { 200: Type.Array(Type.Ref('User')), ...errors(401) } } },
    (request) => listUsers(db, principal(request)),
  );

  r.post(
    '/iam/users',
    {
      preHandler: adminsOnly,
      schema: {
        tags: ['iam'],
        summary: 'Add a user to the caller\'s account (administrators)',
        body: NewUserBody,
        response: { 201: Type.Ref('User'), ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const { role: roleRef, user_role: userRole, ...rest } = request.body;
      const requested = roleRef ?? userRole;
      const role = requested === undefined ? 'Users' : parseRole(requested);
      if (role === undefined) throw invalid('unknown role', { role: 'expected Administrators, Users or Read-only' });
      return reply.code(201).send(await addUser(db, ctx.passwords, principal(request), { ...rest, role }));
    },
  );

  r.get(
    '/iam/users/:userId',
    { schema: { tags: ['iam'], summary: 'One user of the caller\'s account', params: UserParams, response: { 200: Type.Ref('User'), ...errors(401, 404) } } },
    (request) => getUser(db, principal(request), request.params.userId),
  );

  r.delete(
    '/iam/users/:userId',
    {
      preHandler: adminsOnly,
      schema: {
        tags: ['iam'],
        summary: 'Remove a user and their tokens (administrators)',
        params: UserParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await removeUser(db, principal(request), request.params.userId);
      return reply.code(204).send(null);
    },
  );
}
