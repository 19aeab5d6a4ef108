// Every DNS thread ends up serving the store's version of every zone, whatever happened to a change
// on its way, and a committed change is never answered with an error: with several DNS threads on
// one port (SO_REUSEPORT spreads queries from different source ports over them), a thread made to
// fail its applies (EDGEPLANE_TEST_FAIL_APPLY) catches up by itself; and the certificate check that
// once left an OpenSSL error behind no longer breaks the next DNSSEC key load in its thread.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addressesIn, ask } from '../support/dns-client.ts';
import { privateKey, selfSignedCertificate } from '../support/certificates.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

type Api = (method: string, path: string, body?: unknown) => ReturnType<typeof call>;

async function apiOf(service: Service): Promise<Api> {
  const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
  return (method, path, body) => call(service.url, method, path, { auth, body });
}

async function ok(response: ReturnType<Api>): Promise<void> {
  const r = await response;
  assert.ok(r.status >= 200 && r.status < 300, `${String(r.status)} ${r.text}`);
}

/** What each of `count` queries from a new socket (a new source port) gets: rcode and addresses. */
async function answers(port: number, name: string, count = 16): Promise<Set<string>> {
  const replies = await Promise.all(Array.from({ length: count }, () => ask(port, name, 'A')));
  return new Set(replies.map((r) => `${r.packet.rcode} ${addressesIn(r.packet).join(',')}`));
}

/** Asks until every answer for each name is the expected one, or fails after `ms` with what was seen. */
async function converged(port: number, expected: Record<string, string>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen: Record<string, string[]> = {};
    for (const name of Object.keys(expected)) seen[name] = [...(await answers(port, name))];
    const wanted = Object.fromEntries(Object.entries(expected).map(([name, answer]) => [name, [answer]]));
    if (JSON.stringify(seen) === JSON.stringify(wanted)) return;
    if (Date.now() > deadline) assert.deepEqual(seen, wanted, 'the DNS threads did not converge');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function metric(service: Service, name: string): Promise<number> {
  const text = (await call(service.url, 'GET', '/metrics')).text;
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  assert.ok(value !== undefined, `no ${name} in /metrics`);
  return Number(value);
}

const workers = '2';

for (const engine of engines()) {
  describe(`DNS threads converge on the store (${engine})`, () => {
    test('a certificate refused for a key of another type leaves the DNS server able to load a signed zone', async () => {
      const service = await startService({ engine, env: { EDGEPLANE_DNS_WORKERS: workers } });
      try {
        const api = await apiOf(service);
        await ok(api('POST', '/dns/v2/zones', { name: 'signed.test' }));
        await ok(api('PATCH', '/dns/v2/zones/signed.test/dnssec', { enabled: true }));
        const resource = await api('POST', '/security/resources', { name: 'shop.example' });
        assert.equal(resource.status, 201, resource.text);
        // An RSA certificate with an EC key, in the thread that also serves DNS (the main thread).
        const rsa = selfSignedCertificate('shop.example', { key: 'rsa' });
        const put = await api('PUT', `/security/resources/${String((resource.body as { id: number }).id)}`, {
          name: 'shop.example', ssl_type: 'custom', service_ssl_crt: rsa.crt, service_ssl_key: privateKey(),
        });
        assert.equal(put.status, 400, put.text);
        assert.match(put.text, /"service_ssl_key":"the private key does not match the certificate"/);
        // A zone-wide change reloads the zone, opening its DNSSEC key: once a 500 and a thread on
        // the former version; now served by every thread, with no failed attempt.
        const patch = await api('PUT', '/dns/v2/zones/signed.test', { nx_ttl: 123 });
        assert.equal(patch.status, 200, patch.text);
        const soas = await Promise.all(Array.from({ length: 16 }, () => ask(service.dnsPort, 'signed.test', 'SOA')));
        assert.deepEqual(new Set(soas.map((r) => (r.packet.answers?.[0] as { data?: { minimum?: number } } | undefined)?.data?.minimum)), new Set([123]));
        assert.equal(await metric(service, 'edgeplane_dns_zone_apply_failures_total'), 0);
        // Each of the three whole loads (the zone created, signed, changed zone-wide) was read from
        // the store by the main thread alone; the worker took its image: one copy per process.
        assert.equal(await metric(service, 'edgeplane_dns_zone_loads_total{from="store"}'), 3);
        assert.equal(await metric(service, 'edgeplane_dns_zone_loads_total{from="thread"}'), 3);
      } finally {
        await service.dispose();
      }
    });

    test('threads that fail to apply changes are answered 200 and serve them once they reload the zones', async () => {
      // The zones exist before the faults: every thread loads them at start.
      const setup = await startService({ engine });
      const before = await apiOf(setup);
      for (const zone of ['main.test', 'worker.test', 'gone.test']) {
        await ok(before('POST', '/dns/v2/zones', { name: zone }));
        await ok(before('PUT', `/dns/v2/zones/${zone}/www.${zone}/A`, { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] }));
      }
      await setup.stop();
      // The main thread (which also runs the API) fails its next 5 attempts to apply changes of
      // main.test, the worker thread those of worker.test and gone.test: more than the retries a
      // change gets while the API waits, so the API answers first and the periodic check catches up.
      const faults = '0:main.test:5,1:worker.test:5,1:gone.test:5';
      const service = await setup.sibling({ EDGEPLANE_DNS_WORKERS: workers, EDGEPLANE_TEST_FAIL_APPLY: faults });
      try {
        const api = await apiOf(service);
        await converged(service.dnsPort, { 'www.main.test': 'NOERROR 192.0.2.1', 'www.worker.test': 'NOERROR 192.0.2.1', 'www.gone.test': 'NOERROR 192.0.2.1' });

        const changes = [
          api('PUT', '/dns/v2/zones/main.test/www.main.test/A', { ttl: 60, resource_records: [{ content: ['192.0.2.2'] }] }),
          api('PUT', '/dns/v2/zones/worker.test/www.worker.test/A', { ttl: 60, resource_records: [{ content: ['192.0.2.2'] }] }),
          api('DELETE', '/dns/v2/zones/gone.test'),
        ];
        for (const response of await Promise.all(changes)) assert.ok(response.status < 300, `${String(response.status)} ${response.text}`);
        // The API answered before the failing threads served the changes, and said so.
        assert.equal(await metric(service, 'edgeplane_dns_changes_answered_early_total'), 3);

        await converged(service.dnsPort, { 'www.main.test': 'NOERROR 192.0.2.2', 'www.worker.test': 'NOERROR 192.0.2.2', 'www.gone.test': 'REFUSED ' });
        assert.equal(await metric(service, 'edgeplane_dns_zone_apply_failures_total'), 15);
        assert.equal(await metric(service, 'edgeplane_dns_zone_resyncs_total'), 3);
        assert.equal(await metric(service, 'edgeplane_dns_zones_behind'), 0);
      } finally {
        await service.dispose();
        await setup.dispose();
      }
    });
  });
}
