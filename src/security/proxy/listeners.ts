// The proxy's two listeners, each opened with SO_REUSEPORT so that every proxy thread accepts on
// the same ports: plain HTTP, and HTTPS choosing the certificate by SNI (h2 by ALPN, HTTP/1.1 too).
import http from 'node:http';
import type { Server, Socket } from 'node:net';
import type { ListenAddress } from '../../config.ts';
import type { HostTable } from './host-table.ts';
import type { RequestHandler } from './request-pipeline.ts';
import { createHttpsListener } from './tls/https-listener.ts';

export function httpListener(handler: RequestHandler): Server {
  return http.createServer({ keepAliveTimeout: 30_000, headersTimeout: 20_000, requestTimeout: 300_000 }, handler);
}

/**
 * HTTPS (tls/https-listener.ts): an unknown name, or a resource without a certificate, fails the
 * handshake; never another site's certificate. `ticketKeys`: shared by the process's threads.
 */
export function httpsListener(table: HostTable, handler: RequestHandler, ticketKeys: Buffer): Server {
  return createHttpsListener({
    contextFor: (servername) => table.find(servername)?.secureContext,
    http2For: (servername) => table.find(servername)?.policy.settings.service_http2 === 1,
    onRequest: handler,
    ticketKeys,
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

/**
 * Stops accepting and closes every connection: keep-alive connections would hold close() open, and
 * in-flight requests are cut (the service is stopping). Call before listening.
 */
export function closableServer(server: Server): () => Promise<void> {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      for (const socket of open) socket.destroy();
    });
}
