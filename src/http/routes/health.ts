// Liveness and readiness probes; no authentication.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';

const Status = Type.Object({ status: Type.String() });

export function healthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/healthz', { schema: { tags: ['health'], security: [], response: { 200: Status } } }, () => ({ status: 'ok' }));
  app.get(
    '/readyz',
    { schema: { tags: ['health'], security: [], response: { 200: Status, 503: Type.Ref('Error') } } },
    async (request, reply) => {
      try {
        await ctx.store.ping();
        return { status: 'ready' };
      } catch (e) {
        request.log.warn({ err: e }, 'store is not reachable');
        return reply.code(503).send({ error: 'store is not reachable', code: 'not_ready' });
      }
    },
  );
}
