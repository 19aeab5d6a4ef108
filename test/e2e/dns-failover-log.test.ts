// Health check thresholds, the agreed state of several DNS nodes, and the failover log, end to end:
// real HTTP and TCP targets on loopback that fail and recover, the DNS answers over UDP, and
// GET .../failover/log on SQLite and PostgreSQL. Checks run every 0.2 s here
// (EDGEPLANE_TEST_HEALTHCHECK_INTERVAL) under the default thresholds: down after 3 failures in a
// row, back after 2 passes.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/assertions.ts';
import { addressesIn, ask } from '../support/dns-client.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const env = { EDGEPLANE_HEALTHCHECK_ALLOW_PRIVATE: '1', EDGEPLANE_TEST_HEALTHCHECK_INTERVAL: '200ms' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const listen = (server: net.Server, host: string, port = 0) =>
  new Promise<number>((resolve) => server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port)));
const close = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

const answers = async (port: number, name: string) => addressesIn((await ask(port, name, 'A')).packet);

/** Asks until the answer is `expected` (sorted) or `ms` pass. */
async function until(port: number, name: string, expected: string[], ms = 8000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = await answers(port, name);
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) assert.deepEqual(seen, expected, `${name} at DNS port ${String(port)}`);
    await sleep(50);
  }
}

/** An HTTP target that answers 200 or 503 as told (the next few answers, then a default), and notes when it sent each. */
function httpTarget() {
  const sent: { at: number; ok: boolean }[] = [];
  let healthy = true;
  let next: boolean[] = [];
  const server = http.createServer((_request, response) => {
    const ok = next.shift() ?? healthy;
    response.writeHead(ok ? 200 : 503).end();
    sent.push({ at: Date.now(), ok });
  });
  return {
    server,
    set healthy(value: boolean) {
      healthy = value;
    },
    /** The next answers, before the default again. */
    set next(answers: boolean[]) {
      next = [...answers];
    },
    /** When the n-th answer (1-based) with this outcome was sent since `since`. */
    nth: (ok: boolean, n: number, since: number) => sent.filter((s) => s.at >= since && s.ok === ok)[n - 1]?.at,
    /** Answers sent since `since`. */
    since: (at: number) => sent.filter((s) => s.at >= at).length,
  };
}

/** The times a name was asked, and whether `address` was in the answer, until `done` says stop. */
async function watch(port: number, name: string, address: string, done: (present: boolean) => boolean, ms = 8000) {
  const seen: { at: number; present: boolean }[] = [];
  const deadline = Date.now() + ms;
  for (;;) {
    const at = Date.now();
    const present = (await answers(port, name)).includes(address);
    seen.push({ at, present });
    if (done(present)) return seen;
    if (Date.now() > deadline) assert.fail(`${name}: ${address} never ${present ? 'left' : 'came back'}`);
    await sleep(30);
  }
}

interface LogBody {
  log: { action: string; address: string; time: number }[];
  total_amount: number;
}

