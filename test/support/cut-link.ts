// A TCP link to a server (PostgreSQL here) that loses one answer on purpose, as a network failure
// would: armed with a test of what the client sends, it passes the first chunk that meets it on to
// the server, waits until the server has answered all of it (PostgreSQL's ReadyForQuery: the
// statement, or the COMMIT, is carried out by then), and closes both sides without passing that
// answer on. Every other chunk goes through as it is. Armed to silence instead, it passes the chunk
// and nothing after it on that connection, either way, and keeps the connection open: a connection
// that died without a word (a firewall that forgot the flow, a server whose machine went away).
// Taken down, it drops every connection and holds new ones open without an answer, as an
// unreachable server behind a silent network does; held, it does that to new ones only.
import net from 'node:net';

export interface CutLink {
  port: number;
  /** Cuts the next exchange whose client chunk meets `test`; resolves once it is cut. */
  arm(test: (chunk: Buffer) => boolean): Promise<void>;
  /** Silences the connection of the next client chunk that meets `test`, after that chunk; resolves once it passed. */
  silence(test: (chunk: Buffer) => boolean): Promise<void>;
  /** Drops every connection; new ones get no answer until up(). */
  down(): void;
  /** New connections get no answer until up(); those open are left as they are. */
  hold(): void;
  up(): void;
  close(): Promise<void>;
}

/** PostgreSQL's ReadyForQuery message ('Z', length 5), which ends the server's answer to a query or a Sync. */
const readyForQuery = Buffer.from([0x5a, 0, 0, 0, 5]);

export async function cutLink(target: { host: string; port: number }): Promise<CutLink> {
  let armed: { test: (chunk: Buffer) => boolean; cut: () => void; silence?: true } | undefined;
  let unreachable = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (unreachable) return;
    const upstream = net.connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => undefined);
    // Set on the connection that carried the armed chunk: the server's answer there is dropped.
    let cutting: (() => void) | undefined;
    let silent = false;
    client.on('data', (chunk) => {
      if (silent) return;
      if (armed?.test(chunk) === true) {
        if (armed.silence === true) {
          silent = true;
          armed.cut();
        } else cutting = armed.cut;
        armed = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (silent) return;
      if (cutting === undefined) {
        client.write(chunk);
        return;
      }
      if (!chunk.includes(readyForQuery)) return;
      client.destroy();
      upstream.destroy();
      cutting();
    });
    // A silenced connection's server side is not told when the client goes: the network is silent.
    client.on('close', () => {
      if (!silent) upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    arm: (test) => new Promise<void>((cut) => (armed = { test, cut })),
    silence: (test) => new Promise<void>((cut) => (armed = { test, cut, silence: true })),
    hold: () => {
      unreachable = true;
    },
    down: () => {
      unreachable = true;
      for (const socket of sockets) socket.destroy();
    },
    up: () => {
      unreachable = false;
      // Those held while it was down never reach the server.
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
