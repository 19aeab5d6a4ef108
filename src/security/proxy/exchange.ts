// One request as the proxy's steps see it, and what a step may answer instead of the origin.
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { Writable } from 'node:stream';

export type ProxyRequest = IncomingMessage | Http2ServerRequest;

/**
 * The answer to the client: node:http's ServerResponse (HTTP/1.1) or http2's compat
 * Http2ServerResponse (h2), through the calls both take alike (a union of the two is not callable).
 */
export interface ProxyResponse extends Writable {
  readonly headersSent: boolean;
  /** The status answered (200 until writeHead says otherwise), for the metrics and the access log. */
  readonly statusCode: number;
  /** The request it answers. */
  readonly req: ProxyRequest;
  /** Headers as an object, or as a flat name, value list (a name repeated for each of its values): both take either. */
  writeHead(statusCode: number, headers?: OutgoingHttpHeaders | string[]): this;
}

export interface Exchange {
  req: ProxyRequest;
  res: ProxyResponse;
  /** The real client's address (PROXY protocol or a trusted X-Forwarded-For applied; IPv4-mapped IPv6 as IPv4). */
  client: string;
  /** The request came over TLS. */
  secure: boolean;
  /** The host asked for: lower case, no port, no trailing dot. */
  host: string;
  /** Upper case, as sent. */
  method: string;
  /** The path without the query string, as sent (not decoded). */
  path: string;
  /** Headers added to the origin's answer (HSTS, a challenge's cookie). */
  answerHeaders: Record<string, string | string[]>;
}

/** An answer the proxy gives itself instead of forwarding: a refusal, a redirect, a challenge. */
export interface Answer {
  status: number;
  /** The outcome for metrics and the access log: `blacklist`, `geo`, `rate_limit`, `redirect`, ... */
  reason: string;
  headers?: Record<string, string | string[]>;
  body?: string;
}

/**
 * One check or rewrite of a resource's policy. `pass`: the client is trusted (whitelisted), skip the
 * remaining checks; undefined: go on; an Answer: answer with it and stop.
 */
export type StepResult = Answer | 'pass' | undefined;
/**
 * What a step sees of an exchange: all but the response, which a step never writes (it returns its
 * answer). A WebSocket upgrade has no response object, only its socket, and passes the same steps.
 */
export type StepExchange = Omit<Exchange, 'res'>;
export type Step = (exchange: StepExchange) => StepResult | Promise<StepResult>;
