// The door of each proxy listener (HTTP and HTTPS): every connection is accepted here first, and
// only then handed to the HTTP or TLS server behind it (`server.emit('connection', socket)`), which
// never listens itself. Here a connection is held to:
// - the PROXY protocol header, when the listener is behind a load balancer that sends one
//   (proxy-protocol.ts): missing, malformed or not complete within the header timeout → closed;
// - the caps on connections in total and per client (net/connection-admission.ts, counted across
//   the proxy threads of the process). A client is counted once the header named it, so that the
//   balancer's own address is not what is capped; until then the connection holds a place in total.
//   Refused connections are reset at once (no HTTP answer: on the HTTPS listener there could be none).
// The client found is attached to the socket (`connectionClient`) for the request pipeline.
import net from 'node:net';
import tls from 'node:tls';
import { ConnectionAdmission, type Place, type Refusal, type SharedCaps } from '../../net/connection-admission.ts';
import { plainAddress } from './client-address.ts';
import { readProxyHeader } from './proxy-protocol.ts';

/** Why a PROXY protocol header was not had, as the metric labels it. */
export type ProxyProtocolError = 'invalid' | 'timeout';

export interface GuardEvents {
  refused(reason: Refusal): void;
  proxyProtocolError(reason: ProxyProtocolError): void;
  /** +1 when a connection is handed over, -1 when it closes. */
  open(delta: 1 | -1): void;
}

export interface GuardOptions {
  /** Whether every connection starts with a PROXY protocol header (v1 or v2). */
  proxyProtocol: boolean;
  /** A PROXY protocol header must be complete within this long of the connection. */
  headerTimeoutMs: number;
  /** The counters shared by every proxy thread of the process. */
  caps: SharedCaps;
  events: GuardEvents;
}

const client = Symbol('edgeplane.proxy.client');

interface Guarded {
  [client]?: string;
  /** A TLS socket's underlying TCP socket (Node's, since 0.x). */
  _parent?: Guarded | null;
}

/**
 * The client of a connection the guard handed over: the PROXY protocol header's, or the peer's;
 * for a TLS socket (or an HTTP/2 request's socket), its TCP socket's.
 */
export function connectionClient(socket: net.Socket): string {
  const guarded = socket as Guarded;
  return guarded[client] ?? guarded._parent?.[client] ?? plainAddress(socket.remoteAddress ?? '');
}

export class ConnectionGuard {
  /** The listening server; the caller listens with it (port, reusePort). */
  readonly server: net.Server;
  readonly #target: net.Server;
  readonly #options: GuardOptions;
  readonly #admission: ConnectionAdmission;
  readonly #sockets = new Set<net.Socket>();

  /** `target`: the http.Server, https/http2 secure server or tls.Server that serves what is admitted. */
  constructor(target: net.Server, options: GuardOptions) {
    this.#target = target;
    this.#options = options;
    this.#admission = new ConnectionAdmission(options.caps);
    // As node:http's own listener does (a server fed connections from outside never listens, so its
    // own socket options are not applied to them): half-open connections allowed, so that a client
    // that shuts down its sending side still gets its answer.
    this.server = net.createServer({ noDelay: true, allowHalfOpen: true }, (socket) => this.#accept(socket));
    // node:http checks its header and request timeouts only once it has seen 'listening'
    // (setupConnectionsTracking): the target is told so, as it never listens itself.
    target.emit('listening');
  }

  /** Connections open, handed over or waiting for their PROXY protocol header. */
  get connections(): number {
    return this.#sockets.size;
  }

  /** Stops accepting, closes every connection, and stops the target's timers. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.#sockets) socket.destroy();
      // The target never listened: closing it only stops its connection checks (ERR_SERVER_NOT_RUNNING is expected).
      this.#target.close(() => undefined);
    });
  }

  #accept(socket: net.Socket): void {
    socket.on('error', () => socket.destroy());
    const peer = socket.remoteAddress;
    // Gone already (reset before we saw it).
    if (peer === undefined) {
      socket.destroy();
      return;
    }
    if (!this.#options.proxyProtocol) {
      const address = plainAddress(peer);
      const place = this.#admission.admit(address);
      if (typeof place === 'string') {
        this.#refuse(socket, place);
        return;
      }
      this.#track(socket, () => this.#admission.release(place));
      this.#handOver(socket, address);
      return;
    }
    if (!this.#admission.open()) {
      this.#refuse(socket, 'max_clients');
      return;
    }
    let place: Place | undefined;
    this.#track(socket, () => {
      if (place !== undefined) this.#admission.releaseClient(place);
      this.#admission.close();
    });
    this.#readProxyHeader(socket, peer, (address) => {
      const admitted = this.#admission.admitClient(address);
      if (typeof admitted === 'string') {
        this.#refuse(socket, admitted);
        return;
      }
      place = admitted;
      this.#handOver(socket, address);
    });
  }

  /** Reads the header, gives back what followed it to the socket, and calls `then` with the client it names. */
  #readProxyHeader(socket: net.Socket, peer: string, then: (address: string) => void): void {
    const { events, headerTimeoutMs } = this.#options;
    let received: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => {
      events.proxyProtocolError('timeout');
      socket.destroy();
    }, headerTimeoutMs);
    socket.once('close', () => clearTimeout(timer));
    // Gone before its header was whole (the socket allows half-open connections, as node:http's do).
    const onEnd = () => socket.destroy();
    socket.once('end', onEnd);
    const onData = (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      const header = readProxyHeader(received);
      if (header.state === 'partial') return;
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      if (header.state === 'invalid') {
        events.proxyProtocolError('invalid');
        socket.destroy();
        return;
      }
      socket.pause();
      if (received.length > header.length) socket.unshift(received.subarray(header.length));
      then(header.source?.address ?? plainAddress(peer));
    };
    socket.on('data', onData);
  }

  #track(socket: net.Socket, release: () => void): void {
    this.#sockets.add(socket);
    socket.once('close', () => {
      this.#sockets.delete(socket);
      release();
    });
  }

  #handOver(socket: net.Socket, address: string): void {
    (socket as Guarded)[client] = address;
    this.#options.events.open(1);
    socket.once('close', () => this.#options.events.open(-1));
    this.#target.emit('connection', socket);
    // Bytes that followed a PROXY protocol header wait in the socket's buffer, which was paused.
    // node:http reads the connection itself from now on, and takes them from the stream's 'data'
    // once it flows again; a TLS socket takes them out of the buffer itself (letting the stream
    // flow would hand its handshake to nobody).
    if (socket.readableLength > 0 && !(this.#target instanceof tls.Server)) socket.resume();
  }

  #refuse(socket: net.Socket, reason: Refusal): void {
    this.#options.events.refused(reason);
    socket.resetAndDestroy();
  }
}
