// OpenAPI 3.1, generated from the route schemas, at /openapi.json; Swagger UI at /docs.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'edgeplane API',
        version,
        description: 'Edge DNS and web protection. Errors are {"error", "code", "fields"?}.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from /iam/auth/jwt/login' },
          apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'APIKey <id>_<secret>' },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
