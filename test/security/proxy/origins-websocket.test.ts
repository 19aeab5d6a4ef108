// WebSocket upgrades through forwardUpgrade(): a real WebSocket client talking to an echoing origin,
// the raw tunnel (bytes sent with the handshake, large echoes, either side closing closes the
// other), an origin refusing the upgrade, and no origin at all.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { deadPort, originSet, startOrigin, startProxy, type Origin, type Proxy } from './origins-harness.ts';

const cleanup: Array<Origin | Proxy> = [];
after(async () => {
  for (const item of cleanup) await ('stop' in item ? item.stop().catch(() => undefined) : item.close());
});

const accept = (key: string) => createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');

/** Unmasks the client's small frames (payload < 126 bytes) and sends them back unmasked: a WebSocket echo. */
function echoFrames(socket: net.Socket): void {
  let pending = Buffer.alloc(0);
  socket.on('data', (data: Buffer) => {
    pending = Buffer.concat([pending, data]);
    while (pending.length >= 6) {
      const length = (pending[1] ?? 0) & 0x7f;
      if (pending.length < 6 + length) return;
      const mask = pending.subarray(2, 6);
      const payload = Buffer.from(pending.subarray(6, 6 + length).map((byte, i) => byte ^ (mask[i % 4] ?? 0)));
      const opcode = (pending[0] ?? 0) & 0x0f;
      socket.write(Buffer.concat([Buffer.from([pending[0] ?? 0, length]), payload]));
      if (opcode === 0x8) socket.end();
      pending = pending.subarray(6 + length);
    }
  });
}

interface WsOrigin extends Origin {
  closed: Promise<void>;
  /** The upgraded connections it holds (the http server no longer tracks them). */
  tunnels: Set<net.Socket>;
}

