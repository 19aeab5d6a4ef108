// JSON request bodies as real clients send them: an empty body with a JSON content type is an
// empty object, and `null` members are treated as absent (clients echo nulls from earlier GETs).
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from '../errors.ts';

export const bodyLimit = 1024 * 1024;

function dropNullMembers(this: unknown, _key: string, value: unknown): unknown {
  return value === null && !Array.isArray(this) ? undefined : value;
}

export function registerJsonBody(app: FastifyInstance): void {
  // Only JSON is spoken; any other content type is a 415 (areas add their own parsers where needed).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, {});
      return;
    }
    try {
      // secure-json-parse refuses __proto__ and constructor.prototype keys (prototype poisoning).
      done(null, secureJson.parse(text, dropNullMembers, { protoAction: 'error', constructorAction: 'error' }));
    } catch (e) {
      // The reviver recurses: a body nested some thousands deep runs out of stack.
      const message = e instanceof RangeError ? 'request body is nested too deeply' : `request body is not valid JSON: ${(e as Error).message}`;
      done(new ApiError(400, 'malformed_json', message), undefined);
    }
  });
}
