// The proxy's two listeners, each opened with SO_REUSEPORT so that every proxy thread accepts on
// the same ports: plain HTTP, and HTTPS choosing the certificate by SNI (h2 by ALPN, HTTP/1.1 too).
import http from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import type { Server } from 'node:net';
import type { ListenAddress } from '../../config.ts';
import type { HostTable } from './host-table.ts';
import type { RequestHandler } from './request-pipeline.ts';
import { httpServerOptions, type ProxyLimits } from './server-limits.ts';
import { createHttpsListener } from './tls/https-listener.ts';

export function httpListener(handler: RequestHandler, limits: ProxyLimits): Server {
  return http.createServer(httpServerOptions(limits), handler);
}

/**
 * HTTPS (tls/https-listener.ts): an unknown name, or a resource without a certificate, fails the
 * handshake; never another site's certificate. `ticketKeys`: shared by the process's threads.
 */
export function httpsListener(table: HostTable, handler: RequestHandler, ticketKeys: Buffer, limits: ProxyLimits): Http2SecureServer {
  return createHttpsListener({
    contextFor: (servername) => table.find(servername)?.secureContext,
    http2For: (servername) => table.find(servername)?.policy.settings.service_http2 === 1,
    onRequest: handler,
    ticketKeys,
    // As the plain listener's (server-limits.ts): no whole-request timeout, the body's pace is bounded instead.
    limits: {
      handshakeTimeoutMs: limits.headerTimeoutMs,
      headersTimeoutMs: limits.headerTimeoutMs,
      keepAliveTimeoutMs: limits.idleTimeoutMs,
      requestTimeoutMs: 0,
      maxHeaderSize: limits.maxHeaderSize,
    },
  });
}

/** Listens (shared with the other threads) and resolves to the port actually bound. */
export function listenShared(server: Server, address: ListenAddress): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address.host, port: address.port, reusePort: true }, () => {
      server.off('error', reject);
      const bound = server.address();
      resolve(typeof bound === 'object' && bound !== null ? bound.port : address.port);
    });
  });
}
