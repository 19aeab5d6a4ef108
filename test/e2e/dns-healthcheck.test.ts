// Health checks (meta.failover) and the healthcheck picker, end to end: real TCP, HTTP and UDP
// services on loopback addresses (and ping), the API setting the checks, the DNS server dropping the
// records whose checks fail, on both DNS threads, and taking them back when they recover.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { addressesIn, ask } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const listen = (server: net.Server | http.Server, host: string) =>
  new Promise<number>((resolve) => server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port)));
const close = (server: net.Server | http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

const hasPing = (() => {
  try {
    execFileSync('ping', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The addresses answered for `name`, as a sorted list (several queries, from fresh source ports). */
async function answers(service: Service, name: string): Promise<string[]> {
  return addressesIn((await ask(service.dnsPort, name, 'A')).packet);
}

/** Polls until 8 queries in a row, from fresh source ports (so both DNS threads), answer `expected`. */
async function until(service: Service, name: string, expected: string[], ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = await Promise.all(Array.from({ length: 8 }, () => answers(service, name)));
    const wrong = seen.find((s) => JSON.stringify(s) !== JSON.stringify(expected));
    if (wrong === undefined) return;
    if (Date.now() > deadline) assert.deepEqual(wrong, expected, `${name} still answers ${JSON.stringify(wrong)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('health checks', () => {
  let service: Service;
  let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
  const servers: (net.Server | http.Server)[] = [];
  const udpServers: dgram.Socket[] = [];
  let tcpPort: number;
  let httpPort: number;
  let udpPort: number;
  const put = async (name: string, addresses: string[], failover: Record<string, unknown> | undefined, strict = false, pickers = true) => {
    const body = {
      ttl: 30,
      ...(failover === undefined ? {} : { meta: { failover } }),
      ...(pickers ? { pickers: [{ type: 'healthcheck', strict }] } : {}),
      resource_records: addresses.map((a) => ({ content: [a] })),
    };
    const response = await api('PUT', `/dns/v2/zones/hc.test/${name}.hc.test/A`, body);
    assert.equal(response.status, 200, response.text);
  };

  before(async () => {
    // 127.0.0.1 serves TCP, HTTP and UDP; the other loopback addresses refuse, or answer HTTP 503.
    const tcp = net.createServer((socket) => socket.end());
    tcpPort = await listen(tcp, '127.0.0.1');
    const healthy = http.createServer((request, response) => {
      response.writeHead(request.url === '/health' && request.headers.host === 'origin.example' ? 200 : 404).end('status: ok');
    });
    httpPort = await listen(healthy, '127.0.0.1');
    const failing = http.createServer((_request, response) => response.writeHead(503).end('status: ok'));
    await new Promise<void>((resolve) => failing.listen(httpPort, '127.0.0.3', resolve));
    servers.push(tcp, healthy, failing);
    const udp = dgram.createSocket('udp4');
    udp.on('message', (_message, remote) => udp.send('pong', remote.port, remote.address));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    udpPort = udp.address().port;
    udpServers.push(udp);

    // Every check runs each 0.5 s instead of its frequency (10 s), under the default thresholds: a
    // record that was up goes after 3 failures in a row, one that was down comes back after 2 passes.
    service = await startService({ engine: 'sqlite', env: { EDGEPLANE_HEALTHCHECK_ALLOW_PRIVATE: '1', EDGEPLANE_DNS_WORKERS: '2', EDGEPLANE_TEST_HEALTHCHECK_INTERVAL: '500ms' } });
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    api = (method, path, body) => call(service.url, method, path, { auth, body });
    assert.equal((await api('POST', '/dns/v2/zones', { name: 'hc.test' })).status, 200);
  });
  after(async () => {
    await service.dispose();
    for (const server of servers) if (server.listening) await close(server);
    for (const socket of udpServers) socket.close();
  });

  test('TCP: a refused connection takes the record out of the answer', async () => {
    await put('tcp', ['127.0.0.1', '127.0.0.2'], { protocol: 'TCP', port: tcpPort, frequency: 10, timeout: 1 });
    await until(service, 'tcp.hc.test', ['127.0.0.1']);
  });

  test('HTTP: status, path, Host header and regexp decide', async () => {
    const check = { protocol: 'HTTP', port: httpPort, url: '/health', host: 'origin.example', http_status_code: 200, frequency: 10, timeout: 1 };
    await put('http', ['127.0.0.1', '127.0.0.3', '127.0.0.4'], check);
    await until(service, 'http.hc.test', ['127.0.0.1']);
    await put('http-regexp', ['127.0.0.1', '127.0.0.3'], { ...check, regexp: 'status: (ok|fine)$' });
    await until(service, 'http-regexp.hc.test', ['127.0.0.1']);
    // Another path is a 404 everywhere: every record fails, and a non-strict picker keeps them all.
    await put('http-all-down', ['127.0.0.1', '127.0.0.3'], { ...check, url: '/elsewhere' });
    await put('http-all-down-strict', ['127.0.0.1', '127.0.0.3'], { ...check, url: '/elsewhere' }, true);
    await until(service, 'http-all-down-strict.hc.test', []);
    assert.deepEqual(await answers(service, 'http-all-down.hc.test'), ['127.0.0.1', '127.0.0.3']);
    const { packet } = await ask(service.dnsPort, 'http-all-down-strict.hc.test', 'A');
    assert.equal(packet.rcode, 'NOERROR');
  });

  test('UDP: an ICMP port-unreachable, or a reply that does not match, means down', async () => {
    await put('udp', ['127.0.0.1', '127.0.0.5'], { protocol: 'UDP', port: udpPort, frequency: 10, timeout: 1 });
    await until(service, 'udp.hc.test', ['127.0.0.1']);
    await put('udp-regexp', ['127.0.0.1', '127.0.0.5'], { protocol: 'UDP', port: udpPort, regexp: '^pong$', frequency: 10, timeout: 1 });
    await until(service, 'udp-regexp.hc.test', ['127.0.0.1']);
    await put('udp-regexp-miss', ['127.0.0.1', '127.0.0.5'], { protocol: 'UDP', port: udpPort, regexp: '^ping$', frequency: 10, timeout: 1 }, true);
    await until(service, 'udp-regexp-miss.hc.test', []);
  });

  test('ICMP through the system ping', { skip: hasPing ? false : 'no ping on this machine (Debian: iputils-ping)' }, async () => {
    // TEST-NET-3 is not routed anywhere: the ping times out after the check's 1 s.
    await put('icmp', ['127.0.0.1', '203.0.113.1'], { protocol: 'ICMP', frequency: 10, timeout: 1 });
    await until(service, 'icmp.hc.test', ['127.0.0.1'], 8000);
  });

  test('checks without a healthcheck picker filter nothing; removing the check serves the record again', async () => {
    await put('static', ['127.0.0.1', '127.0.0.2'], { protocol: 'TCP', port: tcpPort, frequency: 10, timeout: 1 }, false, false);
    await put('dropped', ['127.0.0.1', '127.0.0.2'], { protocol: 'TCP', port: tcpPort, frequency: 10, timeout: 1 });
    await until(service, 'dropped.hc.test', ['127.0.0.1']);
    assert.deepEqual(await answers(service, 'static.hc.test'), ['127.0.0.1', '127.0.0.2']);
    await put('dropped', ['127.0.0.1', '127.0.0.2'], undefined);
    await until(service, 'dropped.hc.test', ['127.0.0.1', '127.0.0.2']);
  });

  test('a record comes back when its check passes again, and goes when it fails', async () => {
    const server = net.createServer((socket) => socket.end());
    const port = await listen(server, '127.0.0.6');
    servers.push(server);
    await put('flip', ['127.0.0.6', '127.0.0.7'], { protocol: 'TCP', port, frequency: 10, timeout: 1 });
    await until(service, 'flip.hc.test', ['127.0.0.6']);
    // The next rounds of checks see 127.0.0.7 listening (2 passes bring it back) and 127.0.0.6 gone (3 failures).
    const revived = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => revived.listen(port, '127.0.0.7', resolve));
    servers.push(revived);
    await close(server);
    await until(service, 'flip.hc.test', ['127.0.0.7'], 5000);
  });

  test('/metrics counts the checked records by state and the probes made', async () => {
    const metrics = (await call(service.url, 'GET', '/metrics')).text;
    const value = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1] ?? -1);
    assert.ok(value(/^edgeplane_healthcheck_records\{state="up"\} (\d+)$/m) > 0, metrics);
    assert.ok(value(/^edgeplane_healthcheck_records\{state="down"\} (\d+)$/m) > 0);
    assert.ok(value(/^edgeplane_healthcheck_probes_total\{protocol="TCP",result="down"\} (\d+)$/m) > 0);
    assert.ok(value(/^edgeplane_healthcheck_probes_total\{protocol="HTTP",result="up"\} (\d+)$/m) > 0);
  });

  test('the API refuses checks it cannot run', async () => {
    const response = await api('PUT', '/dns/v2/zones/hc.test/bad.hc.test/A', {
      ttl: 30,
      meta: { failover: { protocol: 'HTTP', port: 80, regexp: '(a)\\1', http_status_code: 700, tls: 'yes', url: 5, method: 'GET / HTTP/1.1\r\nX:', host: 'a\r\nb' } },
      resource_records: [{ content: ['192.0.2.1'] }],
    });
    assert.equal(response.status, 400, response.text);
    const text = response.text;
    for (const field of ['regexp', 'http_status_code', 'tls', 'url', 'method', 'host'].map((key) => `meta.failover.${key}`)) assert.match(text, new RegExp(field.replaceAll('.', '\\.')));
    assert.match(text, /linear time/);
    assert.equal((await api('GET', '/dns/v2/zones/hc.test/bad.hc.test/A')).status, 404);
  });
});

describe('health checks of private addresses', () => {
  test('are not run unless EDGEPLANE_HEALTHCHECK_ALLOW_PRIVATE is set: the records stay in the answer', async () => {
    const service = await startService({ engine: 'sqlite' });
    try {
      const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
      assert.equal((await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'private.test' } })).status, 200);
      const body = { ttl: 30, meta: { failover: { protocol: 'TCP', port: 9, frequency: 10, timeout: 1 } }, pickers: [{ type: 'healthcheck' }], resource_records: [{ content: ['127.0.0.1'] }, { content: ['10.0.0.1'] }] };
      assert.equal((await call(service.url, 'PUT', '/dns/v2/zones/private.test/www.private.test/A', { auth, body })).status, 200);
      // Loopback in the deprecated IPv4-compatible IPv6 form is no public address either.
      const compatible = { ...body, resource_records: [{ content: ['::127.0.0.1'] }] };
      assert.equal((await call(service.url, 'PUT', '/dns/v2/zones/private.test/v6.private.test/AAAA', { auth, body: compatible })).status, 200);
      const deadline = Date.now() + 3000;
      while (!service.output().includes('health check not run: ::7f00:1') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(service.output(), /health check not run: 10\.0\.0\.1 is a private address/);
      assert.match(service.output(), /health check not run: 127\.0\.0\.1 is a loopback address/);
      assert.match(service.output(), /health check not run: ::7f00:1 is a deprecated IPv4-compatible address/);
      assert.deepEqual(await answers(service, 'www.private.test'), ['10.0.0.1', '127.0.0.1']);
    } finally {
      await service.dispose();
    }
  });
});