/** The healthcheck_state series of GET /dns/v2/monitor/metrics: each one's labels, and its value under `value`. */
async function healthStates(url: string, auth: string, query = ''): Promise<Record<string, string>[]> {
  const response = await fetch(`${url}/dns/v2/monitor/metrics${query}`, { headers: { authorization: auth } });
  assert.equal(response.status, 200);
  const series: Record<string, string>[] = [];
  for (const line of (await response.text()).split('\n')) {
    const match = /^healthcheck_state\{(.*)\} (\S+)$/.exec(line);
    if (match === null) continue;
    const labels = Object.fromEntries([...(match[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
    series.push({ ...labels, value: match[2] ?? '' });
  }
  return series.sort((a, b) => `${a['rrset_name'] ?? ''} ${a['address'] ?? ''}`.localeCompare(`${b['rrset_name'] ?? ''} ${b['address'] ?? ''}`));
}

/** The value of each record's series, `name address` → value, waiting up to `ms` for `expected`. */
async function untilHealth(url: string, auth: string, expected: Record<string, string>, ms = 8000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = Object.fromEntries((await healthStates(url, auth)).map((s) => [`${s['rrset_name'] ?? ''} ${s['address'] ?? ''}`, s['value'] ?? '']));
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) assert.deepEqual(seen, expected, 'healthcheck_state');
    await sleep(100);
  }
}

for (const engine of engines()) {
  describe(`health check thresholds and the failover log on ${engine}`, () => {
    let service: Service;
    let auth: string;
    let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call<LogBody>>;
    const target = httpTarget();
    const steady = net.createServer((socket) => socket.end());
    let httpPort: number;
    const startedAt = Math.floor(Date.now() / 1000);

    before(async () => {
      httpPort = await listen(target.server, '127.0.0.8');
      service = await startService({ engine, env });
      auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
      api = (method, path, body) => call<LogBody>(service.url, method, path, { auth, body });
      assert.equal((await api('POST', '/dns/v2/zones', { name: 'fo.test' })).status, 200);
    });
    after(async () => {
      await service.dispose();
      target.server.close();
      if (steady.listening) await close(steady);
    });

    test('a record goes only after 3 failed checks in a row, and comes back only after 2 passed ones', async () => {
      const body = {
        ttl: 30,
        meta: { failover: { protocol: 'HTTP', port: httpPort, frequency: 10, timeout: 1 } },
        pickers: [{ type: 'healthcheck', strict: true }],
        resource_records: [{ content: ['127.0.0.8'] }],
      };
      assert.equal((await api('PUT', '/dns/v2/zones/fo.test/web.fo.test/A', body)).status, 200);
      await until(service.dnsPort, 'web.fo.test', ['127.0.0.8']);
      await sleep(500);

      // Two failures in a row, then passes: the record stays in every answer meanwhile.
      const blipSince = Date.now();
      target.next = [false, false];
      const blip = await watch(service.dnsPort, 'web.fo.test', '127.0.0.8', () => target.since(blipSince) >= 5);
      assert.ok(blip.every((s) => s.present), 'two failures took the record out');

      const failingSince = Date.now();
      target.healthy = false;
      const fall = await watch(service.dnsPort, 'web.fo.test', '127.0.0.8', (present) => !present);
      const third = target.nth(false, 3, failingSince);
      assert.ok(third !== undefined);
      for (const s of fall.filter((s) => !s.present)) assert.ok(s.at >= third, 'the record went before its third failure');

      // One pass, then failures again: the record stays out.
      const passSince = Date.now();
      target.next = [true];
      const pass = await watch(service.dnsPort, 'web.fo.test', '127.0.0.8', () => target.since(passSince) >= 4);
      assert.ok(pass.every((s) => !s.present), 'one pass brought the record back');

      const passingSince = Date.now();
      target.healthy = true;
      const rise = await watch(service.dnsPort, 'web.fo.test', '127.0.0.8', (present) => present);
      const secondPass = target.nth(true, 2, passingSince);
      assert.ok(secondPass !== undefined);
      for (const s of rise.filter((s) => s.present)) assert.ok(s.at >= secondPass, 'the record came back before its second pass');
    });

    test('a TCP target that stops goes out of the answer, and comes back when it starts again', async () => {
      const port = await listen(steady, '127.0.0.9');
      const stopping = net.createServer((socket) => socket.end());
      await listen(stopping, '127.0.0.10', port);
      const body = {
        ttl: 30,
        meta: { failover: { protocol: 'TCP', port, frequency: 10, timeout: 1 } },
        pickers: [{ type: 'healthcheck' }],
        resource_records: [{ content: ['127.0.0.9'] }, { content: ['127.0.0.10'] }],
      };
      assert.equal((await api('PUT', '/dns/v2/zones/fo.test/tcp.fo.test/A', body)).status, 200);
      await until(service.dnsPort, 'tcp.fo.test', ['127.0.0.10', '127.0.0.9']);
      await close(stopping);
      await until(service.dnsPort, 'tcp.fo.test', ['127.0.0.9']);
      const restarted = net.createServer((socket) => socket.end());
      await listen(restarted, '127.0.0.10', port);
      try {
        await until(service.dnsPort, 'tcp.fo.test', ['127.0.0.10', '127.0.0.9']);
      } finally {
        await close(restarted);
      }
    });

    test('the log holds each change, newest first, in the provider\'s shape', async () => {
      const response = await api('GET', '/dns/v2/zones/fo.test/web.fo.test/A/failover/log');
      assert.equal(response.status, 200, response.text);
      const now = Math.floor(Date.now() / 1000);
      assert.deepEqual(Object.keys(response.body).sort(), ['log', 'total_amount']);
      assert.equal(response.body.total_amount, 2);
      assert.deepEqual(response.body.log.map((e) => [e.action, e.address]), [['up', '127.0.0.8'], ['down', '127.0.0.8']]);
      for (const entry of response.body.log) {
        assert.deepEqual(Object.keys(entry).sort(), ['action', 'address', 'time']);
        assert.ok(Number.isInteger(entry.time) && entry.time >= startedAt && entry.time <= now, `time ${String(entry.time)} is Unix seconds of this test`);
      }
      assert.ok(response.body.log[0]!.time >= response.body.log[1]!.time);
      const openapi = await call(service.url, 'GET', '/openapi.json');
      const documented = openapi.body.paths['/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}/failover/log'];
      assert.deepEqual(Object.keys(documented.get.responses['200'].content['application/json'].schema.properties).sort(), ['log', 'total_amount']);
      const tcp = await api('GET', '/dns/v2/zones/fo.test/tcp.fo.test/A/failover/log');
      assert.deepEqual(tcp.body.log.map((e) => [e.action, e.address]), [['up', '127.0.0.10'], ['down', '127.0.0.10']]);
    });

    test('offset and limit page through the log; bad values are refused', async () => {
      const path = '/dns/v2/zones/fo.test/web.fo.test/A/failover/log';
      const page = await api('GET', `${path}?offset=1&limit=1`);
      assert.equal(page.status, 200);
      assert.deepEqual(page.body.log.map((e) => e.action), ['down']);
      assert.equal(page.body.total_amount, 2);
      assert.deepEqual((await api('GET', `${path}?limit=1`)).body.log.map((e) => e.action), ['up']);
      assert.deepEqual((await api('GET', `${path}?offset=5`)).body, { log: [], total_amount: 2 });
      for (const query of ['offset=-1', 'offset=abc', 'limit=0', 'limit=1001', 'limit=1e309', 'offset=99999999999999999999', 'limit=2.5']) {
        assertError(await api('GET', `${path}?${query}`), 400);
      }
    });

    test('an RRset without checks has an empty log; missing RRsets, zones and other accounts\' zones are 404', async () => {
      assert.equal((await api('PUT', '/dns/v2/zones/fo.test/plain.fo.test/A', { ttl: 30, resource_records: [{ content: ['192.0.2.1'] }] })).status, 200);
      assert.deepEqual((await api('GET', '/dns/v2/zones/fo.test/plain.fo.test/A/failover/log')).body, { log: [], total_amount: 0 });
      assertError(await api('GET', '/dns/v2/zones/fo.test/nothing.fo.test/A/failover/log'), 404);
      assertError(await api('GET', '/dns/v2/zones/fo.test/web.fo.test/AAAA/failover/log'), 404);
      assertError(await api('GET', '/dns/v2/zones/none.test/web.none.test/A/failover/log'), 404);
      assertError(await api('GET', '/dns/v2/zones/fo.test/web.elsewhere.test./A/failover/log'), 400);
      assertError(await api('GET', '/dns/v2/zones/fo.test/web.fo.test/BOGUS/failover/log'), 400);
      assertError(await call(service.url, 'GET', '/dns/v2/zones/fo.test/web.fo.test/A/failover/log'), 401);

      const created = await call(service.url, 'POST', '/iam/accounts', { auth, body: { email: 'other@fo.example', password: 'other password 1' } });
      assert.equal(created.status, 201, created.text);
      const other = bearer((await login(service.url, 'other@fo.example', 'other password 1')).access);
      assertError(await call(service.url, 'GET', '/dns/v2/zones/fo.test/web.fo.test/A/failover/log', { auth: other }), 404);
    });

    test('monitor metrics: healthcheck_state of each checked record as the store holds it, in the provider\'s labels; none of another account\'s', async () => {
      const series = await healthStates(service.url, auth);
      const accountId = String(((await api('GET', '/iam/clients/me')).body as unknown as { id: number }).id);
      const web = series.find((s) => s['rrset_name'] === 'web.fo.test');
      // The RRset's check stands for the provider's monitor: its id, a positive integer, names it.
      assert.match(web?.['monitor_id'] ?? '', /^[1-9]\d*$/);
      assert.deepEqual(web, {
        client_id: accountId,
        monitor_id: web?.['monitor_id'],
        monitor_locations: '',
        monitor_name: 'web.fo.test A',
        monitor_type: 'http',
        rrset_name: 'web.fo.test',
        rrset_type: 'A',
        zone_name: 'fo.test',
        address: '127.0.0.8',
        value: '1',
      });
      // plain.fo.test has no check: no series. 127.0.0.10's target stopped at the end of the TCP test.
      await untilHealth(service.url, auth, { 'tcp.fo.test 127.0.0.10': '0', 'tcp.fo.test 127.0.0.9': '1', 'web.fo.test 127.0.0.8': '1' });
      await until(service.dnsPort, 'tcp.fo.test', ['127.0.0.9']);
      assert.deepEqual(
        (await healthStates(service.url, auth)).filter((s) => s['rrset_name'] === 'tcp.fo.test').map((s) => s['monitor_type']),
        ['tcp', 'tcp'],
      );
      await close(steady);
      await untilHealth(service.url, auth, { 'tcp.fo.test 127.0.0.10': '0', 'tcp.fo.test 127.0.0.9': '0', 'web.fo.test 127.0.0.8': '1' });
      // zone_names keeps the zone's series; another account sees none of them.
      assert.equal((await healthStates(service.url, auth, '?zone_names=elsewhere.test')).length, 0);
      assert.equal((await healthStates(service.url, auth, '?zone_names=FO.test.')).length, 3);
      const other = bearer((await login(service.url, 'other@fo.example', 'other password 1')).access);
      assert.deepEqual(await healthStates(service.url, other), []);
    });

    test('deleting the RRset deletes its log', async () => {
      assert.equal((await api('DELETE', '/dns/v2/zones/fo.test/tcp.fo.test/A')).status, 200);
      const body = { ttl: 30, resource_records: [{ content: ['192.0.2.2'] }] };
      assert.equal((await api('PUT', '/dns/v2/zones/fo.test/tcp.fo.test/A', body)).status, 200);
      assert.deepEqual((await api('GET', '/dns/v2/zones/fo.test/tcp.fo.test/A/failover/log')).body, { log: [], total_amount: 0 });
    });
  });
}

describe('two DNS nodes on one PostgreSQL store', { skip: engines().includes('postgres') ? false : 'PostgreSQL only (EDGEPLANE_TEST_DATABASE_URL)' }, () => {
  let apiNode: Service;
  const dnsNodes: Service[] = [];
  let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call<LogBody>>;
  let auth: string;
  let connections = 0;
  const steady = net.createServer((socket) => {
    connections++;
    socket.end();
  });
  let flaky = net.createServer((socket) => socket.end());
  let port: number;

  before(async () => {
    port = await listen(steady, '127.0.0.11');
    await listen(flaky, '127.0.0.12', port);
    apiNode = await startService({ engine: 'postgres', env: { ...env, EDGEPLANE_ROLES: 'api' } });
    dnsNodes.push(await apiNode.sibling({ EDGEPLANE_ROLES: 'dns' }), await apiNode.sibling({ EDGEPLANE_ROLES: 'dns' }));
    auth = bearer((await login(apiNode.url, adminEmail, adminPassword)).access);
    api = (method, path, body) => call<LogBody>(apiNode.url, method, path, { auth, body });
    assert.equal((await api('POST', '/dns/v2/zones', { name: 'pair.test' })).status, 200);
    const body = {
      ttl: 30,
      meta: { failover: { protocol: 'TCP', port, frequency: 10, timeout: 1 } },
      pickers: [{ type: 'healthcheck' }],
      resource_records: [{ content: ['127.0.0.11'] }, { content: ['127.0.0.12'] }],
    };
    assert.equal((await api('PUT', '/dns/v2/zones/pair.test/www.pair.test/A', body)).status, 200);
    for (const node of dnsNodes) await until(node.dnsPort, 'www.pair.test', ['127.0.0.11', '127.0.0.12']);
  });
  after(async () => {
    for (const node of dnsNodes) await node.dispose();
    await apiNode.dispose();
    if (steady.listening) await close(steady);
    if (flaky.listening) await close(flaky);
  });

  test('one node checks each record: the target sees one node\'s probes, not two', async () => {
    const from = connections;
    await sleep(2000);
    const made = connections - from;
    // One node probing every 0.2 s makes about 10 in 2 s; two would make about 20.
    assert.ok(made >= 3 && made <= 13, `${String(made)} probes in 2 s`);
  });

  test('both nodes answer the same after a target goes down and comes back, and the log has one entry per change', async () => {
    await close(flaky);
    for (const node of dnsNodes) await until(node.dnsPort, 'www.pair.test', ['127.0.0.11']);
    // The API node checks nothing: its monitor metrics are the state the DNS nodes stored.
    await untilHealth(apiNode.url, auth, { 'www.pair.test 127.0.0.11': '1', 'www.pair.test 127.0.0.12': '0' });
    flaky = net.createServer((socket) => socket.end());
    await listen(flaky, '127.0.0.12', port);
    for (const node of dnsNodes) await until(node.dnsPort, 'www.pair.test', ['127.0.0.11', '127.0.0.12']);
    await untilHealth(apiNode.url, auth, { 'www.pair.test 127.0.0.11': '1', 'www.pair.test 127.0.0.12': '1' });
    const log = await api('GET', '/dns/v2/zones/pair.test/www.pair.test/A/failover/log');
    assert.deepEqual(log.body.log.map((e) => [e.action, e.address]), [['up', '127.0.0.12'], ['down', '127.0.0.12']]);
    assert.equal(log.body.total_amount, 2);
  });

  test('when a node stops, the other takes over its checks', async () => {
    const stopped = dnsNodes.shift();
    await stopped?.dispose();
    const [remaining] = dnsNodes;
    assert.ok(remaining !== undefined);
    // The remaining node claims the checks no node holds within 5 s, then probes them.
    await close(flaky);
    await until(remaining.dnsPort, 'www.pair.test', ['127.0.0.11'], 12_000);
    const log = await api('GET', '/dns/v2/zones/pair.test/www.pair.test/A/failover/log');
    assert.deepEqual(log.body.log.map((e) => [e.action, e.address]).slice(0, 2), [['down', '127.0.0.12'], ['up', '127.0.0.12']]);
    assert.equal(log.body.total_amount, 3);
  });
});
