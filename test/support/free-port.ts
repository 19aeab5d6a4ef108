// Ports for servers the tests and benchmarks start as processes of their own (knotd, unbound,
// PowerDNS, nginx, the proxy under test), chosen before they start: the service under test is
// often told the port first.
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';

/** The first port the kernel hands out for a bind to port 0 (Linux's ip_local_port_range; 32768 by default). */
function ephemeralLow(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Whether `port` can be bound on 127.0.0.1 for UDP and for TCP at the time of the call. */
async function bindable(port: number): Promise<boolean> {
  const socket = dgram.createSocket('udp4');
  const udpFree = await new Promise<boolean>((resolve) => {
    socket.once('error', () => resolve(false));
    socket.bind(port, '127.0.0.1', () => resolve(true));
  });
  // Closed whether or not it bound: a socket whose bind failed still holds its handle.
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  if (!udpFree) return false;
  return new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port free for both UDP and TCP on 127.0.0.1 at the time of the call, for a process started
 * later. It is drawn below the kernel's ephemeral range: a port from a bind to port 0 (what every
 * test service and client socket gets) is handed out again as soon as it is let go, so the service
 * started between the choice and the process's start could take it (seen in CI: knotd's "address
 * already in use" for the resolver tests' port), and a load tool's tens of thousands of
 * connections take their source ports from that range too. `taken`: ports already handed out to
 * processes not listening yet, skipped; the port chosen is added to it.
 */
export async function freePort(taken?: Set<number>): Promise<number> {
  const high = ephemeralLow();
  const low = Math.max(1024, high - 12_000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (taken?.has(port) === true || !(await bindable(port))) continue;
    taken?.add(port);
    return port;
  }
  throw new Error(`no free port found between ${String(low)} and ${String(high)}`);
}
