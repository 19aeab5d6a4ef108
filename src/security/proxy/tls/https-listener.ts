// The proxy's HTTPS listener: the certificate is chosen by SNI among the resources' own, and h2 is
// offered by ALPN only to the names of resources with service_http2 1; HTTP/1.1 to every name.
//
// `http2.createSecureServer` does the TLS and serves h2 itself; a connection that negotiated
// `http/1.1`, or no ALPN at all, is an 'unknownProtocol' to it (allowHTTP1 off) and is handed to
// the proxy's own HTTP/1.x engine (`onHttp1`). Node 24 takes an `ALPNCallback` there in place of
// the fixed `ALPNProtocols` list http2 would otherwise set (the two cannot be combined). OpenSSL
// picks the protocol before the certificate, so the callback decides by the SNI name alone.
//
// A handshake for a name no resource with a certificate holds, or without SNI, meets the server's
// own context, which has no certificate: OpenSSL answers with a handshake_failure alert before its
// ServerHello, so nothing of any site is sent. Refusing in the SNI callback instead would drop the
// connection without an alert.
import http2 from 'node:http2';
import type { SecureContext, TLSSocket } from 'node:tls';
import type { ProxyRequest, ProxyResponse } from '../exchange.ts';
import { serverNameKey, tlsSettings } from './secure-contexts.ts';

export interface HttpsLimits {
  /** A TLS handshake not done within this is dropped (Node's default, 120 s, feeds slow handshakes). */
  handshakeTimeoutMs: number;
  /** Bytes of an h2 header list (HTTP/1.x's own limits are the engine's). */
  maxHeaderSize: number;
  /** h2 streams a client may have open at once on one connection. */
  maxConcurrentStreams: number;
}

export const defaultHttpsLimits: HttpsLimits = {
  handshakeTimeoutMs: 10_000,
  maxHeaderSize: 16 * 1024,
  maxConcurrentStreams: 128,
};

export interface HttpsListenerOptions {
  /** The certificate for an SNI name (lower case, no trailing dot); undefined refuses the handshake. */
  contextFor: (servername: string) => SecureContext | undefined;
  /** Whether h2 is offered to this SNI name. */
  http2For: (servername: string) => boolean;
  /** h2 requests. */
  onRequest: (req: ProxyRequest, res: ProxyResponse) => void;
  /** A connection that chose HTTP/1.1 (or no protocol) by ALPN, its handshake done. */
  onHttp1: (socket: TLSSocket) => void;
  limits?: Partial<HttpsLimits>;
  /**
   * 48 bytes encrypting TLS session tickets; give every thread of the process the same so a client
   * resumes its session whichever thread accepts its next connection. Undefined: this server's own.
   */
  ticketKeys?: Buffer;
}

/** The protocol for a client that offered `protocols` to `servername`; undefined: a no_application_protocol alert. */
export function chooseProtocol(servername: string | undefined, protocols: readonly string[], http2For: (servername: string) => boolean): string | undefined {
  if (servername !== undefined && protocols.includes('h2') && http2For(serverNameKey(servername))) return 'h2';
  // A client offering only h2 to a name without it has nothing in common with us (RFC 7301: alert).
  return protocols.includes('http/1.1') ? 'http/1.1' : undefined;
}

export function createHttpsListener(options: HttpsListenerOptions): http2.Http2SecureServer {
  const { contextFor, http2For, onRequest, onHttp1 } = options;
  const limits = { ...defaultHttpsLimits, ...options.limits };
  const server = http2.createSecureServer(
    {
      ...tlsSettings,
      allowHTTP1: false,
      SNICallback: (servername, done) => {
        done(null, contextFor(serverNameKey(servername)));
      },
      ALPNCallback: ({ servername, protocols }) => chooseProtocol(servername, protocols, http2For),
      handshakeTimeout: limits.handshakeTimeoutMs,
      ...(options.ticketKeys === undefined ? {} : { ticketKeys: options.ticketKeys }),
      settings: { maxConcurrentStreams: limits.maxConcurrentStreams, maxHeaderListSize: limits.maxHeaderSize },
    },
    onRequest,
  );
  server.on('unknownProtocol', onHttp1);
  // Failed handshakes (unknown names, old protocol versions, scanners) are the clients' business:
  // without a listener Node just destroys the socket, which is what we want.
  return server;
}
