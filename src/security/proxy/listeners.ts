// The proxy's two listeners, each opened with SO_REUSEPORT so that every proxy thread accepts on
// the same ports: plain HTTP, and HTTPS choosing the certificate by SNI (h2 by ALPN, HTTP/1.1 too).
import http from 'node:http';
import http2 from 'node:http2';
import type { Server, Socket } from 'node:net';
import type { ListenAddress } from '../../config.ts';
import type { HostTable } from './host-table.ts';
import type { RequestHandler } from './request-pipeline.ts';

export function httpListener(handler: RequestHandler): Server {
  return http.createServer({ keepAliveTimeout: 30_000, headersTimeout: 20_000, requestTimeout: 300_000 }, handler);
}

export function httpsListener(table: HostTable, handler: RequestHandler): Server {
  return http2.createSecureServer(
    {
      allowHTTP1: true,
      minVersion: 'TLSv1.2',
      // An unknown name, or a resource without a certificate: the handshake fails; never another site's certificate.
      SNICallback: (servername, done) => {
        const context = table.find(servername.toLowerCase())?.secureContext;
        if (context === undefined) done(new Error(`no certificate for ${servername}`));
        else done(null, context);
      },
    },
    handler,
  );
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
