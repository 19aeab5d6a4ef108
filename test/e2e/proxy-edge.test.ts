// The proxy's edge through the real service: the client a load balancer names by PROXY protocol is
// the client the proxy judges, forwards and logs; X-Forwarded-For only from trusted peers;
// connection caps across proxy threads; hostile clients (slowloris, huge headers, smuggling, bodies
// over the limit) refused without reaching the origin or harming others; per-resource metrics and
// the access log, and its off switch.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { engines } from '../support/engines.ts';
import { call } from '../support/http.ts';
import { adminAuth, ask, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { metricValue, raw } from '../support/proxy-edge.ts';
import { startService, type Service } from '../support/service.ts';

const status = (received: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
/** The origin's answer has come (the connection may be kept alive). */
const answered = (received: string) => received.includes('edge-origin');

interface AccessLine {
  msg: string;
  resource: number | null;
  host: string;
  path: string;
  status: number;
  outcome: string;
  client: string;
  duration_ms: number;
  origin_ms?: number;
}

function accessLines(service: Service): AccessLine[] {
  return service
    .output()
    .split('\n')
    .filter((line) => line.includes('"msg":"access"'))
    .map((line) => JSON.parse(line) as AccessLine);
}

async function waitFor<T>(find: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('not seen in time');
}

for (const engine of engines()) {
  describe(`proxy edge behind a load balancer (${engine})`, () => {
    let service: Service;
    let origin: Origin;
    let resourceId: number;

    before(async () => {
      [service, origin] = await Promise.all([
        startService({
          engine,
          env: {
            EDGEPLANE_PROXY_WORKERS: '2',
            EDGEPLANE_PROXY_HTTP_PROXY_PROTOCOL: '1',
            EDGEPLANE_PROXY_MAX_CONNECTIONS_PER_CLIENT: '2',
            EDGEPLANE_PROXY_HEADER_TIMEOUT: '500ms',
            EDGEPLANE_PROXY_MAX_HEADER_SIZE: '8k',
            EDGEPLANE_PROXY_MAX_BODY_SIZE: '1k',
          },
        }),
        startOrigin('edge-origin'),
      ]);
      resourceId = (await createResource(service, await adminAuth(service), { name: 'edge.example', origins: [{ origin_data: origin.address }] })).id;
    });
    after(() => Promise.all([service.dispose(), origin.close()]));

    const viaBalancer = (client: string, request: string) => `PROXY ${client.includes(':') ? 'TCP6' : 'TCP4'} ${client} ${client.includes(':') ? '2001:db8::1' : '198.51.100.1'} 40000 80\r\n${request}`;
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: edge.example\r\nConnection: close\r\n\r\n`;

    test('the client the PROXY header names is the one forwarded, counted and logged; the query never logged', async () => {
      const seen = origin.seen.length;
      const answer = await raw(service.proxyHttpPort, { pieces: [viaBalancer('192.0.2.44', get('/orders?token=secret-value'))], until: answered });
      assert.equal(status(answer.received), 200, answer.received);
      assert.equal(origin.seen.length, seen + 1);
      assert.equal(origin.seen.at(-1)?.headers['x-forwarded-for'], '192.0.2.44');
      const line = await waitFor(() => accessLines(service).find((l) => l.client === '192.0.2.44'));
      assert.deepEqual({ ...line, time: undefined }, { ...line, time: undefined, msg: 'access', resource: resourceId, host: 'edge.example', path: '/orders', status: 200, outcome: 'passed', client: '192.0.2.44' });
      assert.doesNotMatch(service.output(), /secret-value/);
      // Without the header, the connection is closed unanswered.
      const direct = await raw(service.proxyHttpPort, { pieces: [get('/')] });
      assert.deepEqual([direct.closed, direct.received], [true, '']);
    });

    test('countries of the clients PROXY headers name: geo refuses and passes them, a whitelisted one passes', async () => {
      const auth = await adminAuth(service);
      const { id } = await createResource(service, auth, {
        name: 'geo.example',
        origins: [{ origin_data: origin.address }],
        service_geoip_mode: 2,
        service_geoip_list: 'DE',
        whitelists: [{ whitelist_data: '8.8.4.4' }],
      });
      const from = async (client: string) => status((await raw(service.proxyHttpPort, { pieces: [viaBalancer(client, 'GET / HTTP/1.1\r\nHost: geo.example\r\nConnection: close\r\n\r\n')], until: (r) => r.includes('\r\n\r\n') })).received);
      // In the shipped country data: 85.214.132.117 and 2a01:4f8::1 are in DE, 8.8.8.8 and 8.8.4.4 in US.
      assert.deepEqual([await from('85.214.132.117'), await from('2a01:4f8::1'), await from('8.8.8.8'), await from('8.8.4.4')], [200, 200, 403, 200]);
      const refused = await waitFor(() => accessLines(service).find((l) => l.client === '8.8.8.8'));
      assert.deepEqual([refused.resource, refused.status, refused.outcome], [id, 403, 'geo']);
      const text = (await call(service.url, 'GET', '/metrics')).text;
      assert.equal(metricValue(text, `edgeplane_proxy_requests_total{resource="${String(id)}",outcome="geo"}`), 1);
    });

    test('an unknown host and the resource\'s requests are counted in /metrics by resource and outcome', async () => {
      const unknown = await raw(service.proxyHttpPort, { pieces: [viaBalancer('192.0.2.45', 'GET / HTTP/1.1\r\nHost: nobody.example\r\nConnection: close\r\n\r\n')] });
      assert.equal(status(unknown.received), 404);
      const text = (await call(service.url, 'GET', '/metrics')).text;
      assert.ok(metricValue(text, `edgeplane_proxy_requests_total{resource="${String(resourceId)}",outcome="passed"}`) >= 1);
      assert.equal(metricValue(text, 'edgeplane_proxy_requests_total{resource="none",outcome="unknown_host"}'), 1);
      assert.ok(metricValue(text, `edgeplane_proxy_origin_seconds_count{resource="${String(resourceId)}"}`) >= 1);
      assert.ok(metricValue(text, 'edgeplane_proxy_protocol_errors_total{listener="http",reason="invalid"}') >= 1);
      assert.doesNotMatch(text, /nobody\.example/);
    });

    test('the origin\'s latency is the time to its answer\'s headers, not to the end of a slow body', async (t) => {
      // Headers after 150 ms, then the body 400 ms later.
      const slow = await startOrigin('slow', (req, res) => {
        req.resume();
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.flushHeaders();
          setTimeout(() => res.end('slow'), 400);
        }, 150);
      });
      t.after(() => slow.close());
      await createResource(service, await adminAuth(service), { name: 'latency.edge.example', origins: [{ origin_data: slow.address }] });
      const answer = await raw(service.proxyHttpPort, { pieces: [viaBalancer('192.0.2.46', 'GET / HTTP/1.1\r\nHost: latency.edge.example\r\nConnection: close\r\n\r\n')] });
      assert.equal(status(answer.received), 200);
      const line = await waitFor(() => accessLines(service).find((l) => l.client === '192.0.2.46'));
      const originMs = line.origin_ms ?? -1;
      assert.ok(originMs >= 140 && originMs < 500, `origin_ms ${String(originMs)}`);
      assert.ok(line.duration_ms >= 540, `duration_ms ${String(line.duration_ms)}`);
    });

    test('per client, across the proxy threads: a third connection of one client (IPv6 /64) is reset, others are served', async () => {
      const hold = async (client: string) => {
        const socket = net.connect(service.proxyHttpPort, '127.0.0.1');
        socket.write(viaBalancer(client, 'GET / HTTP/1.1\r\nHost: edge.example\r\n\r\n'));
        await new Promise<void>((resolve, reject) => {
          socket.once('data', () => resolve());
          socket.once('close', () => reject(new Error('closed')));
        });
        return socket;
      };
      // Several connections, so that the kernel spreads them over both threads.
      const held = await Promise.all([hold('2001:db8:7:7::1'), hold('2001:db8:7:7::2')]);
      try {
        for (let i = 0; i < 4; i++) {
          const over = await raw(service.proxyHttpPort, { pieces: [viaBalancer(`2001:db8:7:7::${String(10 + i)}`, get('/'))] });
          assert.deepEqual([over.closed, over.received], [true, ''], `attempt ${String(i)}`);
        }
        const other = await raw(service.proxyHttpPort, { pieces: [viaBalancer('2001:db8:7:8::1', get('/'))], until: answered });
        assert.equal(status(other.received), 200);
      } finally {
        for (const socket of held) socket.destroy();
      }
      const text = (await call(service.url, 'GET', '/metrics')).text;
      assert.equal(metricValue(text, 'edgeplane_proxy_connections_refused_total{listener="http",reason="max_per_client"}'), 4);
    });

    test('hostile requests are refused without reaching the origin, and other clients are served meanwhile', async () => {
      const seen = origin.seen.length;
      // The header is trickled for longer than the header timeout (500 ms), a byte every 5 ms.
      let cutAt = 0;
      const slowloris = raw(service.proxyHttpPort, { pieces: viaBalancer('192.0.2.50', `GET / HTTP/1.1\r\nHost: edge.example\r\nX-Slow: ${'s'.repeat(200)}\r\n\r\n`).split(''), gapMs: 5, waitMs: 5000 }).then(
        (result) => ((cutAt = performance.now()), result),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      const prompt = await raw(service.proxyHttpPort, { pieces: [viaBalancer('192.0.2.54', get('/'))], until: answered });
      assert.equal(status(prompt.received), 200);
      assert.equal(cutAt, 0, 'a well-behaved client was answered while the slow one was still sending');
      const attempts = [
        'POST / HTTP/1.1\r\nHost: edge.example\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG',
        'POST / HTTP/1.1\r\nHost: edge.example\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde',
        'POST / HTTP/1.1\r\nHost: edge.example\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n',
        'GET / HTTP/1.1\r\nHost: edge.example\r\nX-Folded: a\r\n b\r\n\r\n',
        'GET / HTTP/1.1\r\nHost: edge.example\r\nHost: other.example\r\n\r\n',
      ];
      for (const attempt of attempts) {
        const result = await raw(service.proxyHttpPort, { pieces: [viaBalancer('192.0.2.51', attempt)], until: (r) => r.includes('\r\n\r\n') });
        assert.equal(status(result.received), 400, attempt);
      }
      const huge = await raw(service.proxyHttpPort, { pieces: [viaBalancer('192.0.2.52', `GET / HTTP/1.1\r\nHost: edge.example\r\nCookie: ${'c'.repeat(9000)}\r\n\r\n`)] });
      assert.equal(status(huge.received), 431);
      assert.equal(huge.closed, true);
      const tooLarge = await raw(service.proxyHttpPort, { pieces: [viaBalancer('192.0.2.53', 'POST / HTTP/1.1\r\nHost: edge.example\r\nContent-Length: 1025\r\n\r\nabc')] });
      assert.equal(status(tooLarge.received), 413);
      assert.equal(tooLarge.closed, true);
      // A chunked body declares no size: it is counted as it streams to the origin, and cut at the limit.
      const chunk = (n: number) => `${n.toString(16)}\r\n${'x'.repeat(n)}\r\n`;
      const streamed = await raw(service.proxyHttpPort, {
        pieces: [viaBalancer('192.0.2.55', `POST / HTTP/1.1\r\nHost: edge.example\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(600)}`), chunk(600), chunk(600), '0\r\n\r\n'],
        gapMs: 20,
      });
      assert.equal(status(streamed.received), 413);
      assert.equal(streamed.closed, true);
      const cut = await slowloris;
      assert.equal(status(cut.received), 408);
      assert.ok(cut.ms < 3000, `slowloris cut after ${String(cut.ms)} ms`);
      // The chunked upload began at the origin, and never completed there.
      const began = origin.seen.slice(seen);
      assert.equal(began.filter((req) => req.complete).length, 1, 'only the well-behaved request reached the origin whole');
      assert.ok(began.length <= 2);
      const outcomes = accessLines(service).filter((l) => ['192.0.2.51', '192.0.2.53', '192.0.2.55'].includes(l.client)).map((l) => l.outcome);
      assert.ok(outcomes.includes('body_too_large') && outcomes.includes('bad_request'), outcomes.join());
    });
  });

  describe(`proxy edge behind trusted proxies, access log off (${engine})`, () => {
    let service: Service;
    let origin: Origin;

    before(async () => {
      [service, origin] = await Promise.all([
        startService({ engine, env: { EDGEPLANE_PROXY_TRUSTED: '127.0.0.1', EDGEPLANE_PROXY_ACCESS_LOG: '0' } }),
        startOrigin('trusting-origin'),
      ]);
      await createResource(service, await adminAuth(service), { name: 'xff.example', origins: [{ origin_data: origin.address }] });
    });
    after(() => Promise.all([service.dispose(), origin.close()]));

    test('X-Forwarded-For from a trusted peer: the rightmost untrusted hop; from another peer: ignored', async () => {
      assert.equal((await ask(service, 'xff.example', '/', { headers: { 'x-forwarded-for': '1.1.1.1, 198.51.100.7' } })).status, 200);
      assert.equal(origin.seen.at(-1)?.headers['x-forwarded-for'], '198.51.100.7');
      assert.equal((await ask(service, 'xff.example', '/', { headers: { 'x-forwarded-for': '198.51.100.8' }, localAddress: '127.0.0.2' })).status, 200);
      assert.equal(origin.seen.at(-1)?.headers['x-forwarded-for'], '127.0.0.2');
    });

    test('EDGEPLANE_PROXY_ACCESS_LOG=0: no access log line', async () => {
      assert.equal((await ask(service, 'xff.example')).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(accessLines(service), []);
    });
  });
}
