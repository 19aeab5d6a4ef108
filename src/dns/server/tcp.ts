// The TCP listener (RFC 7766): two-octet length framing, pipelined queries answered in order,
// messages split across reads reassembled, idle connections closed.
import net from 'node:net';
import type { ListenAddress } from '../../config.ts';
import { answer } from './listener.ts';

/** Over TCP one query may have several messages in reply (a zone transfer). */
export type TcpHandler = (message: Buffer, source: string) => Buffer | readonly Buffer[] | undefined;

/** RFC 7766 §6.2.3 suggests seconds, not minutes, for idle connections. */
const idleTimeoutMs = 10_000;

export interface TcpListener {
  /** Stops accepting and closes every open connection. */
  close(): Promise<void>;
}

export function listenTcp(address: ListenAddress, handler: TcpHandler, onError: (e: unknown) => void, shared: boolean): Promise<TcpListener> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let pending: Buffer = Buffer.alloc(0);
    socket.setTimeout(idleTimeoutMs, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const size = pending.readUInt16BE(0);
        if (pending.length < 2 + size) break;
        const message = pending.subarray(2, 2 + size);
        pending = pending.subarray(2 + size);
        const reply = answer(handler, message, socket.remoteAddress ?? '', onError);
        if (reply === undefined) continue;
        for (const part of Buffer.isBuffer(reply) ? [reply] : reply) {
          const framed = Buffer.allocUnsafe(2 + part.length);
          framed.writeUInt16BE(part.length, 0);
          part.copy(framed, 2);
          socket.write(framed);
        }
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address.host, port: address.port, reusePort: shared }, () => {
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
