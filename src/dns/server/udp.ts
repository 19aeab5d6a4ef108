// The UDP listener: one datagram in, at most one out. A handler failure answers SERVFAIL and the
// socket keeps serving.
import dgram from 'node:dgram';
import dns from 'node:dns';
import { isIPv6 } from 'node:net';
import type { ListenAddress } from '../../config.ts';

export type Handler = (message: Buffer, source: string) => Buffer | undefined;

export function serverFailure(message: Buffer): Buffer | undefined {
  if (message.length < 12) return undefined;
  const reply = Buffer.from(message.subarray(0, 12));
  // QR set, opcode and RD kept, RCODE 2; no sections.
  reply.writeUInt16BE((message.readUInt16BE(2) & 0x7900) | 0x8002, 2);
  reply.fill(0, 4, 12);
  return reply;
}

/** `shared`: several workers bind the same port (SO_REUSEPORT) and the kernel spreads datagrams. */
export function listenUdp(address: ListenAddress, handler: Handler, onError: (e: unknown) => void, shared: boolean): Promise<dgram.Socket> {
  const family = isIPv6(address.host) ? 6 : 4;
  let bound = false;
  const socket = dgram.createSocket({
    type: family === 6 ? 'udp6' : 'udp4',
    reusePort: shared,
    // Once bound, the socket only sends replies, to the address a query came from: an IP literal.
    // dgram's own lookup would defer every send by a tick to find that out.
    lookup: (hostname, options, callback) => {
      if (bound) callback(null, hostname, family);
      else dns.lookup(hostname, options, callback);
    },
  });
  socket.on('message', (message, remote) => {
    let reply: Buffer | undefined;
    try {
      reply = handler(message, remote.address);
    } catch (e) {
      onError(e);
      reply = serverFailure(message);
    }
    if (reply !== undefined) socket.send(reply, remote.port, remote.address);
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(address.port, address.host, () => {
      bound = true;
      socket.off('error', reject);
      socket.on('error', onError);
      resolve(socket);
    });
  });
}
