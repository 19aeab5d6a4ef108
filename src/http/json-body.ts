// JSON request bodies as real clients send them: an empty body with a JSON content type is an
// empty object, and `null` members are treated as absent (clients echo nulls from earlier GETs).
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from '../errors.ts';

export const bodyLimit = 1024 * 1024;

/**
 * Removes the `null` members of objects at every depth (arrays keep theirs), in place. A walk after
 * parsing rather than a reviver: V8 parses many times slower with one (about 5 µs more for an RRset
 * body). It recurses as a reviver did, so a body nested some thousands deep runs out of stack.
 */
function dropNullMembers(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (const item of value) dropNullMembers(item);
    return value;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (object[key] === null) Reflect.deleteProperty(object, key);
    else dropNullMembers(object[key]);
  }
  return value;
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
      done(null, dropNullMembers(secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })));
    } catch (e) {
      // dropNullMembers recurses: a body nested some thousands deep runs out of stack.
      const message = e instanceof RangeError ? 'request body is nested too deeply' : `request body is not valid JSON: ${(e as Error).message}`;
      done(new ApiError(400, 'malformed_json', message), undefined);
    }
  });
}
