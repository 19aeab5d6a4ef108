// The proxy's two listeners, each opened with SO_REUSEPORT so that every proxy thread accepts on
// the same ports: plain HTTP, and HTTPS choosing the certificate by SNI (h2 by ALPN, HTTP/1.1 too).
// HTTP/1.x is served by the proxy's own engine (http1/) on both; h2 by node:http2.
import net from 'node:net';
import type { Http2SecureServer } from 'node:http2';
import type { ListenAddress } from '../../config.ts';
import type { HostTable } from './host-table.ts';
import { serveHttp1, type Http1Handlers } from './http1/client-connection.ts';
import { ConnectionClock } from './http1/connection-clock.ts';
import type { RequestTurns } from './http1/request-turns.ts';
import type { RequestHandler } from './request-pipeline.ts';
import { headersCheckingInterval, type ProxyLimits } from './server-limits.ts';
import { createHttpsListener } from './tls/https-listener.ts';

/** What serves HTTP/1.x connections for a listener: their handlers and the clock of their deadlines. */
export interface Http1Serving {
  /** Serves one connection (plain, or TLS that chose http/1.1). */
  serve(socket: net.Socket): void;
  /** Stops the deadline checks. */
  stop(): void;
}

/** `turns`: the thread's (one for all its listeners: the event loop's turns are the thread's). */
export function http1Serving(handlers: Http1Handlers, limits: ProxyLimits, turns: RequestTurns): Http1Serving {
  const clock = new ConnectionClock(headersCheckingInterval(limits.headerTimeoutMs));
  const options = { limits, handlers, clock, turns };
  return { serve: (socket) => serveHttp1(socket, options), stop: () => clock.stop() };
}

/** The plain-HTTP listener's server: it never listens itself, the connection guard hands it connections. */
export function httpListener(http1: Http1Serving): net.Server {
  const server = new net.Server();
  server.on('connection', (socket: net.Socket) => http1.serve(socket));
  return server;
}

/**
 * HTTPS (tls/https-listener.ts): an unknown name, or a resource without a certificate, fails the
 * handshake; never another site's certificate. `ticketKeys`: shared by the process's threads.
 */
export function httpsListener(table: HostTable, onRequest: RequestHandler, http1: Http1Serving, ticketKeys: Buffer, limits: ProxyLimits): Http2SecureServer {
  return createHttpsListener({
    contextFor: (servername) => table.find(servername)?.secureContext,
    http2For: (servername) => table.find(servername)?.policy.settings.service_http2 === 1,
    onRequest,
    onHttp1: (socket) => http1.serve(socket),
    ticketKeys,
    limits: { handshakeTimeoutMs: limits.headerTimeoutMs, maxHeaderSize: limits.maxHeaderSize },
  });
}

/** Listens (shared with the other threads) and resolves to the port actually bound. */
export function listenShared(server: net.Server, address: ListenAddress): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address.host, port: address.port, reusePort: true }, () => {
      server.off('error', reject);
      const bound = server.address();
      resolve(typeof bound === 'object' && bound !== null ? bound.port : address.port);
    });
  });
}
