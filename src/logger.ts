// Structured JSON logs. Credentials never reach a log line: the Authorization header, cookies and
// any field named like a secret are replaced before serialisation.
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  '*.password',
  '*.password_hash',
  '*.access',
  '*.refresh',
  '*.token',
  '*.secret',
  '*.service_ssl_key',
  '*.private_key',
];

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
          headers: request.headers,
        }),
        res: (reply: { statusCode: number }) => ({ status_code: reply.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
