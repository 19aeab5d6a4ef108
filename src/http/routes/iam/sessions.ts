// Login, refresh and logout (no token needed); login is throttled per address and per username.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { login, logout, refresh, type SessionContext } from '../../../accounts/sessions.ts';
import { invalid } from '../../../errors.ts';
import type { AppContext } from '../../context.ts';
import { errors } from '../../schemas/common.ts';
import { LoginBody, RefreshBody } from '../../schemas/iam.ts';

export function sessionRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const sessions: SessionContext = {
    db: ctx.store.db,
    tokens: ctx.accessTokens,
    passwords: ctx.passwords,
    accessTtlSeconds: ctx.config.accessTokenTtlSeconds,
    refreshTtlSeconds: ctx.config.refreshTokenTtlSeconds,
  };
  const loginSchema = {
    tags: ['iam'],
    summary: 'Log in with e-mail and password',
    security: [],
    body: LoginBody,
    response: { 200: { $ref: 'TokenPair#' }, ...errors(400, 401, 429) },
  };
  const loginHandler = async (request: { ip: string; body: { username: string; password: string } }) => {
    await ctx.loginLimiter.consume(request.ip, request.body.username);
    return login(sessions, request.body.username, request.body.password);
  };
  r.post('/iam/auth/jwt/login', { schema: loginSchema }, loginHandler);
  // One client's default login path; same behaviour, kept out of the documentation.
  r.post('/id/auth/jwt/login', { schema: { ...loginSchema, hide: true } }, loginHandler);

  r.post(
    '/iam/auth/jwt/refresh',
    {
      schema: {
        tags: ['iam'],
        summary: 'Exchange a refresh token for a new token pair (the old one is spent)',
        security: [],
        body: RefreshBody,
        response: { 200: { $ref: 'TokenPair#' }, ...errors(400, 401) },
      },
    },
    async (request) => {
      return refresh(sessions, refreshTokenOf(request.body));
    },
  );

  r.post(
    '/iam/auth/jwt/logout',
    {
      schema: {
        tags: ['iam'],
        summary: 'End the session of a refresh token: its refresh and access tokens stop working',
        security: [],
        body: RefreshBody,
        response: { 204: Type.Null(), ...errors(400) },
      },
    },
    async (request, reply) => {
      await logout(sessions, refreshTokenOf(request.body));
      return reply.code(204).send(null);
    },
  );
}

function refreshTokenOf(body: { refresh?: string | undefined; token?: string | undefined }): string {
  const token = body.refresh ?? body.token;
  if (token === undefined) throw invalid('refresh token missing', { refresh: 'required' });
  return token;
}
