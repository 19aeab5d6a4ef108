// The proxy's two listeners, each opened with SO_REUSEPORT so that every proxy thread accepts on
// the same ports: plain HTTP, and HTTPS choosing the certificate by SNI (h2 by ALPN, HTTP/1.1 too).
import http from 'node:http';
import http2 from 'node:http2';
import type { Server } from 'node:net';
import type { ListenAddress } from '../../config.ts';
import type { HostTable } from './host-table.ts';
import type { RequestHandler } from './request-pipeline.ts';
import { httpServerOptions, secureServerOptions, type ProxyLimits } from './server-limits.ts';

export function httpListener(handler: RequestHandler, limits: ProxyLimits): Server {
  return http.createServer(httpServerOptions(limits), handler);
}

export function httpsListener(table: HostTable, handler: RequestHandler, limits: ProxyLimits): http2.Http2SecureServer {
  return http2.createSecureServer(
    {
      ...secureServerOptions(limits),
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
