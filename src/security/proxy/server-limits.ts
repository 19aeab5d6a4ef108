// What one client may make a proxy listener hold, in time and bytes, as the HTTP/1.x engine
// (http1/client-connection.ts) and node:http2 enforce it: a header section must be complete within
// the header timeout (slowloris: bytes trickled one at a time do not reset it) and within the header
// size; a kept-alive connection is closed after the idle timeout; a TLS handshake must end within the
// header timeout. The request body's bounds (size, rate) are body-limit.ts's, since they are known
// only per request.
import type { Http2SecureServer, ServerHttp2Session, ServerHttp2Stream } from 'node:http2';

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
export type ClientErrorReason = 'header_timeout' | 'header_too_large' | 'bad_request' | 'internal_error';

/**
 * How often connections are looked at for their header and idle timeouts: a quarter of the header
 * timeout, at most a second, so a connection is cut at most that long after its timeout.
 */
export function headersCheckingInterval(headersTimeoutMs: number): number {
  return Math.max(10, Math.min(1000, Math.floor(headersTimeoutMs / 4)));
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
