// What one client may make a proxy listener hold, in time and bytes, as node:http and node:http2
// enforce it: a header section must be complete within the header timeout (slowloris: bytes trickled
// one at a time do not reset it) and within the header size; a kept-alive connection is closed after
// the idle timeout; a TLS handshake must end within the header timeout. The request body's bounds
// (size, rate) are body-limit.ts's and request-framing.ts's, since they are known only per request.
import type { ServerOptions as HttpServerOptions } from 'node:http';
import type { Http2SecureServer, ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import type { Duplex } from 'node:stream';

export interface ProxyLimits {
  /** The request line and headers of a request (and a TLS handshake, and a PROXY protocol header) must arrive within this long. */
  headerTimeoutMs: number;
  /** A connection without a request in progress is closed after this long (HTTP/1 keep-alive, an HTTP/2 session). */
  idleTimeoutMs: number;
  /** A request body may pause this long; after it, it must keep up `bodyMinRate` on average. */
  bodyTimeoutMs: number;
  /** Bytes a second a request body must average once `bodyTimeoutMs` has passed. */
  bodyMinRate: number;
  /** Bytes of a request line and its headers (HTTP/2: of the header list). */
  maxHeaderSize: number;
  /** Bytes of a request body; 0: no limit. */
  maxBodySize: number;
}

/** Why the server itself refused a connection's request before any handler saw it, as the metric labels it. */
export type ClientErrorReason = 'header_timeout' | 'header_too_large' | 'bad_request';

/**
 * How often node:http looks for connections past their header timeout (30 s by default): a quarter
 * of the timeout, at most a second, so a connection is cut at most that long after its timeout.
 */
export function headersCheckingInterval(headersTimeoutMs: number): number {
  return Math.max(10, Math.min(1000, Math.floor(headersTimeoutMs / 4)));
}

/**
 * node:http's options (the HTTPS listener's, tls/https-listener.ts, are the same). No whole-request
 * timeout (requestTimeout): it would cut legitimate slow uploads of large bodies; the body's own
 * pace is bounded instead (body-limit.ts).
 */
export function httpServerOptions(limits: ProxyLimits): HttpServerOptions {
  return {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: 0,
    keepAliveTimeout: limits.idleTimeoutMs,
    maxHeaderSize: limits.maxHeaderSize,
    connectionsCheckingInterval: headersCheckingInterval(limits.headerTimeoutMs),
    requireHostHeader: true,
  };
}

const clientErrorAnswers: Record<ClientErrorReason, string> = {
  header_timeout: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
  header_too_large: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
  bad_request: 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n',
};

/**
 * A `clientError` listener for the HTTP and HTTPS listeners: what node:http does by itself (answer
 * 408, 431 or 400 and close; smuggling attempts, conflicting Content-Length and Transfer-Encoding,
 * obs-fold and malformed chunks are refused by its parser as 400), and counted.
 */
export function onClientError(count: (reason: ClientErrorReason) => void): (error: Error & { code?: string }, socket: Duplex) => void {
  return (error, socket) => {
    const reason: ClientErrorReason =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'header_timeout' : error.code === 'HPE_HEADER_OVERFLOW' ? 'header_too_large' : 'bad_request';
    count(reason);
    // The answer node:http has under way on this connection, if any (its own clientError handling looks at it too).
    const answering = (socket as Duplex & { _httpMessage?: { headersSent: boolean } | null })._httpMessage;
    // Gone, or an answer already under way: nothing more can be said without corrupting it.
    if (socket.writable && answering?.headersSent !== true) socket.write(clientErrorAnswers[reason]);
    socket.destroy();
  };
}

/**
 * HTTP/2 sessions of the HTTPS listener closed (GOAWAY) after `idleTimeoutMs` without a stream
 * open. Not node:http2's own timeout, which counts silence even while a stream waits on a slow
 * origin (a long poll) and would cut it.
 */
export function closeIdleSessions(server: Http2SecureServer, idleTimeoutMs: number): void {
  server.on('session', (session: ServerHttp2Session) => {
    let open = 0;
    let timer: NodeJS.Timeout | undefined;
    const idle = () => {
      timer = setTimeout(() => session.close(), idleTimeoutMs);
    };
    session.on('stream', (stream: ServerHttp2Stream) => {
      open++;
      clearTimeout(timer);
      stream.once('close', () => {
        if (--open === 0 && !session.closed) idle();
      });
    });
    session.once('close', () => clearTimeout(timer));
    idle();
  });
}
