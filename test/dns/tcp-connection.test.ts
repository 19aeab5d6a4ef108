// One DNS TCP connection (src/dns/server/tcp-connection.ts) over a real loopback socket: a
// transfer's messages are made only as the client takes them, a reply still being read from the
// store holds later replies back so they keep their order, and a transfer failing half-way closes
// the connection.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { serveConnection, type TcpReply } from '../../src/dns/server/tcp-connection.ts';

const limits = { idleTimeoutMs: 5000, maxPipelined: 100 };
const frame = (body: Buffer) => Buffer.concat([Buffer.from([body.length >> 8, body.length & 255]), body]);
/** A 12-octet "query" whose first octet tells the handler which one it is. */
const query = (n: number) => frame(Buffer.from([n, ...Array<number>(11).fill(0)]));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a DNS TCP connection', () => {
  let server: net.Server;
  let port = 0;
  let answer: (message: Buffer) => TcpReply = () => undefined;
  const failures: unknown[] = [];

  before(async () => {
    server = net.createServer({ allowHalfOpen: true }, (socket) => {
      socket.on('error', () => socket.destroy());
      serveConnection(socket, (message) => answer(message), limits, { timedOut: () => undefined, failed: (e) => failures.push(e) });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Reads frames until `count` came or the connection closed; the bodies. */
  const read = (socket: net.Socket, count: number) =>
    new Promise<Buffer[]>((resolve) => {
      const bodies: Buffer[] = [];
      let pending = Buffer.alloc(0);
      const done = () => resolve(bodies);
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
          bodies.push(pending.subarray(2, 2 + pending.readUInt16BE(0)));
          pending = pending.subarray(2 + pending.readUInt16BE(0));
        }
        if (bodies.length >= count) done();
      });
      socket.on('close', done);
    });

  test('a transfer\'s messages are made as the client reads them, none ahead of the kernel', async () => {
    const total = 3000;
    let made = 0;
    answer = () =>
      (function* () {
        for (let i = 0; i < total; i++) {
          made++;
          const message = Buffer.alloc(16_000);
          message.writeUInt32BE(i, 0);
          yield message;
        }
      })();
    const socket = net.connect({ port, host: '127.0.0.1' });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write(query(1));
    await pause(300);
    // 48 MB asked for; what was made fits in the kernel's socket buffers of both ends.
    assert.ok(made > 0 && made < total / 5, `${String(made)} of ${String(total)} messages made while the client read nothing`);
    const reading = read(socket, total);
    socket.resume();
    const bodies = await reading;
    socket.destroy();
    assert.equal(bodies.length, total);
    assert.ok(bodies.every((body, i) => body.readUInt32BE(0) === i));
  });

  test('a reply still being read holds the later ones back: replies keep the order of queries', async () => {
    answer = (message) => {
      const n = message[0] ?? 0;
      const reply = Buffer.from([n]);
      // The first is "read from the store" and comes late; the second is ready at once.
      return n === 1 ? pause(100).then(() => [reply, Buffer.from([n, 2])]) : reply;
    };
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.write(Buffer.concat([query(1), query(2)]));
    const bodies = await read(socket, 3);
    socket.destroy();
    assert.deepEqual(bodies.map((b) => [...b]), [[1], [1, 2], [2]]);
  });

  test('a transfer failing half-way closes the connection and is reported', async () => {
    failures.length = 0;
    answer = () =>
      (function* () {
        yield Buffer.from([7]);
        throw new Error('the zone went away');
      })();
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.write(query(1));
    const bodies = await read(socket, 2);
    assert.deepEqual(bodies.map((b) => [...b]), [[7]]);
    assert.match(String(failures[0]), /the zone went away/);
  });
});
