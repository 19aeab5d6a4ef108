// Hostile requests made from the API's own OpenAPI document: for every operation, each path
// parameter set to each hostile string in turn, then requests whose path parameters name real
// objects or are garbage, query parameters of the right and wrong kinds, and bodies
// built from the operation's schema with some values replaced by what no client should send (nulls,
// huge numbers and strings, nesting, prototype keys) or by bodies that are not JSON at all. Seeded,
// so a failure names a request that can be sent again. An endpoint added later is covered without
// a test of its own.
import { seededRandom } from './prng.ts';

export interface HostileRequest {
  method: string;
  path: string;
  /** A JSON value to send, or a raw body with its content type. */
  body?: unknown;
  raw?: { text: string; contentType: string };
}

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  maximum?: number;
}

interface Operation {
  parameters?: { in: string; name: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
}

const hostileStrings = [
  '', ' ', '..', '\u0000', 'a'.repeat(70_000), '-1', '99999999999999999999999', 'ÿþ', '%ZZ', '.', '*', '😀',
  '<script>', "' OR 1=1--", '../../etc/passwd', 'a..b', '1e309', 'NaN', 'null', '{}', '\\', 'A'.repeat(254), 'x.'.repeat(130),
];
const hostileValues: unknown[] = [null, -1, 0, 1.5, 2 ** 53, -(2 ** 63), 1e308, true, [], {}, [null], { a: { b: { c: [] } } }, ...hostileStrings];
const plainStrings = ['example.test', 'www', '192.0.2.1', 'abc', 'geodns', 'A', '10.0.0.0/8', 'primary'];
const methods = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** `template` (`/dns/v2/zones/{name}`) with each parameter replaced by `valueOf(its name)`, encoded. */
const filled = (template: string, valueOf: (name: string) => string): string => template.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(valueOf(name)));

export interface HostileOptions {
  seed: number;
  /** Requests made per operation. */
  perOperation: number;
  /** A real value for a path parameter (a zone's name, a resource's id), by the parameter's name. */
  realValue: (parameter: string) => string;
  /** Operations left out (logging out would end the session the others need). */
  skip: (method: string, path: string) => boolean;
}

/** Every operation's hostile requests, in the document's order. */
export function hostileRequests(document: OpenApi, options: HostileOptions): HostileRequest[] {
  const random = seededRandom(options.seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

  function sample(schema: Schema | undefined, depth = 0): unknown {
    if (schema === undefined || depth > 6) return null;
    const choices = schema.anyOf ?? schema.oneOf;
    if (choices !== undefined) return sample(pick(choices), depth + 1);
    if (schema.allOf !== undefined) return Object.assign({}, ...schema.allOf.map((part) => sample(part, depth + 1)));
    if (schema.enum !== undefined) return pick(schema.enum);
    if (schema.const !== undefined) return schema.const;
    const type = Array.isArray(schema.type) ? pick(schema.type) : schema.type;
    switch (type) {
      case 'object':
        return Object.fromEntries(Object.entries(schema.properties ?? {}).filter(() => random() < 0.8).map(([key, value]) => [key, sample(value, depth + 1)]));
      case 'array':
        return Array.from({ length: Math.floor(random() * 3) }, () => sample(schema.items, depth + 1));
      case 'integer':
        return pick([0, 1, 60, 3600, schema.minimum ?? 0, schema.maximum ?? 10]);
      case 'number':
        return pick([0, 1, 0.5, 51.5]);
      case 'boolean':
        return random() < 0.5;
      case 'string':
        return pick(plainStrings);
      default:
        return null;
    }
  }

  function mutate(value: unknown, depth = 0): unknown {
    if (random() < 0.15 || depth > 6) return pick(hostileValues);
    if (Array.isArray(value)) {
      const out = value.map((item) => mutate(item, depth + 1));
      if (random() < 0.2) out.push(pick(hostileValues));
      return out;
    }
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) if (random() >= 0.1) out[key] = mutate(item, depth + 1);
      if (random() < 0.1) Object.defineProperty(out, pick(['__proto__', 'constructor', 'id', 'unknown_field']), { value: pick(hostileValues), enumerable: true });
      return out;
    }
    return value;
  }

  const out: HostileRequest[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!methods.has(method) || options.skip(method, template)) continue;
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
      // Each hostile string once in each path parameter, the others real.
      for (const parameter of template.matchAll(/\{([^}]+)\}/g)) {
        for (const hostile of hostileStrings) {
          const path = filled(template, (name) => (name === parameter[1] ? hostile : options.realValue(name)));
          out.push({ method: method.toUpperCase(), path, ...(bodySchema === undefined ? {} : { body: sample(bodySchema) }) });
        }
      }
      for (let i = 0; i < options.perOperation; i++) {
        let path = filled(template, (name) => (random() < 0.6 ? options.realValue(name) : pick(hostileStrings)));
        const pairs = query.filter(() => random() < 0.5).map((parameter) => `${encodeURIComponent(parameter.name)}=${encodeURIComponent(String(random() < 0.5 ? sample(parameter.schema) : pick(hostileValues)))}`);
        if (pairs.length > 0) path += `?${pairs.join('&')}`;
        const request: HostileRequest = { method: method.toUpperCase(), path };
        if (bodySchema !== undefined || method === 'post' || method === 'put' || method === 'patch') {
          const kind = random();
          if (kind < 0.05) request.raw = { text: `{"a":${'['.repeat(5000)}`, contentType: 'application/json' };
          else if (kind < 0.08) request.raw = { text: 'not json', contentType: 'text/plain' };
          else request.body = mutate(sample(bodySchema));
        }
        out.push(request);
      }
    }
  }
  return out;
}
