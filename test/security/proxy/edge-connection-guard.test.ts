// Every connection passes the guard before the HTTP or TLS server sees it: the PROXY protocol
// header on a listener that requires it (the client it names reaches the request, over HTTP,
// HTTPS/1.1 and h2; anything else closes the connection), then the caps on connections in total
// and per client (IPv4 address, IPv6 /64), the client counted after the header.
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { selfSignedCertificate } from '../../support/certificates.ts';
import { metricValue, raw, startEdge, type Edge } from '../../support/proxy-edge.ts';

const get = 'GET / HTTP/1.1\r\nHost: site.example\r\nConnection: close\r\n\r\n';

/** The client the server saw, from a raw exchange's answer. */
function clientIn(received: string): string | undefined {
  const body = received.split('\r\n\r\n')[1];
  return body === undefined || body === '' ? undefined : (JSON.parse(body) as { client: string }).client;
}

function v2(command: 'proxy' | 'local', source?: { bytes: number[]; port: number }): Buffer {
  const signature = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');
  if (source === undefined) return Buffer.concat([signature, Buffer.from([command === 'proxy' ? 0x21 : 0x20, 0x00, 0x00, 0x00])]);
  const six = source.bytes.length === 16;
  const block = Buffer.alloc(six ? 36 : 12);
  Buffer.from(source.bytes).copy(block, 0);
  block.writeUInt16BE(source.port, six ? 32 : 8);
  block.writeUInt16BE(80, six ? 34 : 10);
  return Buffer.concat([signature, Buffer.from([command === 'proxy' ? 0x21 : 0x20, six ? 0x21 : 0x11, 0x00, block.length]), block]);
}

describe('PROXY protocol on the plain-HTTP listener', () => {
  let edge: Edge;
  before(async () => {
    edge = await startEdge({ proxyProtocol: true, limits: { headerTimeoutMs: 1000 } });
  });
  after(() => edge.close());

  test('v1 TCP4 and TCP6: the request\'s client is the one the header names, the request after it intact', async () => {
    const four = await raw(edge.port, { pieces: [`PROXY TCP4 192.0.2.10 198.51.100.1 51234 80\r\n${get}`] });
    assert.match(four.received, /^HTTP\/1.1 200/);
    assert.equal(clientIn(four.received), '192.0.2.10');
    const six = await raw(edge.port, { pieces: [`PROXY TCP6 2001:db8::5 2001:db8::1 51234 80\r\n${get}`] });
    assert.equal(clientIn(six.received), '2001:db8::5');
  });

  test('a header arriving a byte at a time, and the request in a later segment, are read alike', async () => {
    const header = 'PROXY TCP4 192.0.2.11 198.51.100.1 51234 80\r\n';
    const result = await raw(edge.port, { pieces: [...header.split(''), get], gapMs: 2 });
    assert.equal(clientIn(result.received), '192.0.2.11');
  });

  test('v2 PROXY over IPv4 and IPv6; LOCAL and UNKNOWN leave the connection\'s own peer', async () => {
    const four = await raw(edge.port, { pieces: [Buffer.concat([v2('proxy', { bytes: [203, 0, 113, 7], port: 4000 }), Buffer.from(get)])] });
    assert.equal(clientIn(four.received), '203.0.113.7');
    const sixBytes = [0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 9];
    const six = await raw(edge.port, { pieces: [Buffer.concat([v2('proxy', { bytes: sixBytes, port: 4000 }), Buffer.from(get)])] });
    assert.equal(clientIn(six.received), '2001:db8:1:2::9');
    const local = await raw(edge.port, { pieces: [Buffer.concat([v2('local'), Buffer.from(get)])], localAddress: '127.0.0.7' });
    assert.equal(clientIn(local.received), '127.0.0.7');
    const unknown = await raw(edge.port, { pieces: [`PROXY UNKNOWN\r\n${get}`], localAddress: '127.0.0.8' });
    assert.equal(clientIn(unknown.received), '127.0.0.8');
  });

  test('malformed, missing or truncated: closed without an answer, nothing served', async () => {
    const before = await edge.metrics();
    const malformed = await raw(edge.port, { pieces: [`PROXY TCP4 192.0.2.300 198.51.100.1 1 2\r\n${get}`] });
    const missing = await raw(edge.port, { pieces: [get] });
    const v2Garbage = await raw(edge.port, { pieces: [Buffer.concat([Buffer.from('0d0a0d0a000d0a515549540a', 'hex'), Buffer.from([0x31, 0x11, 0, 12]), Buffer.alloc(12), Buffer.from(get)])] });
    for (const [what, result] of Object.entries({ malformed, missing, v2Garbage })) {
      assert.equal(result.closed, true, what);
      assert.equal(result.received, '', what);
      assert.ok(result.ms < 500, `${what}: closed at once, not at the timeout (${String(result.ms)} ms)`);
    }
    const after = await edge.metrics();
    const invalid = 'edgeplane_proxy_protocol_errors_total{listener="http",reason="invalid"}';
    assert.equal(metricValue(after, invalid) - metricValue(before, invalid), 3);
    // A client that sends part of a header and goes away: nothing to serve, nothing broken.
    const truncated = await raw(edge.port, { pieces: ['PROXY TCP4 192.0.2.10 198.5'], waitMs: 50 });
    assert.equal(truncated.received, '');
    assert.equal(clientIn((await raw(edge.port, { pieces: [`PROXY TCP4 192.0.2.12 198.51.100.1 1 2\r\n${get}`] })).received), '192.0.2.12');
  });

  test('a header not complete within the header timeout: closed at the timeout', async () => {
    const before = await edge.metrics();
    const [silent, trickled] = await Promise.all([
      raw(edge.port, { waitMs: 4000 }),
      raw(edge.port, { pieces: 'PROXY TCP4 192.0.2.10 198.51.100.1 1 2\r\n'.split(''), gapMs: 40, waitMs: 4000 }),
    ]);
    for (const [what, result] of Object.entries({ silent, trickled })) {
      assert.equal(result.closed, true, what);
      assert.ok(result.ms >= 980 && result.ms < 3000, `${what}: closed after ${String(result.ms)} ms`);
    }
    const timeouts = 'edgeplane_proxy_protocol_errors_total{listener="http",reason="timeout"}';
    assert.equal(metricValue(await edge.metrics(), timeouts) - metricValue(before, timeouts), 2);
  });
});

