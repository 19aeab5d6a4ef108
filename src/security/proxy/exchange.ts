// One request as the proxy's steps see it, and what a step may answer instead of the origin.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { ClientRequest } from './http1/client-request.ts';
import type { WafFinding } from './waf/waf.ts';

/**
 * A client's request, HTTP/1.x (http1/client-request.ts) or HTTP/2 (node:http2's compatibility
 * request), through what both have alike; its body is the Readable itself.
 */
export interface ProxyRequest extends Readable {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly httpVersion: string;
  readonly httpVersionMajor: number;
  readonly httpVersionMinor: number;
  readonly headers: IncomingHttpHeaders;
  /** The body has been received whole. */
  readonly complete: boolean;
  /** HTTP/1: the connection; HTTP/2: the session's (a proxy of it). */
  readonly socket: Socket;
}

/** One header of a request as a string (repeated lines joined); for HTTP/1.x without making its whole header record. */
export function headerValue(req: ProxyRequest, name: string): string | undefined {
  if (req instanceof ClientRequest) return req.header(name);
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(name === 'cookie' ? '; ' : ', ') : value;
}

/**
 * Whether a body follows the request's head: HTTP/1.x by its framing (Content-Length or chunked),
 * HTTP/2 unless its stream ended with its headers.
 */
export function requestHasBody(req: ProxyRequest): boolean {
  if (req instanceof ClientRequest) return req.hasBody;
  const stream = h2Stream(req);
  if (stream !== undefined) return !stream.endAfterHeaders;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** An HTTP/2 request's stream (node:http2's compatibility request has one); undefined for HTTP/1.x. */
export function h2Stream(req: ProxyRequest): ServerHttp2Stream | undefined {
  return (req as { stream?: ServerHttp2Stream }).stream;
}

/** The answer to the client (http1/client-response.ts, or node:http2's compatibility response), through the calls both take alike. */
export interface ProxyResponse {
  readonly headersSent: boolean;
  /** The status answered (200 until writeHead says otherwise), for the metrics and the access log. */
  readonly statusCode: number;
  /** Headers as an object, or as a flat name, value list (a name repeated for each of its values): both take either. */
  writeHead(statusCode: number, headers?: OutgoingHttpHeaders | string[]): this;
  /** False when the client's side is full: wait for 'drain'. */
  write(chunk: Buffer | string): boolean;
  // Two signatures, not one with an optional chunk: node:http2's `end(callback?)` matches only so.
  end(): this;
  // eslint-disable-next-line @typescript-eslint/unified-signatures
  end(chunk: Buffer | string): this;
  /** Cuts the client off (its connection, or its HTTP/2 stream). */
  destroy(): void;
  /** 'drain': room again; 'close': the client went before the answer was whole. */
  on(event: 'drain' | 'close', listener: () => void): this;
  once(event: 'drain' | 'close', listener: () => void): this;
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
  /** The body to forward when a step read its start (the WAF): those bytes, then the rest. */
  body?: Readable;
  /** What the WAF found, when it found something. */
  waf?: WafFinding;
}

/** An answer the proxy gives itself instead of forwarding: a refusal, a redirect, a challenge. */
export interface Answer {
  status: number;
  /** The outcome for metrics and the access log: `blacklist`, `geo`, `rate_limit`, `redirect`, ... */
  reason: string;
  headers?: Record<string, string | string[]>;
  /** The body's Content-Type; plain text when unset. */
  type?: string;
  body?: string;
  /** Sent only after the tarpit's delay (mitigation/tarpit.ts): for clients asking faster than any person would (shed sources, challenges asked for again and again). */
  hold?: boolean;
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
