// Origins through the real service: resources made through the API, requests through the proxy's
// listeners to origins on loopback: weights, backup takeover and give-back, ip_hash stickiness by
// the client's address, WebSocket upgrades (over HTTP and HTTPS, refused like any request by the
// resource's checks), large bodies streamed both ways, and loopback origins refused unless allowed.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { selfSignedCertificate } from '../support/certificates.ts';
import { adminAuth, ask, createResource } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';
import { startOrigin, type Origin } from '../security/proxy/origins-harness.ts';

describe('proxy origins (sqlite)', () => {
  let service: Service;
  let auth: string;
  const origins: Origin[] = [];

  before(async () => {
    service = await startService({ engine: 'sqlite', env: { EDGEPLANE_PROXY_ORIGIN_FAIL_TIMEOUT: '1' } });
    auth = await adminAuth(service);
  });
  after(async () => {
    await service.dispose();
    for (const origin of origins) await origin.stop().catch(() => undefined);
  });

  async function origin(name: string, handler?: Parameters<typeof startOrigin>[1]): Promise<Origin> {
    const started = await startOrigin(name, handler);
    origins.push(started);
    return started;
  }

  const data = (o: Origin) => `127.0.0.1:${String(o.port)}`;

  async function tally(host: string, count: number, localAddress?: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (let i = 0; i < count; i++) {
      const answer = await ask(service, host, '/', localAddress === undefined ? {} : { localAddress });
      assert.equal(answer.status, 200);
      counts[answer.body] = (counts[answer.body] ?? 0) + 1;
    }
    return counts;
  }

  test('weights share requests 3:1', async () => {
    const [a, b] = await Promise.all([origin('a'), origin('b')]);
    await createResource(service, auth, { name: 'weights.example', origins: [{ origin_data: data(a), origin_weight: 3 }, { origin_data: data(b), origin_weight: 1 }] });
    assert.deepEqual(await tally('weights.example', 40), { a: 30, b: 10 });
  });

  test('the backup takes over when the primary dies and gives back when it returns', async () => {
    const [primary, backup] = await Promise.all([origin('primary'), origin('backup')]);
    await createResource(service, auth, { name: 'backup.example', origins: [{ origin_data: data(primary) }, { origin_data: data(backup), origin_mode: 'backup' }] });
    assert.deepEqual(await tally('backup.example', 3), { primary: 3 });
    await primary.stop();
    assert.deepEqual(await tally('backup.example', 3), { backup: 3 }, 'the first request retried on the backup, the primary out');
    await primary.restart();
    await sleep(1100);
    assert.deepEqual(await tally('backup.example', 3), { primary: 3 }, 'probed after EDGEPLANE_PROXY_ORIGIN_FAIL_TIMEOUT and given back');
  });

  test('ip_hash keeps a client address (its /24) on one origin', async () => {
    const list = await Promise.all([origin('x'), origin('y'), origin('z')]);
    await createResource(service, auth, { name: 'sticky.example', service_iphash: 1, origins: list.map((o) => ({ origin_data: data(o) })) });
    const used = new Set<string>();
    for (let i = 1; i <= 12; i++) {
      const first = await tally('sticky.example', 2, `127.0.${String(i)}.1`);
      const neighbour = await tally('sticky.example', 1, `127.0.${String(i)}.2`);
      assert.equal(Object.keys(first).length, 1);
      assert.deepEqual(Object.keys(neighbour), Object.keys(first));
      used.add(Object.keys(first)[0]!);
    }
    assert.ok(used.size > 1, 'clients spread over the origins');
  });

  test('64 MiB up and down stream through the proxy', async () => {
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x63);
    const written = { up: 0, down: 0 };
    let received = 0;
    let upWhenOriginStarted = -1;
    const pump = async (stream: NodeJS.WritableStream, key: 'up' | 'down') => {
      while (written[key] < total) {
        written[key] += chunk.length;
        if (!stream.write(chunk)) await once(stream, 'drain');
      }
      stream.end();
    };
    const bulk = await origin('bulk', (req, res) => {
      req.on('data', (piece: Buffer) => {
        if (received === 0) upWhenOriginStarted = written.up;
        received += piece.length;
      });
      req.on('end', () => void pump(res, 'down'));
    });
    await createResource(service, auth, { name: 'bulk.example', origins: [{ origin_data: data(bulk) }] });
    const result = await new Promise<{ bytes: number; downWhenClientStarted: number }>((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port: service.proxyHttpPort, method: 'PUT', path: '/upload', headers: { host: 'bulk.example' }, agent: false }, (response) => {
        let bytes = 0;
        let downWhenClientStarted = -1;
        response.on('data', (piece: Buffer) => {
          if (bytes === 0) downWhenClientStarted = written.down;
          bytes += piece.length;
        });
        response.on('end', () => resolve({ bytes, downWhenClientStarted }));
        response.on('error', reject);
      });
      request.on('error', reject);
      void pump(request, 'up');
    });
    assert.equal(received, total);
    assert.equal(result.bytes, total);
    assert.ok(upWhenOriginStarted < total / 4 && result.downWhenClientStarted < total / 4, 'each side had bytes long before the other sent them all');
  });

  describe('WebSocket', () => {
    let echo: Origin;
    const certificate = selfSignedCertificate('ws.example');

    before(async () => {
      echo = await origin('echo');
      echo.server.on('upgrade', (req, socket: net.Socket, head: Buffer) => {
        echo.seen.push(req.headers);
        socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n');
        socket.on('error', () => undefined);
        if (head.length > 0) socket.write(head);
        socket.pipe(socket);
      });
      await createResource(service, auth, {
        name: 'ws.example',
        origins: [{ origin_data: data(echo) }],
        service_https2http: 1,
        ssl_type: 'custom',
        service_ssl_crt: certificate.crt,
        service_ssl_key: certificate.key,
      });
      await createResource(service, auth, { name: 'ws-banned.example', origins: [{ origin_data: data(echo) }], blacklists: [{ blacklist_data: '127.0.0.0/8' }] });
    });

    /** An upgrade on `socket`: the answer's head, then everything after it through `more`. */
    async function upgrade(socket: net.Socket, host: string): Promise<{ head: string; more: (bytes: number) => Promise<string> }> {
      let buffered = Buffer.alloc(0);
      let wake: (() => void) | undefined;
      socket.on('data', (piece: Buffer) => {
        buffered = Buffer.concat([buffered, piece]);
        wake?.();
      });
      const until = async (ready: () => boolean) => {
        while (!ready()) await new Promise<void>((resolve) => (wake = resolve));
      };
      socket.write(`GET /chat HTTP/1.1\r\nhost: ${host}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n`);
      await until(() => buffered.includes('\r\n\r\n'));
      const end = buffered.indexOf('\r\n\r\n');
      const head = buffered.subarray(0, end).toString();
      buffered = buffered.subarray(end + 4);
      return {
        head,
        more: async (bytes) => {
          await until(() => buffered.length >= bytes);
          const text = buffered.subarray(0, bytes).toString();
          buffered = buffered.subarray(bytes);
          return text;
        },
      };
    }

    test('an upgrade over HTTP and over HTTPS reaches the origin, bytes echo both ways', async () => {
      const plain = net.connect(service.proxyHttpPort, '127.0.0.1');
      await once(plain, 'connect');
      const overHttp = await upgrade(plain, 'ws.example');
      assert.match(overHttp.head, /^HTTP\/1\.1 101 /);
      plain.write('over http');
      assert.equal(await overHttp.more(9), 'over http');
      plain.destroy();

      const secure = tls.connect({ host: '127.0.0.1', port: service.proxyHttpsPort, servername: 'ws.example', ca: certificate.crt, ALPNProtocols: ['http/1.1'] });
      await once(secure, 'secureConnect');
      const overHttps = await upgrade(secure, 'ws.example');
      assert.match(overHttps.head, /^HTTP\/1\.1 101 /);
      secure.write('over https');
      assert.equal(await overHttps.more(10), 'over https');
      secure.destroy();
      const seen = echo.seen.at(-1)!;
      assert.equal(seen['x-forwarded-proto'], 'https');
      assert.equal(seen['upgrade'], 'websocket');
    });

    test('an upgrade goes through the resource\'s checks: a blacklisted client gets 403', async () => {
      const socket = net.connect(service.proxyHttpPort, '127.0.0.1');
      await once(socket, 'connect');
      const refused = await upgrade(socket, 'ws-banned.example');
      assert.match(refused.head, /^HTTP\/1\.1 403 /);
      await once(socket, 'close');
    });
  });

  test('a loopback origin is refused by a node that does not allow private origins', async () => {
    const inside = await origin('inside');
    await createResource(service, auth, { name: 'inside.example', origins: [{ origin_data: data(inside) }] });
    assert.equal((await ask(service, 'inside.example')).body, 'inside');
    const strict = await service.sibling({ EDGEPLANE_ROLES: 'proxy', EDGEPLANE_PROXY_ALLOW_PRIVATE_ORIGINS: '0' });
    try {
      const seen = inside.seen.length;
      const refused = await ask(strict, 'inside.example');
      assert.equal(refused.status, 502);
      assert.equal(inside.seen.length, seen, 'the origin was never contacted');
    } finally {
      await strict.dispose();
    }
  });
});
