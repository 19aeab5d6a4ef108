// Authentication and authorization for the routes registered inside an authenticated scope.
// Every request there carries a Principal; Read-only callers may only read.
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { authenticate, type Principal } from '../accounts/principal.ts';
import { atLeast, type Role } from '../accounts/roles.ts';
import { forbidden, unauthorized } from '../errors.ts';
import type { AppContext } from './context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const readMethods = new Set(['GET', 'HEAD']);

export function registerAuthentication(scope: FastifyInstance, ctx: AppContext): void {
  scope.decorateRequest('principal', null);
  scope.addHook('onRequest', async (request) => {
    const caller = await authenticate(ctx.store.db, ctx.accessTokens, request.headers.authorization);
    if (caller.role === 'Read-only' && !readMethods.has(request.method)) {
      throw forbidden('this token or user is read-only');
    }
    request.principal = caller;
  });
}

export function principal(request: FastifyRequest): Principal {
  if (request.principal === null) throw unauthorized();
  return request.principal;
}

export function requireRole(role: Role): preHandlerAsyncHookHandler {
  return async (request) => {
    if (!atLeast(principal(request).role, role)) throw forbidden(`this operation needs the ${role} role`);
  };
}

export const requireOperator: preHandlerAsyncHookHandler = async (request) => {
  if (!principal(request).operator) throw forbidden('only administrators of the operators account may do this');
};
