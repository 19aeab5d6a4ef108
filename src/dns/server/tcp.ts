// The TCP listener (RFC 7766): admits connections within the limits shared by every DNS thread
// (tcp-limits.ts), turning the others away at once with a reset, and serves each admitted one
// (tcp-connection.ts).
import net from 'node:net';
import type { ListenAddress } from '../../config.ts';
import { answer } from './listener.ts';
import { serveConnection, type TcpReply, type TimeoutReason } from './tcp-connection.ts';
import { ConnectionAdmission, type Refusal } from '../../net/connection-admission.ts';
import type { TcpLimits } from './tcp-limits.ts';

/** Over TCP one query may have several messages in reply (a zone transfer). */
export type TcpHandler = (message: Buffer, source: string) => TcpReply;

/** What the listener reports (metrics.ts). */
export interface TcpEvents {
  refused(reason: Refusal): void;
  timedOut(reason: TimeoutReason): void;
  /** +1 when a connection is admitted, -1 when it closes. */
  open(delta: 1 | -1): void;
}

export interface TcpListener {
  /** Stops accepting and closes every open connection. */
  close(): Promise<void>;
}

export interface TcpOptions {
  shared: boolean;
  limits: TcpLimits;
  events: TcpEvents;
}

export function listenTcp(address: ListenAddress, handler: TcpHandler, onError: (e: unknown) => void, options: TcpOptions): Promise<TcpListener> {
  const sockets = new Set<net.Socket>();
  const admission = new ConnectionAdmission(options.limits);
  const { events } = options;
  const connectionEvents = { timedOut: (reason: TimeoutReason) => events.timedOut(reason), failed: onError };
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    const source = socket.remoteAddress;
    socket.on('error', () => socket.destroy());
    if (source === undefined) {
      socket.destroy();
      return;
    }
    const place = admission.admit(source);
    if (typeof place === 'string') {
      events.refused(place);
      socket.resetAndDestroy();
      return;
    }
    sockets.add(socket);
    events.open(1);
    socket.on('close', () => {
      sockets.delete(socket);
      admission.release(place);
      events.open(-1);
    });
    serveConnection(socket, (message) => answer(handler, message, source, onError), options.limits, connectionEvents);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address.host, port: address.port, reusePort: options.shared }, () => {
      server.off('error', reject);
      server.on('error', onError);
      resolve({
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      });
    });
  });
}
