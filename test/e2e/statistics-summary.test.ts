// The account-wide statistics a dashboard reads: a known number of DNS queries of known types and
// response codes (real UDP) to two zones of one account and to a zone of another, and requests
// through the proxy to resources of both, then GET /dns/v2/statistics/summary,
// GET /security/statistics and GET /security/statistics/summary checked exactly, with nothing of
// the other account's counted or named.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ask as askDns } from '../support/dns-client.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { ask as askProxy, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { eventually } from '../support/wait.ts';

interface QueriesSummary {
  total: number;
  by_record_type: Record<string, number>;
  by_response_code: Record<string, number>;
  top_zones: { name: string; requests: number }[];
}

interface RequestsSummary {
  total: number;
  by_outcome: Record<string, number>;
  top_resources: { id: number; name: string; requests: number }[];
}

type Caller = (path: string) => Promise<unknown>;

/** `base` plus `added`, key by key. */
function plus(base: Record<string, number>, added: Record<string, number>): Record<string, number> {
  const sum = { ...base };
  for (const [key, n] of Object.entries(added)) sum[key] = (sum[key] ?? 0) + n;
  return sum;
}

for (const engine of engines()) {
  describe(`account statistics summaries (${engine})`, () => {
    let service: Service;
    let origin: Origin;
    let ours: Caller;
    let theirs: Caller;
    let raw: (path: string) => ReturnType<typeof call>;
    /** The minute the test starts in: an hour from it holds everything the tests send. */
    let from: number;
    let range: string;

    before(async () => {
      // Written every second, so that the tests read them soon.
      [service, origin] = await Promise.all([startService({ engine, env: { EDGEPLANE_STATS_FLUSH: '1' } }), startOrigin('summary origin')]);
      const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
      const get = (who: string) => async (path: string) => {
        const response = await call(service.url, 'GET', path, { auth: who });
        assert.equal(response.status, 200, `${path}: ${response.text}`);
        return response.body as unknown;
      };
      ours = get(auth);
      raw = (path) => call(service.url, 'GET', path, { auth });
      const created = await call(service.url, 'POST', '/iam/accounts', { auth, body: { email: 'summary-other@example.com', password: 'other password 1' } });
      assert.equal(created.status, 201, created.text);
      const other = bearer((await login(service.url, 'summary-other@example.com', 'other password 1')).access);
      theirs = get(other);
      const write = async (who: string, method: 'POST' | 'PUT', path: string, body: unknown) => {
        const response = await call(service.url, method, path, { auth: who, body });
        assert.equal(response.status, 200, response.text);
      };
      await write(auth, 'POST', '/dns/v2/zones', { name: 'alpha.example' });
      await write(auth, 'POST', '/dns/v2/zones', { name: 'beta.example' });
      await write(auth, 'PUT', '/dns/v2/zones/alpha.example/www.alpha.example/A', { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] });
      await write(auth, 'PUT', '/dns/v2/zones/alpha.example/www.alpha.example/AAAA', { ttl: 60, resource_records: [{ content: ['2001:db8::1'] }] });
      await write(other, 'POST', '/dns/v2/zones', { name: 'gamma.example' });
      await write(other, 'PUT', '/dns/v2/zones/gamma.example/www.gamma.example/A', { ttl: 60, resource_records: [{ content: ['192.0.2.9'] }] });
      // Every zone is served before the tests count.
      for (const name of ['www.alpha.example', 'beta.example', 'www.gamma.example']) {
        await eventually(async () => ((await askDns(service.dnsPort, name, name.startsWith('www') ? 'A' : 'SOA')).packet.answers?.length ?? 0) > 0 ? true : undefined);
      }
      // Wait for the probes' counts to be written before the test reads what it starts from.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      from = Math.floor(Date.now() / 60_000) * 60;
      range = `from=${String(from)}&to=${String(from + 3600)}`;
    });
    after(async () => {
      await Promise.all([service.dispose(), origin.close()]);
    });

    test('the DNS summary sums the account\'s queries by type, response code and zone, and nothing of another account\'s', async () => {
      const dnsSummary = async (query: string, caller = ours) => (await caller(`/dns/v2/statistics/summary?${query}`)) as QueriesSummary;
      // The probes' queries, when they fell in this minute, are in the range already.
      const base = await dnsSummary(range);
      const baseTheirs = await dnsSummary(range, theirs);
      const baseZone = (name: string) => base.top_zones.find((z) => z.name === name)?.requests ?? 0;

      // alpha.example: 6 A, 3 AAAA, 2 A for a missing name (NXDOMAIN), 1 MX (no data): 12.
      // beta.example: 4 SOA, 1 TXT for a missing name (NXDOMAIN), 1 NAPTR (a type counted as OTHER): 6.
      // gamma.example, the other account's: 7 A. Not hosted (REFUSED): counted for no one.
      const send = async (count: number, name: string, type: string, rcode: string) => {
        for (let i = 0; i < count; i++) assert.equal((await askDns(service.dnsPort, name, type)).packet.rcode, rcode, `${name} ${type}`);
      };
      await send(6, 'www.alpha.example', 'A', 'NOERROR');
      await send(3, 'www.alpha.example', 'AAAA', 'NOERROR');
      await send(2, 'missing.alpha.example', 'A', 'NXDOMAIN');
      await send(1, 'alpha.example', 'MX', 'NOERROR');
      await send(4, 'beta.example', 'SOA', 'NOERROR');
      await send(1, 'missing.beta.example', 'TXT', 'NXDOMAIN');
      await send(1, 'beta.example', 'NAPTR', 'NOERROR');
      await send(7, 'www.gamma.example', 'A', 'NOERROR');
      await send(1, 'not-hosted.example', 'A', 'REFUSED');

      const summary = await eventually(async () => {
        const s = await dnsSummary(range);
        return s.total >= base.total + 18 ? s : undefined;
      });
      assert.deepEqual(summary, {
        total: base.total + 18,
        by_record_type: plus(base.by_record_type, { A: 8, AAAA: 3, MX: 1, SOA: 4, TXT: 1, OTHER: 1 }),
        by_response_code: plus(base.by_response_code, { NOERROR: 15, NXDOMAIN: 3 }),
        top_zones: [
          { name: 'alpha.example', requests: baseZone('alpha.example') + 12 },
          { name: 'beta.example', requests: baseZone('beta.example') + 6 },
        ],
      });
      // The same counts as the account's series over the range.
      const all = (await ours(`/dns/v2/zones/all/statistics?${range}&granularity=1h`)) as { total: number };
      assert.equal(all.total, summary.total);
      // limit: the busiest zone only.
      assert.deepEqual((await dnsSummary(`${range}&limit=1`)).top_zones, summary.top_zones.slice(0, 1));

      // The other account: its own zone only, and none of ours named.
      const other = await eventually(async () => {
        const s = await dnsSummary(range, theirs);
        return s.total >= baseTheirs.total + 7 ? s : undefined;
      });
      assert.equal(other.total, baseTheirs.total + 7);
      assert.deepEqual(other.by_record_type, plus(baseTheirs.by_record_type, { A: 7 }));
      assert.deepEqual(other.top_zones.map((z) => z.name), ['gamma.example']);

      // Nothing counted twice once the writes settle; a range without queries is empty.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.deepEqual(await dnsSummary(range), summary);
      assert.deepEqual(await dnsSummary(`from=${String(from - 7200)}&to=${String(from - 3600)}`), { total: 0, by_record_type: {}, by_response_code: {}, top_zones: [] });
    });

    test('the proxy summary and series sum the account\'s resources by outcome and resource, and nothing of another account\'s', async () => {
      const auth = `Bearer ${(await login(service.url, adminEmail, adminPassword)).access}`;
      const theirAuth = `Bearer ${(await login(service.url, 'summary-other@example.com', 'other password 1')).access}`;
      const busy = await createResource(service, auth, { name: 'busy.example.net', origins: [{ origin_data: origin.address }], blacklists: [{ blacklist_data: '127.0.0.9' }] });
      const quiet = await createResource(service, auth, { name: 'quiet.example.net', origins: [{ origin_data: origin.address }] });
      await createResource(service, auth, { name: 'idle.example.net', origins: [{ origin_data: origin.address }] });
      await createResource(service, theirAuth, { name: 'theirs.example.net', origins: [{ origin_data: origin.address }] });
      const send = async (count: number, host: string, localAddress: string, status: number) => {
        for (let i = 0; i < count; i++) assert.equal((await askProxy(service, host, '/', { localAddress })).status, status, host);
      };
      // The proxy serves a new resource once it has heard of it: the first request waits for that.
      for (const host of ['busy.example.net', 'quiet.example.net', 'theirs.example.net']) {
        await eventually(async () => ((await askProxy(service, host, '/', { localAddress: '127.0.0.1' })).status === 200 ? true : undefined));
      }
      // With those first ones: busy 6 passed and 3 blacklisted, quiet 2 passed, theirs 4 passed.
      await send(5, 'busy.example.net', '127.0.0.1', 200);
      await send(3, 'busy.example.net', '127.0.0.9', 403);
      await send(1, 'quiet.example.net', '127.0.0.1', 200);
      await send(3, 'theirs.example.net', '127.0.0.1', 200);

      const summary = await eventually(async () => {
        const s = (await ours(`/security/statistics/summary?${range}`)) as RequestsSummary;
        return s.total >= 11 ? s : undefined;
      });
      assert.deepEqual(summary, {
        total: 11,
        by_outcome: { blacklist: 3, passed: 8 },
        top_resources: [
          { id: busy.id, name: 'busy.example.net', requests: 9 },
          { id: quiet.id, name: 'quiet.example.net', requests: 2 },
        ],
      });
      assert.deepEqual(((await ours(`/security/statistics/summary?${range}&limit=1`)) as RequestsSummary).top_resources, summary.top_resources.slice(0, 1));
      // The series over every resource: the same requests, in the interval they fell in.
      assert.deepEqual(await ours(`/security/statistics?${range}&granularity=1h`), { requests: { [String(from * 1000)]: 11 }, total: 11, outcomes: { blacklist: 3, passed: 8 } });
      assert.deepEqual(await ours(`/security/statistics?${range}&granularity=1h&outcome=blacklist`), { requests: { [String(from * 1000)]: 3 }, total: 3, outcomes: { blacklist: 3 } });

      const other = await eventually(async () => {
        const s = (await theirs(`/security/statistics/summary?${range}`)) as RequestsSummary;
        return s.total >= 4 ? s : undefined;
      });
      assert.deepEqual(other, { total: 4, by_outcome: { passed: 4 }, top_resources: [{ id: other.top_resources[0]?.id ?? 0, name: 'theirs.example.net', requests: 4 }] });
      assert.equal(((await theirs(`/security/statistics?${range}`)) as { total: number }).total, 4);

      // Nothing counted twice once the writes settle.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.deepEqual(await ours(`/security/statistics/summary?${range}`), summary);
    });

    test('bad parameters are a 400 naming the field; the endpoints are in the OpenAPI', async () => {
      const cases: [string, string][] = [
        ['/dns/v2/statistics/summary?from=2000&to=1000', 'from'],
        ['/dns/v2/statistics/summary?from=-5', 'from'],
        ['/dns/v2/statistics/summary?to=soon', 'to'],
        ['/dns/v2/statistics/summary?limit=0', 'limit'],
        ['/dns/v2/statistics/summary?limit=101', 'limit'],
        ['/dns/v2/statistics/summary?limit=ten', 'limit'],
        ['/security/statistics/summary?from=5000&to=4000', 'from'],
        ['/security/statistics/summary?limit=1000', 'limit'],
        ['/security/statistics?granularity=30s', 'granularity'],
        ['/security/statistics?from=0&to=1000000000&granularity=1m', 'granularity'],
        ['/security/statistics?outcome=Not-An-Outcome', 'outcome'],
      ];
      for (const [path, field] of cases) {
        const response = await raw(path);
        assert.equal(response.status, 400, path);
        assert.ok(field in ((response.body as { fields?: object }).fields ?? {}), `${path}: ${response.text}`);
      }
      // Defaults: the last 24 hours.
      for (const path of ['/dns/v2/statistics/summary', '/security/statistics/summary', '/security/statistics']) assert.equal((await raw(path)).status, 200, path);
      // Only for a signed-in caller.
      assert.equal((await call(service.url, 'GET', '/dns/v2/statistics/summary')).status, 401);
      assert.equal((await call(service.url, 'GET', '/security/statistics/summary')).status, 401);

      const openapi = (await call(service.url, 'GET', '/openapi.json')).body as { paths: Record<string, { get?: { tags?: string[] } }> };
      assert.deepEqual(openapi.paths['/dns/v2/statistics/summary']?.get?.tags, ['dns zones']);
      assert.deepEqual(openapi.paths['/security/statistics/summary']?.get?.tags, ['security resources']);
      assert.deepEqual(openapi.paths['/security/statistics']?.get?.tags, ['security resources']);
    });
  });
}