/** An origin accepting upgrades on /echo (WebSocket frames) and /raw (bytes echoed as they are); refusing others with a 403. */
async function wsOrigin(): Promise<WsOrigin> {
  const origin = await startOrigin('ws');
  const closed = Promise.withResolvers<undefined>();
  const tunnels = new Set<net.Socket>();
  origin.server.on('upgrade', (req, socket: net.Socket, head: Buffer) => {
    origin.seen.push(req.headers);
    tunnels.add(socket);
    if (req.url !== '/echo' && req.url !== '/raw') {
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: 7\r\n\r\nno way\n');
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept(String(req.headers['sec-websocket-key']))}\r\nx-origin: yes\r\n\r\n`);
    socket.on('close', () => closed.resolve(undefined));
    socket.on('error', () => undefined);
    if (req.url === '/echo') {
      echoFrames(socket);
    } else {
      if (head.length > 0) socket.write(head);
      socket.pipe(socket);
    }
  });
  cleanup.push(origin);
  return Object.assign(origin, { closed: closed.promise, tunnels });
}

async function proxyTo(ports: number[], tunnelIdleTimeoutMs?: number): Promise<Proxy> {
  const proxy = await startProxy(originSet(ports.map((port) => ({ port })), {}, tunnelIdleTimeoutMs === undefined ? {} : { tunnelIdleTimeoutMs }));
  cleanup.push(proxy);
  return proxy;
}

/** Everything a socket received so far, and a way to wait for more. */
class Received {
  data = Buffer.alloc(0);
  #wake: (() => void) | undefined;

  constructor(socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk]);
      this.#wake?.();
    });
  }

  async atLeast(bytes: number): Promise<Buffer> {
    while (this.data.length < bytes) await new Promise<void>((resolve) => (this.#wake = resolve));
    return this.data;
  }

  /** The response head once complete; what follows it stays in `data`. */
  async head(): Promise<string> {
    let end = this.data.indexOf('\r\n\r\n');
    while (end === -1) {
      await this.atLeast(this.data.length + 1);
      end = this.data.indexOf('\r\n\r\n');
    }
    const head = this.data.subarray(0, end).toString();
    this.data = this.data.subarray(end + 4);
    return head;
  }
}

/** Sends an upgrade request (and `extra` bytes right behind it) and resolves with the response head and the socket. */
async function upgrade(port: number, path: string, extra = ''): Promise<{ head: string; socket: net.Socket; received: Received }> {
  const socket = net.connect(port, '127.0.0.1');
  const received = new Received(socket);
  await once(socket, 'connect');
  socket.write(`GET ${path} HTTP/1.1\r\nhost: site.example\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\nx-forwarded-for: 6.6.6.6\r\n\r\n${extra}`);
  return { head: await received.head(), socket, received };
}

describe('WebSocket through forwardUpgrade', () => {
  test('a WebSocket client exchanges messages with the origin', async () => {
    const origin = await wsOrigin();
    const proxy = await proxyTo([origin.port]);
    const ws = new WebSocket(`ws://127.0.0.1:${String(proxy.port)}/echo`);
    await once(ws, 'open');
    const replies: string[] = [];
    ws.addEventListener('message', (event) => replies.push(String(event.data)));
    ws.send('hello');
    ws.send('through the proxy');
    while (replies.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(replies, ['hello', 'through the proxy']);
    ws.close();
    await origin.closed;
    assert.deepEqual(proxy.results.map((r) => [r.outcome, r.status]), [['passed', 101]]);
    const seen = origin.seen[0]!;
    assert.equal(seen['host'], `127.0.0.1:${String(proxy.port)}`);
    assert.equal(seen['x-forwarded-for'], '127.0.0.1');
    assert.equal(seen['upgrade'], 'websocket');
  });

  test('the raw tunnel: bytes sent with the handshake, a large echo, and closing either side closes the other', async () => {
    const origin = await wsOrigin();
    const proxy = await proxyTo([origin.port]);
    const { head, socket, received } = await upgrade(proxy.port, '/raw', 'early bytes');
    assert.match(head, /^HTTP\/1\.1 101 /);
    assert.match(head, new RegExp(`sec-websocket-accept: ${accept('dGhlIHNhbXBsZSBub25jZQ==').replace(/[+/]/g, '\\$&')}`, 'i'));
    assert.match(head, /\r\nconnection: upgrade\r\n/i);
    assert.match(head, /x-origin: yes/);
    assert.equal((await received.atLeast(11)).toString(), 'early bytes');
    received.data = Buffer.alloc(0);
    const big = Buffer.alloc(4 * 1024 * 1024, 0x62);
    socket.write(big);
    assert.ok((await received.atLeast(big.length)).equals(big));
    socket.end();
    await origin.closed;

    const tunnel = await upgrade(proxy.port, '/raw');
    const clientClosed = once(tunnel.socket, 'close');
    for (const socket of origin.tunnels) socket.destroy();
    await clientClosed;
  });

  test('a tunnel idle both ways is closed', async () => {
    const origin = await wsOrigin();
    const proxy = await proxyTo([origin.port], 200);
    const tunnel = await upgrade(proxy.port, '/raw');
    const started = performance.now();
    tunnel.socket.write('still here');
    await tunnel.received.atLeast(10);
    await once(tunnel.socket, 'close');
    await origin.closed;
    assert.ok(performance.now() - started >= 150);
  });

  test('an origin refusing the upgrade has its answer relayed; no origin at all gives a 502', async () => {
    const origin = await wsOrigin();
    const proxy = await proxyTo([origin.port]);
    const refused = await upgrade(proxy.port, '/other');
    assert.match(refused.head, /^HTTP\/1\.1 403 /);
    assert.equal((await refused.received.atLeast(7)).toString(), 'no way\n');
    await once(refused.socket, 'close');

    const none = await proxyTo([await deadPort(), await deadPort()]);
    const failed = await upgrade(none.port, '/echo');
    assert.match(failed.head, /^HTTP\/1\.1 502 /);
    assert.deepEqual(none.results.map((r) => [r.outcome, r.status]), [['origin_error', 502]]);
  });
});
