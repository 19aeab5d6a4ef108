// The Fastify application: shared plumbing first (errors, bodies, metrics, OpenAPI), then public
// routes, then every authenticated area in its own encapsulated scope.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from './context.ts';
import { registerAuthentication } from './auth.ts';
import { clientErrorHandler } from './client-errors.ts';
import { frameworkErrors, registerErrorHandling } from './error-handler.ts';
import { bodyLimit, registerJsonBody } from './json-body.ts';
import { registerMetrics } from './metrics.ts';
import { registerConsole } from './console.ts';
import { registerOpenApi } from './openapi.ts';
import { ErrorBody } from './schemas/common.ts';
import { RrsetResult } from './schemas/dns.ts';
import { sharedIamSchemas } from './schemas/iam.ts';
import { healthRoutes } from './routes/health.ts';
import { accountRoutes } from './routes/iam/accounts.ts';
import { sessionRoutes } from './routes/iam/sessions.ts';
import { tokenRoutes } from './routes/iam/tokens.ts';
import { userRoutes } from './routes/iam/users.ts';
import { catalogueRoutes } from './routes/dns/catalogue.ts';
import { delegationRoutes } from './routes/dns/delegation.ts';
import { dnssecRoutes } from './routes/dns/dnssec.ts';
import { monitorRoutes } from './routes/dns/monitor.ts';
import { networkMappingRoutes } from './routes/dns/network-mappings.ts';
import { statisticsRoutes } from './routes/dns/statistics.ts';
import { rrsetRoutes } from './routes/dns/rrsets.ts';
import { failoverLogRoutes } from './routes/dns/failover-log.ts';
import { zoneFileRoutes } from './routes/dns/zone-files.ts';
import { platformRoutes, zoneRoutes } from './routes/dns/zones.ts';
import { resourceRoutes } from './routes/security/resources.ts';
import { requestStatisticsRoutes } from './routes/security/statistics.ts';

const version = '0.1.0';

/** A caller's X-Request-Id is kept when it is short and plain; otherwise we make one. */
function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

export async function buildHttpServer(ctx: AppContext): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: ctx.logger,
    genReqId: requestId,
    bodyLimit,
    return503OnClosing: true,
    // RRset names of up to 253 octets arrive percent-encoded in paths; the default (100) is too short.
    routerOptions: { maxParamLength: 1024 },
    frameworkErrors,
    clientErrorHandler: clientErrorHandler(ctx.logger),
    // Clients send `name=a,b` or repeat keys, with stray `&`; the default parser copes.
    ajv: { customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: false } },
  });

  registerErrorHandling(app);
  registerJsonBody(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addSchema(ErrorBody);
  for (const schema of sharedIamSchemas) app.addSchema(schema);
  app.addSchema(RrsetResult);

  await registerOpenApi(app, version);
  await registerConsole(app);
  registerMetrics(app, ctx.metrics);
  healthRoutes(app, ctx);
  sessionRoutes(app, ctx);
  platformRoutes(app, ctx.dns);

  await app.register(async (scope) => {
    registerAuthentication(scope, ctx);
    accountRoutes(scope, ctx);
    userRoutes(scope, ctx);
    tokenRoutes(scope, ctx);
    zoneRoutes(scope, ctx.dns);
    dnssecRoutes(scope, ctx.dns);
    delegationRoutes(scope, ctx.dns);
    statisticsRoutes(scope, ctx.dns);
    monitorRoutes(scope, ctx.dns);
    catalogueRoutes(scope);
    await networkMappingRoutes(scope, ctx.dns);
    rrsetRoutes(scope, ctx.dns);
    failoverLogRoutes(scope, ctx.dns);
    await zoneFileRoutes(scope, ctx.dns);
    resourceRoutes(scope, ctx.security);
    requestStatisticsRoutes(scope, ctx.security);
  });
  return app;
}
