// Zone export and import as BIND zone files. Import takes {"content": "..."} or a text/plain body.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DnsContext } from '../../../dns/context.ts';
import { importAnswer } from '../../../dns/import-answer.ts';
import { exportZone, importZone } from '../../../dns/zone-file-io.ts';
import { invalid } from '../../../errors.ts';
import { principal } from '../../auth.ts';
import { sendJson } from '../../json-reply.ts';
import { errors } from '../../schemas/common.ts';
import { ZoneParams } from '../../schemas/dns.ts';
import { maxZoneFileBytes } from '../../../dns/zonefile/parse.ts';

const tags = ['dns zones'];

export async function zoneFileRoutes(app: FastifyInstance, ctx: DnsContext): Promise<void> {
  app.get(
    '/dns/v2/zones/:name/export',
    { schema: { tags, summary: 'The zone as a BIND zone file', params: ZoneParams, response: { 200: Type.Object({ raw_zone: Type.String() }), ...errors(401, 404) } } },
    async (request, reply) => sendJson(reply, 200, await exportZone(ctx, principal(request), (request.params as { name: string }).name)),
  );

  // Its own scope: only the import route reads text/plain bodies, and up to the zone-file limit; a
  // JSON body keeps the 1 MiB of every JSON body (no route-wide bodyLimit, which would lift both).
  // The file as text/plain arrives as {content}, so a JSON body must be that object: a bare JSON
  // string, number or null is refused rather than imported as a zone file.
  await app.register(async (scope) => {
    scope.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: maxZoneFileBytes }, (_request, body, done) => {
      done(null, { content: typeof body === 'string' ? body : body.toString('utf8') });
    });
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/dns/v2/zones/:name/import',
      {
        schema: {
          tags,
          summary: 'Create RRsets from a BIND zone file; existing RRsets, the SOA and the apex NS are skipped',
          params: ZoneParams,
          body: Type.Object({
            // Unknown rather than String: ajv would turn {"content": 42} into the zone file "42".
            content: Type.Unknown({ description: 'The zone file as a string (JSON: up to 1 MiB); or send the file itself as text/plain (up to 10 MiB)' }),
          }),
          description: 'Under EDGEPLANE_COMPAT=gcore the answer also holds the provider\'s `imported`, `success` and `warnings`.',
          response: {
            200: Type.Object({
              created: Type.Array(Type.Unknown()),
              skipped: Type.Array(Type.Unknown()),
              imported: Type.Optional(Type.Object({ qtype: Type.Integer(), resource_records: Type.Integer(), rrsets: Type.Integer(), skipped_resource_records: Type.Integer() })),
              success: Type.Optional(Type.Boolean()),
              warnings: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.String()))),
            }),
            ...errors(400, 401, 403, 404, 413, 415),
          },
        },
      },
      async (request, reply) => {
        const text = request.body.content;
        if (typeof text !== 'string') throw invalid('the zone file must be a string', { content: 'must be a string holding a BIND zone file' });
        if (text.trim() === '') throw invalid('the zone file is empty', { content: 'must be a BIND zone file' });
        return sendJson(reply, 200, importAnswer(await importZone(ctx, principal(request), request.params.name, text), ctx.config.compat));
      },
    );
  });
}