describe('PROXY protocol on the HTTPS listener: the header, then the TLS handshake', () => {
  const certificate = selfSignedCertificate('site.example');
  let edge: Edge;
  before(async () => {
    edge = await startEdge({ proxyProtocol: true, tls: { key: certificate.key, cert: certificate.crt } });
  });
  after(() => edge.close());

  /** A TLS connection that first sends `header`, in the same segment as its ClientHello or (`apart`) on its own before it. */
  async function connect(header: string, alpn: string, apart = false): Promise<tls.TLSSocket> {
    const socket = net.connect(edge.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    if (apart) {
      socket.write(header);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } else {
      socket.cork();
      socket.write(header);
      process.nextTick(() => socket.uncork());
    }
    const secure = tls.connect({ socket, servername: 'site.example', ca: certificate.crt, ALPNProtocols: [alpn] });
    await new Promise((resolve, reject) => {
      secure.once('secureConnect', resolve);
      secure.once('error', reject);
    });
    return secure;
  }

  for (const apart of [false, true]) {
    test(`HTTP/1.1 over TLS, the header ${apart ? 'on its own before' : 'with'} the ClientHello`, async () => {
      const secure = await connect('PROXY TCP4 192.0.2.20 198.51.100.1 1 443\r\n', 'http/1.1', apart);
      const body = await new Promise<string>((resolve, reject) => {
        const request = http.request({ createConnection: () => secure, path: '/', headers: { host: 'site.example' } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        });
        request.on('error', reject);
        request.end();
      });
      assert.equal((JSON.parse(body) as { client: string }).client, '192.0.2.20');
      secure.destroy();
    });
  }

  test('h2', async () => {
    const secure = await connect('PROXY TCP6 2001:db8::20 2001:db8::1 1 443\r\n', 'h2');
    const session = http2.connect('https://site.example', { createConnection: () => secure });
    const stream = session.request({ ':path': '/' });
    let text = '';
    stream.on('data', (c: Buffer) => (text += c.toString()));
    await new Promise((resolve) => stream.on('end', resolve));
    assert.equal((JSON.parse(text) as { client: string }).client, '2001:db8::20');
    session.close();
  });
});

describe('connection caps', () => {
  test('per client: connections over the cap are reset at once, other clients served meanwhile', async () => {
    const edge = await startEdge({ maxPerClient: 2 });
    try {
      const held = await Promise.all([holdOpen(edge.port, '127.0.0.2'), holdOpen(edge.port, '127.0.0.2')]);
      const over = await raw(edge.port, { pieces: [get], localAddress: '127.0.0.2' });
      assert.equal(over.closed, true);
      assert.equal(over.received, '');
      const other = await raw(edge.port, { pieces: [get], localAddress: '127.0.0.3' });
      assert.equal(clientIn(other.received), '127.0.0.3');
      for (const socket of held) socket.destroy();
      await waitFor(() => edge.guard.connections === 0);
      assert.equal(clientIn((await raw(edge.port, { pieces: [get], localAddress: '127.0.0.2' })).received), '127.0.0.2', 'places given back on close');
      assert.equal(metricValue(await edge.metrics(), 'edgeplane_proxy_connections_refused_total{listener="http",reason="max_per_client"}'), 1);
    } finally {
      await edge.close();
    }
  });

  test('an upgraded connection (WebSocket) gives its place back when it closes', async () => {
    // The edge's upgrade handler closes the socket it is handed: the place must come back all the same.
    const edge = await startEdge({ maxPerClient: 1 });
    try {
      const upgrade = 'GET / HTTP/1.1\r\nHost: site.example\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n';
      for (let i = 0; i < 3; i++) assert.equal((await raw(edge.port, { pieces: [upgrade], localAddress: '127.0.0.6' })).closed, true);
      await waitFor(() => edge.guard.connections === 0);
      assert.equal(clientIn((await raw(edge.port, { pieces: [get], localAddress: '127.0.0.6' })).received), '127.0.0.6', 'served: the upgrades gave their places back');
    } finally {
      await edge.close();
    }
  });

  test('behind a load balancer: its clients are capped, each IPv6 client by /64, not the balancer\'s own address', async () => {
    const edge = await startEdge({ proxyProtocol: true, maxPerClient: 2 });
    try {
      // Five connections from one balancer (127.0.0.1), for clients in three /64s.
      const header = (client: string) => `PROXY TCP6 ${client} 2001:db8::1 1 80\r\n`;
      const held = await Promise.all([
        holdOpen(edge.port, '127.0.0.1', header('2001:db8:1:2::1')),
        holdOpen(edge.port, '127.0.0.1', header('2001:db8:1:2::ffff')),
        holdOpen(edge.port, '127.0.0.1', header('2001:db8:1:3::1')),
      ]);
      const sameSlash64 = await raw(edge.port, { pieces: [header('2001:db8:1:2:abcd::9') + get] });
      assert.equal(sameSlash64.closed, true);
      assert.equal(sameSlash64.received, '', 'a third connection from 2001:db8:1:2::/64');
      assert.equal(clientIn((await raw(edge.port, { pieces: [header('2001:db8:1:3::2') + get] })).received), '2001:db8:1:3::2');
      assert.equal(clientIn((await raw(edge.port, { pieces: [header('2001:db8:1:4::1') + get] })).received), '2001:db8:1:4::1');
      for (const socket of held) socket.destroy();
    } finally {
      await edge.close();
    }
  });

  test('in total: over the cap, reset; a place comes back when a connection closes', async () => {
    const edge = await startEdge({ maxClients: 2 });
    try {
      const [first, second] = await Promise.all([holdOpen(edge.port, '127.0.0.4'), holdOpen(edge.port, '127.0.0.5')]);
      const over = await raw(edge.port, { pieces: [get], localAddress: '127.0.0.6' });
      assert.equal(over.closed, true);
      assert.equal(over.received, '');
      first.destroy();
      await waitFor(() => edge.guard.connections === 1);
      assert.equal(clientIn((await raw(edge.port, { pieces: [get], localAddress: '127.0.0.6' })).received), '127.0.0.6');
      second.destroy();
      assert.equal(metricValue(await edge.metrics(), 'edgeplane_proxy_connections_refused_total{listener="http",reason="max_clients"}'), 1);
    } finally {
      await edge.close();
    }
  });
});

/** A connection the edge has admitted (answered one keep-alive request), left open. */
async function holdOpen(port: number, localAddress: string, header = ''): Promise<net.Socket> {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  socket.write(`${header}GET / HTTP/1.1\r\nHost: site.example\r\n\r\n`);
  await new Promise<void>((resolve, reject) => {
    socket.once('data', () => resolve());
    socket.once('close', () => reject(new Error(`held connection from ${localAddress} closed`)));
  });
  return socket;
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(condition());
}
