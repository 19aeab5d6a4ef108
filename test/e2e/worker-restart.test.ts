// A DNS or proxy worker thread that ends by itself (here made to by the tests' fault injection, as a
// defect's uncaught exception would), or stops answering (a loop that never ends), is started again
// (thread-slot.ts): the new thread serves the
// port again (the kernel's tables count its sockets), serves what changed while it was gone and
// what the health checks found, and is handed every change after it.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { addressesIn, ask } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { tcpListeners, udpSockets } from '../support/listening-sockets.ts';
import { adminAuth, ask as askProxy, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

async function metric(service: Service, name: string): Promise<number> {
  const text = (await call(service.url, 'GET', '/metrics')).text;
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  assert.ok(value !== undefined, `no ${name} in /metrics`);
  return Number(value);
}

/** What 16 queries from fresh source ports (so every DNS thread) get for `name`, each reply as `read` sees it, each distinct once. */
async function askEvery(service: Service, name: string, type: string, read: (reply: Awaited<ReturnType<typeof ask>>) => string): Promise<string[]> {
  const replies = await Promise.all(Array.from({ length: 16 }, () => ask(service.dnsPort, name, type)));
  return [...new Set(replies.map(read))];
}

/** The A addresses every DNS thread answers for `name`. */
const dnsAnswers = (service: Service, name: string): Promise<string[]> => askEvery(service, name, 'A', (r) => addressesIn(r.packet).join(','));

/** The RCODEs every DNS thread answers for `name`. */
const rcodes = (service: Service, name: string): Promise<string[]> => askEvery(service, name, 'A', (r) => r.packet.rcode);

/** Every DNS thread answers the zone's SOA. */
async function soaServedByEvery(service: Service, zone: string): Promise<void> {
  assert.deepEqual(await askEvery(service, zone, 'SOA', (r) => `${r.packet.rcode} ${String(r.packet.answers?.length)}`), ['NOERROR 1']);
}

/** The service's log lines so far. */
const output = (service: Service): Record<string, unknown>[] =>
  service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

async function dnsUntil(service: Service, name: string, expected: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = await dnsAnswers(service, name);
    if (seen.length === 1 && seen[0] === expected) return;
    if (Date.now() > deadline) assert.deepEqual(seen, [expected], `${name} still answers ${JSON.stringify(seen)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a DNS worker thread that ends is started again', () => {
  let service: Service;
  let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
  let auth: string;
  let tcp: net.Server;

  before(async () => {
    tcp = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    service = await startService({
      engine: 'sqlite',
      env: {
        EDGEPLANE_DNS_WORKERS: '2',
        // Worker thread 1 ends when a change of crash.test reaches it.
        EDGEPLANE_TEST_FAIL_APPLY: '1:crash.test:exit',
        EDGEPLANE_HEALTHCHECK_ALLOW_PRIVATE: '1',
        EDGEPLANE_TEST_HEALTHCHECK_INTERVAL: '200ms',
      },
    });
    auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    api = (method, path, body) => call(service.url, method, path, { auth, body });
  });
  after(async () => {
    await service.dispose();
    await new Promise((resolve) => tcp.close(resolve));
  });

  test('it serves again, with what changed while it was gone, the health checks\' verdicts, and every change after', async () => {
    const put = async (name: string, body: unknown) => {
      const response = await api('PUT', `/dns/v2/zones/kept.test/${name}/A`, body);
      assert.equal(response.status, 200, response.text);
    };
    assert.equal((await api('POST', '/dns/v2/zones', { name: 'kept.test' })).status, 200);
    await put('www.kept.test', { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] });
    // 127.0.0.2 refuses the check's connections: down, left out of the answers by every thread.
    const port = (tcp.address() as net.AddressInfo).port;
    await put('checked.kept.test', {
      ttl: 30,
      meta: { failover: { protocol: 'TCP', port, frequency: 10, timeout: 1 } },
      pickers: [{ type: 'healthcheck', strict: false }],
      resource_records: [{ content: ['127.0.0.1'] }, { content: ['127.0.0.2'] }],
    });
    await dnsUntil(service, 'checked.kept.test', '127.0.0.1');
    // Imported, then the zone disabled and enabled: loaded whole again, these names go into its
    // image. Then one of them is removed and one changed, which the DNS threads hold beside it.
    const zoneFile = ['a.kept.test. 300 IN A 192.0.2.21', 'b.kept.test. 300 IN A 192.0.2.22', 'c.kept.test. 300 IN A 192.0.2.23', 'd.deep.kept.test. 300 IN A 192.0.2.24', ''].join('\n');
    const imported = await call(service.url, 'POST', '/dns/v2/zones/kept.test/import', { auth, raw: zoneFile, contentType: 'text/plain' });
    assert.equal(imported.status, 200, imported.text);
    assert.equal((await api('PATCH', '/dns/v2/zones/kept.test/disable')).status, 200);
    assert.equal((await api('PATCH', '/dns/v2/zones/kept.test/enable')).status, 200);
    await dnsUntil(service, 'b.kept.test', '192.0.2.22');
    assert.equal((await api('DELETE', '/dns/v2/zones/kept.test/b.kept.test/A')).status, 200);
    await put('c.kept.test', { ttl: 60, resource_records: [{ content: ['192.0.2.33'] }] });
    assert.equal(udpSockets(service.dnsPort), 2);
    assert.equal(tcpListeners(service.dnsPort), 2);

    // The worker ends; the API still answers.
    assert.equal((await api('POST', '/dns/v2/zones', { name: 'crash.test' })).status, 200);
    await waitFor(() => udpSockets(service.dnsPort) === 1, 5000);
    assert.equal(await metric(service, 'edgeplane_dns_worker_restarts_total'), 0);
    // A change while it is gone (it is started again after 1 s).
    await put('www.kept.test', { ttl: 60, resource_records: [{ content: ['192.0.2.2'] }] });

    await waitFor(() => udpSockets(service.dnsPort) === 2 && tcpListeners(service.dnsPort) === 2, 10_000);
    assert.equal(await metric(service, 'edgeplane_dns_worker_restarts_total'), 1);
    await dnsUntil(service, 'www.kept.test', '192.0.2.2');
    // No check changed its verdict since: the new thread was told of the record that is down.
    assert.deepEqual(await dnsAnswers(service, 'checked.kept.test'), ['127.0.0.1']);
    // The zone whose change ended it is served by every thread too (the new one read it at start).
    await soaServedByEvery(service, 'crash.test');
    // It took both zones' images from the main DNS thread rather than reading them whole, and reads
    // them as that thread does: what the image holds, what was removed and changed since.
    const started = output(service).filter((line) => line['msg'] === 'DNS worker serving' && line['thread'] === 1);
    assert.equal(started.length, 2, JSON.stringify(started));
    assert.deepEqual([started[1]?.['zones'], started[1]?.['taken']], [2, 2]);
    assert.deepEqual(await dnsAnswers(service, 'a.kept.test'), ['192.0.2.21']);
    assert.deepEqual(await dnsAnswers(service, 'c.kept.test'), ['192.0.2.33']);
    assert.deepEqual(await rcodes(service, 'b.kept.test'), ['NXDOMAIN']);
    // An empty non-terminal of the image still exists (NOERROR, no data).
    assert.deepEqual(await rcodes(service, 'deep.kept.test'), ['NOERROR']);

    // Handed the changes: served by every thread as soon as the API answers, without polling.
    await put('www.kept.test', { ttl: 60, resource_records: [{ content: ['192.0.2.3'] }] });
    assert.deepEqual(await dnsAnswers(service, 'www.kept.test'), ['192.0.2.3']);
  });
});

/**
 * For one describe(): a service with two DNS threads whose worker thread 1 loops for ever at a
 * change of `zone`, and is ended once its pings go unanswered for `heartbeat`.
 */
function serviceHangingAt(zone: string, heartbeat: string): () => Service {
  let service: Service | undefined;
  before(async () => {
    service = await startService({ engine: 'sqlite', env: { EDGEPLANE_DNS_WORKERS: '2', EDGEPLANE_TEST_FAIL_APPLY: `1:${zone}:hang`, EDGEPLANE_TEST_THREAD_HEARTBEAT: heartbeat } });
  });
  after(async () => {
    await service?.dispose();
  });
  return () => {
    if (service === undefined) throw new Error('the service is started before the tests');
    return service;
  };
}

describe('a DNS worker thread that stops answering is ended and started again', () => {
  // Not shorter than 2 s: a thread's start-up collections may hold it 0.5 s on a loaded machine.
  const hanging = serviceHangingAt('hang.test', '2s');

  test('the API answers once it is ended, not after its 10 s wait, and every thread serves the zone', async () => {
    const service = hanging();
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    const started = Date.now();
    const created = await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'hang.test' } });
    assert.equal(created.status, 200, created.text);
    assert.ok(Date.now() - started < 8000, `answered after ${String(Date.now() - started)} ms`);
    await waitFor(() => udpSockets(service.dnsPort) === 2 && tcpListeners(service.dnsPort) === 2, 10_000);
    assert.equal(await metric(service, 'edgeplane_dns_worker_restarts_total'), 1);
    await soaServedByEvery(service, 'hang.test');
    // The new worker answers its pings: it is not ended in turn.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.equal(await metric(service, 'edgeplane_dns_worker_restarts_total'), 1);
  });
});

describe('a DNS worker thread that is late on a change is not waited for again until it answers', () => {
  // Ended after 14 s: longer than the API's 10 s wait for a change.
  const hanging = serviceHangingAt('late.test', '14s');

  test('the change it hangs on waits 10 s; the next is answered at once, and every thread serves both once it is replaced', async () => {
    const service = hanging();
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    const timed = async (name: string) => {
      const started = Date.now();
      const created = await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name } });
      assert.equal(created.status, 200, created.text);
      return Date.now() - started;
    };
    const first = await timed('late.test');
    assert.ok(first >= 9500 && first < 14_000, `the change it hangs on answered after ${String(first)} ms`);
    // Waited for, it would be answered only once the thread is ended (4 to 7.5 s from now).
    const second = await timed('next.test');
    assert.ok(second < 2500, `the next change answered after ${String(second)} ms`);
    assert.equal(await metric(service, 'edgeplane_dns_changes_answered_early_total'), 2);
    for (const deadline = Date.now() + 15_000; (await metric(service, 'edgeplane_dns_worker_restarts_total')) !== 1; ) {
      assert.ok(Date.now() < deadline, 'the late thread was not replaced');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await waitFor(() => udpSockets(service.dnsPort) === 2 && tcpListeners(service.dnsPort) === 2, 10_000);
    await soaServedByEvery(service, 'late.test');
    await soaServedByEvery(service, 'next.test');
  });
});

describe('a proxy worker thread that ends is started again', () => {
  let service: Service;
  let origin: Origin;
  let auth: string;

  before(async () => {
    [service, origin] = await Promise.all([
      // Pings unanswered for 2 s would end a worker: one that answers them is left alone.
      startService({ engine: 'sqlite', env: { EDGEPLANE_PROXY_WORKERS: '2', EDGEPLANE_TEST_PROXY_EXIT_ON: 'crash.example', EDGEPLANE_TEST_THREAD_HEARTBEAT: '2s' } }),
      startOrigin('A'),
    ]);
    auth = await adminAuth(service);
  });
  after(async () => {
    await Promise.all([service.dispose(), origin.close()]);
  });

  /** The statuses of 16 requests on fresh connections (so both threads) from `from`. */
  const statuses = async (host: string, from = '127.0.0.1') => [...new Set(await Promise.all(Array.from({ length: 16 }, async () => (await askProxy(service, host, '/', { localAddress: from })).status)))];

  test('it serves again, with what changed while it was gone, and every change after', async () => {
    const site = await createResource(service, auth, { name: 'site.example', origins: [{ origin_data: origin.address }] });
    assert.deepEqual(await statuses('site.example'), [200]);
    assert.equal(tcpListeners(service.proxyHttpPort), 2);
    // A worker that answers its pings is never ended.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.equal(await metric(service, 'edgeplane_proxy_worker_restarts_total'), 0);

    // Told of this resource, worker thread 1 ends.
    await createResource(service, auth, { name: 'crash.example', origins: [{ origin_data: origin.address }] });
    await waitFor(() => tcpListeners(service.proxyHttpPort) === 1, 5000);
    // A change while it is gone (it is started again after 1 s).
    await createResource(service, auth, { name: 'later.example', origins: [{ origin_data: origin.address }] });

    await waitFor(() => tcpListeners(service.proxyHttpPort) === 2, 10_000);
    assert.equal(await metric(service, 'edgeplane_proxy_worker_restarts_total'), 1);
    assert.deepEqual(await statuses('later.example'), [200]);
    assert.deepEqual(await statuses('crash.example'), [200]);

    // Handed the changes: a blacklist is enforced by every thread as soon as the API answers.
    const blacklisted = await call(service.url, 'PUT', `/security/resources/${String(site.id)}`, {
      auth,
      body: { name: 'site.example', origins: [{ origin_data: origin.address }], blacklists: [{ blacklist_data: '127.0.0.9' }] },
    });
    assert.equal(blacklisted.status, 200, blacklisted.text);
    assert.deepEqual(await statuses('site.example', '127.0.0.9'), [403]);
  });
});
