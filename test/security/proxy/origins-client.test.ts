// The proxy's own HTTP/1.1 client towards origins (origin-connection.ts, origin-pools.ts), against
// raw origins (net servers writing answers byte for byte): how answers are framed (chunked, until
// close, no body for HEAD / 204 / 304, 1xx skipped), answers refused with 502 and their connection
// dropped, keep-alive reuse, an origin's idle close racing a request, the bound on waiting requests,
// and request bodies sent with their length or chunked.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { originSet, send, startOrigin, startProxy, type Origin, type Proxy } from './origins-harness.ts';

interface RawRequest {
  head: string;
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  body: Buffer;
  /** Which connection of the origin it came on (0, 1, ...). */
  connection: number;
}

interface RawOrigin {
  port: number;
  requests: RawRequest[];
  sockets: net.Socket[];
  /** Sockets the origin saw closed (by the proxy or itself). */
  closed: Set<net.Socket>;
  stop(): Promise<void>;
}

type Answerer = (socket: net.Socket, request: RawRequest) => void;

/** An origin reading requests (bodies by Content-Length or chunked, naively) and answering each as `answer` writes. */
async function rawOrigin(answer: Answerer): Promise<RawOrigin> {
  const requests: RawRequest[] = [];
  const sockets: net.Socket[] = [];
  const closed = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const connection = sockets.length;
    sockets.push(socket);
    socket.on('close', () => closed.add(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = pending.subarray(0, end).toString('latin1');
        const [line = '', ...lines] = head.split('\r\n');
        const headers: Record<string, string | undefined> = {};
        for (const l of lines) {
          const colon = l.indexOf(':');
          headers[l.slice(0, colon).toLowerCase()] = l.slice(colon + 1).trim();
        }
        let rest = pending.subarray(end + 4);
        let body = Buffer.alloc(0);
        if (headers['content-length'] !== undefined) {
          const length = Number(headers['content-length']);
          if (rest.length < length) return;
          body = rest.subarray(0, length);
          rest = rest.subarray(length);
        } else if (headers['transfer-encoding'] === 'chunked') {
          const pieces: Buffer[] = [];
          let at = 0;
          for (;;) {
            const lineEnd = rest.indexOf('\r\n', at);
            if (lineEnd === -1) return;
            const size = parseInt(rest.subarray(at, lineEnd).toString(), 16);
            if (rest.length < lineEnd + 2 + size + 2) return;
            if (size === 0) {
              at = lineEnd + 4;
              break;
            }
            pieces.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
            at = lineEnd + 2 + size + 2;
          }
          body = Buffer.concat(pieces);
          rest = rest.subarray(at);
        }
        pending = rest;
        const [method = '', url = ''] = line.split(' ');
        const request = { head, method, url, headers, body, connection };
        requests.push(request);
        answer(socket, request);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin: RawOrigin = {
    port: (server.address() as net.AddressInfo).port,
    requests,
    sockets,
    closed,
    async stop() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
  cleanup.push(origin);
  return origin;
}

const cleanup: Array<RawOrigin | Origin | Proxy> = [];
after(async () => {
  for (const item of cleanup) await ('stop' in item ? item.stop().catch(() => undefined) : item.close());
});

async function proxyTo(port: number, options: Parameters<typeof originSet>[2] = {}): Promise<Proxy> {
  const proxy = await startProxy(originSet([{ port }], {}, options));
  cleanup.push(proxy);
  return proxy;
}

/** Waits until `check` holds (at most a second). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await sleep(10);
}

describe('answers as origins frame them', () => {
  test('a chunked answer is decoded for the client, and its connection serves the next request', async () => {
    const origin = await rawOrigin((socket) => socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nx-kind: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\ntrailer: dropped\r\n\r\n'));
    const proxy = await proxyTo(origin.port);
    for (let i = 0; i < 3; i++) {
      const reply = await send(proxy.url);
      assert.deepEqual([reply.status, reply.body, reply.headers['x-kind'], reply.headers['trailer']], [200, 'hello, world', 'chunked', undefined]);
    }
    assert.equal(origin.sockets.length, 1);
  });

  test('a chunked answer arriving in pieces, split anywhere', async () => {
    const answer = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n';
    const origin = await rawOrigin((socket) => {
      void (async () => {
        for (const byte of answer) {
          socket.write(byte);
          await sleep(1);
        }
      })();
    });
    const proxy = await proxyTo(origin.port);
    assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, 'abc0123456789abcdef']);
    assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, 'abc0123456789abcdef']);
    assert.equal(origin.sockets.length, 1);
  });

  test('an answer without Content-Length or chunked runs until the origin closes; that connection is not kept', async () => {
    const origin = await rawOrigin((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil ');
      setTimeout(() => socket.end('close'), 20);
    });
    const proxy = await proxyTo(origin.port);
    assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, 'until close']);
    assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, 'until close']);
    assert.equal(origin.sockets.length, 2);
    assert.deepEqual(proxy.results.map((r) => r.outcome), ['passed', 'passed']);
  });

  test('another Transfer-Encoding than chunked last also runs until close', async () => {
    const origin = await rawOrigin((socket) => socket.end('HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\nraw bytes'));
    const proxy = await proxyTo(origin.port);
    assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, 'raw bytes']);
  });

  test('HEAD, 204 and 304 answers have no body whatever their headers say; the connection goes on', async () => {
    const origin = await rawOrigin((socket, request) => {
      if (request.method === 'HEAD') socket.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-what: head\r\n\r\n');
      else if (request.url === '/204') socket.write('HTTP/1.1 204 No Content\r\nx-what: 204\r\n\r\n');
      else if (request.url === '/304') socket.write('HTTP/1.1 304 Not Modified\r\netag: "x"\r\ncontent-length: 9\r\n\r\n');
      else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nbody');
    });
    const proxy = await proxyTo(origin.port);
    const head = await send(proxy.url, { method: 'HEAD' });
    assert.deepEqual([head.status, head.body, head.headers['content-length'], head.headers['x-what']], [200, '', '5', 'head']);
    const empty = await send(`${proxy.url}/204`);
    assert.deepEqual([empty.status, empty.body, empty.headers['x-what']], [204, '', '204']);
    const notModified = await send(`${proxy.url}/304`);
    assert.deepEqual([notModified.status, notModified.body, notModified.headers['etag']], [304, '', '"x"']);
    assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, 'body']);
    assert.equal(origin.sockets.length, 1, 'no body was waited for: one connection served all four');
  });

  test('a 103 Early Hints and a 100 Continue before the final answer are skipped', async () => {
    const origin = await rawOrigin((socket) => {
      socket.write('HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n');
      setTimeout(() => socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 5\r\nx-final: yes\r\n\r\nfinal'), 10);
    });
    const proxy = await proxyTo(origin.port);
    const reply = await send(proxy.url);
    assert.deepEqual([reply.status, reply.body, reply.headers['x-final'], reply.headers['link']], [201, 'final', 'yes', undefined]);
    assert.deepEqual(proxy.results.map((r) => [r.outcome, r.status]), [['passed', 201]]);
  });

  test('a duplicated Content-Length of one value is relayed once', async () => {
    const origin = await rawOrigin((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nContent-Length: 2\r\n\r\nok'));
    const proxy = await proxyTo(origin.port);
    const reply = await send(proxy.url);
    assert.deepEqual([reply.status, reply.body, reply.headers['content-length']], [200, 'ok', '2']);
  });
});

describe('answers refused: 502, and their connection never used again', () => {
  const refused: Array<[string, string]> = [
    ['conflicting Content-Lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nok!'],
    ['a Content-Length list', 'HTTP/1.1 200 OK\r\ncontent-length: 2, 2\r\n\r\nok'],
    ['a signed Content-Length', 'HTTP/1.1 200 OK\r\ncontent-length: +2\r\n\r\nok'],
    ['Content-Length with Transfer-Encoding', 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'],
    ['a malformed chunk', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n'],
    ['chunk data longer than its size', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nokay\r\n0\r\n\r\n'],
    ['obs-fold', 'HTTP/1.1 200 OK\r\nx-a: 1\r\n  folded\r\ncontent-length: 2\r\n\r\nok'],
    ['a bare LF inside the head', 'HTTP/1.1 200 OK\r\nx-a: 1\ncontent-length: 2\r\n\r\nok'],
    ['a head ended by bare LFs', 'HTTP/1.1 200 OK\ncontent-length: 2\n\nok'],
    ['whitespace before a colon', 'HTTP/1.1 200 OK\r\ncontent-length : 2\r\n\r\nok'],
    ['a NUL in a value', 'HTTP/1.1 200 OK\r\nx-a: a\0b\r\ncontent-length: 2\r\n\r\nok'],
    ['a malformed status line', 'HTTP/1.1 2000 OK\r\ncontent-length: 2\r\n\r\nok'],
    ['another protocol', 'HTTP/2.0 200 OK\r\ncontent-length: 2\r\n\r\nok'],
    ['a 101 nobody asked for', 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n'],
  ];
  for (const [what, answer] of refused) {
    test(what, async () => {
      const origin = await rawOrigin((socket, request) => socket.write(request.url === '/good' ? 'HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\ngood' : answer));
      const proxy = await proxyTo(origin.port);
      const reply = await send(proxy.url);
      assert.equal(reply.status, 502);
      assert.match(reply.body, /Bad Gateway/);
      assert.deepEqual(proxy.results.map((r) => [r.outcome, r.status]), [['origin_error', 502]]);
      await until(() => origin.closed.has(origin.sockets[0]!));
      assert.ok(origin.closed.has(origin.sockets[0]!), 'the proxy closed the connection');
      assert.deepEqual(await send(`${proxy.url}/good`).then((r) => [r.status, r.body]), [200, 'good']);
      assert.equal(origin.requests.at(-1)?.connection, 1, 'on a new connection');
    });
  }

  test('a head larger than 64 KiB', async () => {
    const origin = await rawOrigin((socket) => socket.write(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(70 * 1024)}\r\ncontent-length: 2\r\n\r\nok`));
    const proxy = await proxyTo(origin.port);
    assert.equal((await send(proxy.url)).status, 502);
  });

  test('bytes past a whole answer: the answer is relayed, the connection dropped', async () => {
    const origin = await rawOrigin((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\nsmuggled'));
    const proxy = await proxyTo(origin.port);
    assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, 'ok']);
    assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, 'ok']);
    assert.equal(origin.sockets.length, 2);
  });
});

describe('keep-alive', () => {
  test('sequential requests share one origin connection', async () => {
    const origin = await startOrigin('kept');
    cleanup.push(origin);
    let connections = 0;
    origin.server.on('connection', () => connections++);
    const proxy = await proxyTo(origin.port);
    for (let i = 0; i < 20; i++) assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, 'kept']);
    assert.equal(connections, 1);
  });

  test('Connection: close, an HTTP/1.0 answer and a Keep-Alive timeout under 2 s are not kept', async () => {
    const origin = await rawOrigin((socket, request) => {
      if (request.url === '/close') socket.write('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\na');
      else if (request.url === '/old') socket.write('HTTP/1.0 200 OK\r\ncontent-length: 1\r\n\r\nb');
      else socket.write('HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 1\r\n\r\nc');
    });
    const proxy = await proxyTo(origin.port);
    for (const path of ['/close', '/old', '/hint']) assert.equal((await send(`${proxy.url}${path}`)).status, 200);
    assert.equal((await send(`${proxy.url}/close`)).status, 200);
    assert.equal(origin.sockets.length, 4);
  });

  test('an idle connection is closed after the keep-alive time', async () => {
    const origin = await rawOrigin((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    const proxy = await proxyTo(origin.port, { keepAliveTimeoutMs: 100 });
    assert.equal((await send(proxy.url)).status, 200);
    await sleep(400);
    assert.ok(origin.closed.has(origin.sockets[0]!));
  });

  test('the origin closing a kept-alive connection as a request goes out: the request is sent again on a fresh connection', async () => {
    // The origin answers the first request of each connection and drops it on the second, as an
    // origin's idle timeout racing the proxy's next request would.
    const origin = await rawOrigin((socket, request) => {
      const onConnection = origin.requests.filter((r) => r.connection === request.connection).length;
      if (onConnection === 1) socket.write(`HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n${String(request.connection)}`);
      else socket.destroy();
    });
    const proxy = await proxyTo(origin.port);
    assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, '0']);
    assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, '1'], 'GET: sent again on a fresh connection');
    assert.deepEqual(await send(proxy.url, { method: 'DELETE' }).then((r) => [r.status, r.body]), [200, '2'], 'DELETE too (idempotent)');
    const post = await send(proxy.url, { method: 'POST' });
    assert.equal(post.status, 502, 'a POST is not sent twice');
    assert.deepEqual(proxy.results.map((r) => r.outcome), ['passed', 'passed', 'passed', 'origin_error']);
  });

  test('the origin ending (FIN) its side of an idle connection: the next request takes a fresh one', async () => {
    const origin = await rawOrigin((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    const proxy = await proxyTo(origin.port);
    for (let i = 0; i < 3; i++) assert.deepEqual(await send(proxy.url).then((r) => [r.status, r.body]), [200, 'ok']);
    assert.equal(origin.sockets.length, 3);
  });
});

describe('timeouts', () => {
  test('an answer pausing longer than the body timeout cuts the client off', async () => {
    const origin = await rawOrigin((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhalf '));
    const proxy = await proxyTo(origin.port, { bodyTimeoutMs: 150 });
    const outcome = await new Promise<string>((resolve) => {
      const request = http.get(proxy.url, { headers: { host: 'site.example' }, agent: false }, (response) => {
        response.on('data', () => undefined);
        response.on('end', () => resolve('end'));
        response.on('error', () => resolve('cut'));
        response.on('aborted', () => resolve('cut'));
      });
      request.on('error', () => resolve('cut'));
    });
    assert.equal(outcome, 'cut');
    await until(() => proxy.results.length === 1);
    assert.deepEqual(proxy.results.map((r) => [r.outcome, r.status]), [['origin_error', 200]]);
  });

  test('time the client takes to read does not count against the origin', async () => {
    const big = Buffer.alloc(16 * 1024 * 1024, 0x61);
    const origin = await rawOrigin((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${String(big.length)}\r\n\r\n`);
      socket.write(big);
    });
    const proxy = await proxyTo(origin.port, { bodyTimeoutMs: 150 });
    const response = await new Promise<http.IncomingMessage>((resolve) => http.get(proxy.url, { headers: { host: 'site.example' }, agent: false }, resolve));
    response.pause();
    await sleep(600);
    let bytes = 0;
    response.on('data', (chunk: Buffer) => (bytes += chunk.length)).resume();
    await once(response, 'end');
    assert.equal(bytes, big.length);
    assert.deepEqual(proxy.results.map((r) => r.outcome), ['passed']);
  });
});

describe('upgrades', () => {
  test('bytes the origin sends right behind its 101 reach the client', async () => {
    const origin = await rawOrigin((socket, request) => {
      assert.equal(request.headers['connection'], 'upgrade');
      assert.equal(request.headers['upgrade'], 'websocket');
      socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\nfirst bytes');
      socket.removeAllListeners('data');
      socket.pipe(socket);
    });
    const proxy = await proxyTo(origin.port);
    const client = net.connect(proxy.port, '127.0.0.1');
    await once(client, 'connect');
    client.write('GET /ws HTTP/1.1\r\nhost: site.example\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n');
    let received = '';
    client.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    await until(() => received.endsWith('first bytes'));
    assert.match(received, /^HTTP\/1\.1 101 [^]*\r\n\r\nfirst bytes$/);
    client.write('echo');
    await until(() => received.endsWith('echo'));
    assert.ok(received.endsWith('first bytesecho'));
    client.destroy();
  });
});

describe('connections per origin', () => {
  test('requests beyond the connections wait for one, up to the bound; beyond it, 503 at once', async () => {
    const held: net.Socket[] = [];
    const origin = await rawOrigin((socket) => held.push(socket));
    const proxy = await proxyTo(origin.port, { connections: 1, maxWaiting: 1 });
    const first = send(proxy.url);
    const second = send(proxy.url);
    await until(() => held.length === 1);
    const started = performance.now();
    const third = await send(proxy.url);
    assert.equal(third.status, 503);
    assert.match(third.body, /busy/);
    assert.ok(performance.now() - started < 500);
    assert.equal(origin.sockets.length, 1);
    held[0]!.write('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n1');
    await until(() => held.length === 2);
    held[1]!.write('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n2');
    assert.deepEqual(await Promise.all([first, second]).then((r) => r.map((x) => x.body)), ['1', '2']);
    assert.equal(origin.sockets.length, 1, 'the waiting request took the freed connection');
    assert.deepEqual(proxy.results.map((r) => [r.outcome, r.status]).sort(), [['origin_error', 503], ['passed', 200], ['passed', 200]]);
  });

  test('a waiting request whose client leaves leaves the queue', async () => {
    const held: net.Socket[] = [];
    const origin = await rawOrigin((socket) => held.push(socket));
    const proxy = await proxyTo(origin.port, { connections: 1, maxWaiting: 1 });
    const first = send(proxy.url);
    await until(() => held.length === 1);
    const leaving = http.request(proxy.url, { headers: { host: 'site.example' }, agent: false });
    leaving.on('error', () => undefined);
    leaving.end();
    await sleep(50);
    leaving.destroy();
    await until(() => proxy.results.length === 1);
    const waiting = send(proxy.url);
    await sleep(50);
    held[0]!.write('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n1');
    await until(() => held.length === 2);
    held[1]!.write('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n2');
    assert.deepEqual([(await first).body, (await waiting).body], ['1', '2']);
  });
});

describe('request bodies', () => {
  test('a body with Content-Length goes with it; a chunked one goes chunked; a bodiless POST says content-length: 0', async () => {
    const origin = await rawOrigin((socket, request) => socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${String(request.body.length)}\r\n\r\n${request.body.toString()}`));
    const proxy = await proxyTo(origin.port);
    assert.deepEqual(await send(proxy.url, { method: 'PUT', body: 'declared' }).then((r) => r.body), 'declared');
    assert.equal(origin.requests[0]!.headers['content-length'], '8');
    assert.equal(origin.requests[0]!.headers['transfer-encoding'], undefined);

    const chunked = await new Promise<string>((resolve, reject) => {
      const request = http.request(proxy.url, { method: 'POST', headers: { host: 'site.example' }, agent: false }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve(body));
      });
      request.on('error', reject);
      request.write('one, ');
      setTimeout(() => request.end('two'), 20);
    });
    assert.equal(chunked, 'one, two');
    assert.equal(origin.requests[1]!.headers['transfer-encoding'], 'chunked');
    assert.equal(origin.requests[1]!.headers['content-length'], undefined);

    assert.equal((await send(proxy.url, { method: 'POST' })).status, 200);
    assert.equal(origin.requests[2]!.headers['content-length'], '0');
    assert.equal((await send(proxy.url)).status, 200);
    assert.equal(origin.requests[3]!.headers['content-length'], undefined, 'a GET without a body says nothing of one');
    assert.equal(origin.sockets.length, 1);
    assert.match(origin.requests[3]!.head, /^GET \/ HTTP\/1\.1\r\nhost: site\.example\r\n/);
  });

  test('an origin answering before the body is whole: the answer is relayed, the connection not kept', async () => {
    // The origin answers as soon as a head arrives, never reading the body.
    const server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => socket.write('HTTP/1.1 413 Payload Too Large\r\ncontent-length: 3\r\n\r\nno\n'));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push({ stop: async () => void server.close() } as RawOrigin);
    const proxy = await proxyTo((server.address() as net.AddressInfo).port);
    const reply = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request(proxy.url, { method: 'POST', headers: { host: 'site.example', 'content-length': String(1024 * 1024) }, agent: false }, resolve);
      request.on('error', reject);
      request.write(Buffer.alloc(1024));
    });
    reply.resume();
    assert.equal(reply.statusCode, 413);
    await until(() => proxy.results.length === 1);
    assert.deepEqual(proxy.results.map((r) => [r.outcome, r.status]), [['passed', 413]]);
  });
});
