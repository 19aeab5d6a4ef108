// HTTPS on either side of forward(): HTTP/2 clients (node:http2's compatibility API) forwarded to
// HTTP/1.1 origins, and the scheme towards the origin: the client's by default (HTTPS to port 443
// or the origin's port, the certificate not verified, SNI the origin's name or the site's),
// plain HTTP for everyone with service_https2http.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { selfSignedCertificate, type KeyPair } from '../../support/certificates.ts';
import { originSet, startOrigin, startProxy, type Origin, type Proxy } from './origins-harness.ts';

let site: KeyPair;
let originCertificate: KeyPair;
before(() => {
  site = selfSignedCertificate('site.example');
  originCertificate = selfSignedCertificate('origin.example');
});

const cleanup: Array<Origin | Proxy | http.Server> = [];
after(async () => {
  for (const item of cleanup) {
    if (item instanceof http.Server) item.closeAllConnections();
    await ('stop' in item ? item.stop().catch(() => undefined) : item.close());
  }
});

interface H2Reply {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
}

function h2Request(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: string): Promise<H2Reply> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':authority': 'site.example', ...headers });
    let received: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (received = h));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ status: Number(received[':status']), headers: received, body: Buffer.concat(chunks).toString() }));
    stream.on('error', reject);
    stream.end(body);
  });
}

describe('HTTP/2 clients', () => {
  test('are forwarded to an HTTP/1.1 origin, bodies both ways, no connection-specific header in the answer', async () => {
    const echo = await startOrigin('echo', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json', connection: 'keep-alive', 'keep-alive': 'timeout=5', 'set-cookie': ['a=1', 'b=2'] });
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString(), version: req.httpVersion }));
      });
    });
    const proxy = await startProxy(originSet([{ port: echo.port }], { service_https2http: 1 }), site);
    cleanup.push(echo, proxy);
    const session = http2.connect(proxy.url, { rejectUnauthorized: false, servername: 'site.example' });
    try {
      const posted = await h2Request(session, { ':method': 'POST', ':path': '/form?x=1', 'content-type': 'text/plain', cookie: 'c=1', 'x-test-client': '198.51.100.9' }, 'hello h2');
      assert.equal(posted.status, 201);
      assert.equal(posted.headers['connection'], undefined);
      assert.equal(posted.headers['keep-alive'], undefined);
      assert.deepEqual(posted.headers['set-cookie'], ['a=1', 'b=2']);
      const seen = JSON.parse(posted.body) as { method: string; url: string; headers: Record<string, string>; body: string; version: string };
      assert.deepEqual([seen.method, seen.url, seen.body, seen.version], ['POST', '/form?x=1', 'hello h2', '1.1']);
      assert.equal(seen.headers['host'], 'site.example');
      assert.equal(seen.headers['x-forwarded-proto'], 'https');
      assert.equal(seen.headers['x-forwarded-for'], '198.51.100.9');
      assert.equal(seen.headers['cookie'], 'c=1');
      for (const name of Object.keys(seen.headers)) assert.ok(!name.startsWith(':'), name);

      const got = await h2Request(session, { ':path': '/', cookie: ['a=1', 'b=2'] });
      assert.equal((JSON.parse(got.body) as { headers: Record<string, string> }).headers['cookie'], 'a=1; b=2', 'HTTP/2 cookie crumbs joined for HTTP/1.1');
    } finally {
      session.close();
    }
  });

  test('an HTTP/2 upload cut short aborts the origin request: the origin never takes it for whole', async () => {
    const seen = Promise.withResolvers<string>();
    const receiving = Promise.withResolvers<undefined>();
    const origin = await startOrigin('origin', (req) => {
      req.on('data', () => receiving.resolve(undefined));
      req.on('end', () => seen.resolve('end'));
      req.on('close', () => seen.resolve(req.complete ? 'complete' : 'aborted'));
    });
    const proxy = await startProxy(originSet([{ port: origin.port }], { service_https2http: 1 }), site);
    cleanup.push(origin, proxy);
    const session = http2.connect(proxy.url, { rejectUnauthorized: false, servername: 'site.example' });
    const stream = session.request({ ':authority': 'site.example', ':method': 'PUT', ':path': '/up' });
    stream.on('error', () => undefined);
    stream.write(Buffer.alloc(40 * 1024));
    await receiving.promise;
    // Not stream.close(): node's client ends the body (END_STREAM) before its RST_STREAM.
    session.destroy();
    assert.equal(await seen.promise, 'aborted');
  });
});

