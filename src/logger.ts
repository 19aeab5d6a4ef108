// Structured JSON logs. Credentials never reach a log line: request headers that carry them and
// any field named like a secret are replaced before serialisation.
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

const redactedPaths = [
  '*.password',
  '*.password_hash',
  '*.access',
  '*.refresh',
  '*.token',
  '*.secret',
  '*.service_ssl_key',
  '*.private_key',
];

/**
 * Request headers whose value is a credential: Authorization, Proxy-Authorization, Cookie,
 * X-Auth-Token, X-API-Key, X-Amz-Security-Token, ... Matched by name rather than listed one by one,
 * since clients and proxies invent new ones (Node gives header names in lower case).
 */
const credentialHeader = /auth|cookie|token|secret|key|session|password|credential/;

function loggedHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, credentialHeader.test(name) ? '[redacted]' : value]));
}

interface RequestLike {
  method: string;
  url: string;
  ip?: string;
  headers: Record<string, unknown>;
}

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'edgeplane' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      serializers: {
        req: (request: RequestLike) => ({
          method: request.method,
          url: request.url,
          remote_address: request.ip,
          headers: loggedHeaders(request.headers),
        }),
        res: (reply: { statusCode: number }) => ({ status_code: reply.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
