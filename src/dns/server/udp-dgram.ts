// UDP through Node's dgram: portable, one system call and one JavaScript callback per datagram.
import dgram from 'node:dgram';
import dns from 'node:dns';
import { isIPv6 } from 'node:net';
import type { ListenAddress } from '../../config.ts';
import { answer, type Handler, type UdpListener } from './listener.ts';

export function listenUdpDgram(address: ListenAddress, handler: Handler, onError: (e: unknown) => void, shared: boolean): Promise<UdpListener> {
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
    const reply = answer(handler, message, remote.address, onError);
    if (reply !== undefined) socket.send(reply, remote.port, remote.address);
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(address.port, address.host, () => {
      bound = true;
      socket.off('error', reject);
      socket.on('error', onError);
      resolve({
        port: socket.address().port,
        io: 'dgram',
        close: () => new Promise<void>((done) => socket.close(() => done())),
      });
    });
  });
}