describe('the scheme towards the origin', () => {
  async function tlsOrigin(): Promise<{ port: number; servernames: Array<string | false> }> {
    const servernames: Array<string | false> = [];
    const server = https.createServer({ cert: originCertificate.crt, key: originCertificate.key }, (req, res) => {
      servernames.push(req.socket instanceof TLSSocket ? (req.socket.servername ?? false) : false);
      res.end('over tls');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(server);
    return { port: (server.address() as AddressInfo).port, servernames };
  }

  test('HTTPS clients reach the origin over HTTPS, unverified, with SNI the origin\'s name or else the site\'s', async () => {
    const origin = await tlsOrigin();
    for (const host of ['127.0.0.1', 'localhost']) {
      const proxy = await startProxy(originSet([{ host, port: origin.port }]), site);
      cleanup.push(proxy);
      const session = http2.connect(proxy.url, { rejectUnauthorized: false, servername: 'site.example' });
      try {
        const reply = await h2Request(session, { ':path': '/' });
        assert.deepEqual([reply.status, reply.body], [200, 'over tls']);
      } finally {
        session.close();
      }
    }
    assert.deepEqual(origin.servernames, ['site.example', 'localhost']);
  });

  test('a new connection to an HTTPS origin resumes the TLS session of the last one', async () => {
    const reused: boolean[] = [];
    const server = https.createServer({ cert: originCertificate.crt, key: originCertificate.key }, (req, res) => {
      reused.push(req.socket instanceof TLSSocket && req.socket.isSessionReused());
      // Each answer closes its connection: every request makes a new one.
      res.writeHead(200, { connection: 'close' });
      res.end('fresh');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(server);
    const proxy = await startProxy(originSet([{ host: 'localhost', port: (server.address() as AddressInfo).port }]), site);
    cleanup.push(proxy);
    const session = http2.connect(proxy.url, { rejectUnauthorized: false, servername: 'site.example' });
    try {
      for (let i = 0; i < 3; i++) {
        assert.deepEqual(await h2Request(session, { ':path': '/' }).then((r) => [r.status, r.body]), [200, 'fresh']);
        // The session ticket comes after the handshake: let it arrive before the next connection.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      session.close();
    }
    assert.deepEqual(reused, [false, true, true]);
  });

  test('with service_https2http, HTTPS clients reach the origin over plain HTTP', async () => {
    const plain = await startOrigin('plain');
    const tls = await tlsOrigin();
    const proxy = await startProxy(originSet([{ port: plain.port }], { service_https2http: 1 }), site);
    const strict = await startProxy(originSet([{ port: plain.port }]), site);
    cleanup.push(plain, proxy, strict);
    const session = http2.connect(proxy.url, { rejectUnauthorized: false, servername: 'site.example' });
    const other = http2.connect(strict.url, { rejectUnauthorized: false, servername: 'site.example' });
    try {
      assert.deepEqual(await h2Request(session, { ':path': '/' }).then((r) => [r.status, r.body]), [200, 'plain']);
      assert.equal((await h2Request(other, { ':path': '/' })).status, 502, 'TLS to a plain HTTP origin fails');
      assert.equal(tls.servernames.length, 0);
    } finally {
      session.close();
      other.close();
    }
  });
});
