// The UDP listener: one datagram in, at most one out. Two ways to move datagrams: Node's dgram (a system call and a JavaScript
// callback per datagram each way) and, on Linux, batches of up to 64 through recvmmsg/sendmmsg
// (udp-batch.ts), which cut a worker's CPU per query by about a third.
import type { ListenAddress, UdpIo } from '../../config.ts';
import type { Handler, UdpListener } from './listener.ts';
import { listenUdpBatched, udpBatchUnavailable } from './udp-batch.ts';
import { listenUdpDgram } from './udp-dgram.ts';

/**
 * `shared`: several workers bind the same port (SO_REUSEPORT) and the kernel spreads datagrams.
 * `auto` takes batches when the addon loaded; `batched` insists on them.
 */
export function listenUdp(address: ListenAddress, handler: Handler, onError: (e: unknown) => void, shared: boolean, io: UdpIo): Promise<UdpListener> {
  const unavailable = udpBatchUnavailable();
  if (io === 'batched' && unavailable !== undefined) {
    return Promise.reject(new Error(`EDGEPLANE_DNS_UDP_IO=batched, but ${unavailable}`));
  }
  if (io === 'dgram' || unavailable !== undefined) return listenUdpDgram(address, handler, onError, shared);
  return Promise.resolve(listenUdpBatched(address, handler, onError, shared));
}
