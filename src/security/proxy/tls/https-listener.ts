// The proxy's HTTPS listener: the certificate is chosen by SNI among the resources' own, and h2 is
// offered by ALPN only to the names of resources with service_http2 1; HTTP/1.1 to every name.
//
// One `http2.createSecureServer({ allowHTTP1: true })` serves both protocols: Node 24 takes an
// `ALPNCallback` there in place of the fixed `ALPNProtocols` list http2 would otherwise set (the
// two cannot be combined), and the server hands a connection that negotiated `http/1.1`, or no ALPN
// at all, to its HTTP/1.1 side. OpenSSL picks the protocol before the certificate, so the callback
// decides by the SNI name alone.
//
// A handshake for a name no resource with a certificate holds, or without SNI, meets the server's
// own context, which has no certificate: OpenSSL answers with a handshake_failure alert before its
// ServerHello, so nothing of any site is sent. Refusing in the SNI callback instead would drop the
// connection without an alert.
import type { IncomingMessage, ServerOptions } from 'node:http';
import http2 from 'node:http2';
import type { Duplex } from 'node:stream';
import type { SecureContext } from 'node:tls';
import type { ProxyRequest, ProxyResponse } from '../exchange.ts';
import { headersCheckingInterval } from '../server-limits.ts';
import { serverNameKey, tlsSettings } from './secure-contexts.ts';

export interface HttpsLimits {
  /** A TLS handshake not done within this is dropped (Node's default, 120 s, feeds slow handshakes). */
  handshakeTimeoutMs: number;
  /** HTTP/1.1: an idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** HTTP/1.1: the request's headers must have arrived within this. */
  headersTimeoutMs: number;
  /** HTTP/1.1: the whole request must have arrived within this. */
  requestTimeoutMs: number;
  /** Bytes of request headers (HTTP/1.1) and of a header list (h2). */
  maxHeaderSize: number;
  /** h2 streams a client may have open at once on one connection. */
  maxConcurrentStreams: number;
}

export const defaultHttpsLimits: HttpsLimits = {
  handshakeTimeoutMs: 10_000,
  keepAliveTimeoutMs: 30_000,
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  maxHeaderSize: 16 * 1024,
  maxConcurrentStreams: 128,
};

export interface HttpsListenerOptions {
  /** The certificate for an SNI name (lower case, no trailing dot); undefined refuses the handshake. */
  contextFor: (servername: string) => SecureContext | undefined;
  /** Whether h2 is offered to this SNI name. */
  http2For: (servername: string) => boolean;
  onRequest: (req: ProxyRequest, res: ProxyResponse) => void;
  /** HTTP/1.1 `Upgrade` requests (WebSocket); without it they are answered like any other request. */
  onUpgrade?: ((req: IncomingMessage, socket: Duplex, head: Buffer) => void) | undefined;
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
  const { contextFor, http2For, onRequest, onUpgrade } = options;
  const limits = { ...defaultHttpsLimits, ...options.limits };
  // The server keeps HTTP/1.1's options for its HTTP/1.1 side; @types/node does not list them.
  const serverOptions: http2.SecureServerOptions & ServerOptions = {
    ...tlsSettings,
    allowHTTP1: true,
    SNICallback: (servername, done) => {
      done(null, contextFor(serverNameKey(servername)));
    },
    ALPNCallback: ({ servername, protocols }) => chooseProtocol(servername, protocols, http2For),
    handshakeTimeout: limits.handshakeTimeoutMs,
    ...(options.ticketKeys === undefined ? {} : { ticketKeys: options.ticketKeys }),
    // HTTP/1.1.
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    connectionsCheckingInterval: headersCheckingInterval(limits.headersTimeoutMs),
    requestTimeout: limits.requestTimeoutMs,
    maxHeaderSize: limits.maxHeaderSize,
    // h2.
    settings: { maxConcurrentStreams: limits.maxConcurrentStreams, maxHeaderListSize: limits.maxHeaderSize },
  };
  const server = http2.createSecureServer(serverOptions, onRequest);
  if (onUpgrade !== undefined) server.on('upgrade', onUpgrade);
  // Failed handshakes (unknown names, old protocol versions, scanners) are the clients' business:
  // without a listener Node just destroys the socket, which is what we want.
  return server;
}
