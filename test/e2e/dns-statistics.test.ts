// Query statistics: a known number of queries of known types sent to two DNS nodes on one store
// (real UDP and TCP), then GET /dns/v2/zones/{name}/statistics checked exactly: per zone, per type,
// for `all` the account's zones, and nothing of another account's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ask } from '../support/dns-client.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { eventually } from '../support/wait.ts';

interface Statistics {
  requests: Record<string, number>;
  total: number;
}

for (const engine of engines()) {
  describe(`query statistics (${engine})`, () => {
    let node: Service;
    let dnsNode: Service;
    let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
    let otherApi: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
    /** The minute the test's queries start in: the interval of an hour from it holds them all. */
    let from: number;

    before(async () => {
      // Written every second, so that the test reads them soon.
      const env = { EDGEPLANE_STATS_FLUSH: '1' };
      node = await startService({ engine, env });
      dnsNode = await node.sibling({ ...env, EDGEPLANE_ROLES: 'dns' });
      const auth = bearer((await login(node.url, adminEmail, adminPassword)).access);
      api = (method, path, body) => call(node.url, method, path, { auth, body });
      for (const zone of ['stats.example', 'second.example']) assert.equal((await api('POST', '/dns/v2/zones', { name: zone })).status, 200);
      assert.equal((await api('PUT', '/dns/v2/zones/stats.example/www.stats.example/A', { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] })).status, 200);
      assert.equal((await api('PUT', '/dns/v2/zones/stats.example/www.stats.example/AAAA', { ttl: 60, resource_records: [{ content: ['2001:db8::1'] }] })).status, 200);
      assert.equal((await api('POST', '/iam/accounts', { email: 'stats-other@example.com', password: 'other password 1' })).status, 201);
      const other = bearer((await login(node.url, 'stats-other@example.com', 'other password 1')).access);
      otherApi = (method, path, body) => call(node.url, method, path, { auth: other, body });
      assert.equal((await otherApi('POST', '/dns/v2/zones', { name: 'theirs.example' })).status, 200);
      // Both nodes serve the zones before any query counts.
      for (const port of [node.dnsPort, dnsNode.dnsPort]) {
        await eventually(async () => (((await ask(port, 'www.stats.example', 'AAAA')).packet.answers?.length ?? 0) > 0 ? true : undefined));
        await eventually(async () => ((await ask(port, 'theirs.example', 'SOA')).packet.rcode === 'NOERROR' ? true : undefined));
      }
      // The probes' counts are written (every second) before the test reads what it starts from.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      from = Math.floor(Date.now() / 60_000) * 60;
    });
    after(async () => {
      await dnsNode.dispose();
      await node.dispose();
    });

    const statistics = async (zone: string, query: string, caller = api) => {
      const response = await caller('GET', `/dns/v2/zones/${zone}/statistics?${query}`);
      assert.equal(response.status, 200, response.text);
      return response.body as Statistics;
    };

    test('every answered query of a hosted zone counts once, on both nodes, by type; refusals count for no one', async () => {
      const to = from + 3600;
      const range = `from=${String(from)}&to=${String(to)}&granularity=1h`;
      const key = String(from * 1000);
      // The probes' queries, when they fell in this minute, are in the interval already.
      const base = {
        zone: (await statistics('stats.example', range)).total,
        a: (await statistics('stats.example', `${range}&record_type=A`)).total,
        aaaa: (await statistics('stats.example', `${range}&record_type=AAAA`)).total,
        all: (await statistics('all', range)).total,
        theirs: (await statistics('all', range, otherApi)).total,
      };
      // stats.example: 5 A (the same query: after the first, from the kept replies), 2 A over TCP,
      // 3 AAAA on the other node, 2 NXDOMAIN, 1 MX (no data). second.example: 2 SOA. Not counted:
      // a name outside every zone (REFUSED). theirs.example (another account's): 4 A.
      for (let i = 0; i < 5; i++) assert.equal((await ask(node.dnsPort, 'www.stats.example', 'A')).packet.rcode, 'NOERROR');
      for (let i = 0; i < 2; i++) await ask(node.dnsPort, 'www.stats.example', 'A', { tcp: true });
      for (let i = 0; i < 3; i++) await ask(dnsNode.dnsPort, 'www.stats.example', 'AAAA');
      for (const name of ['nothing.stats.example', 'else.stats.example']) assert.equal((await ask(dnsNode.dnsPort, name, 'A')).packet.rcode, 'NXDOMAIN');
      await ask(node.dnsPort, 'stats.example', 'MX');
      for (let i = 0; i < 2; i++) await ask(dnsNode.dnsPort, 'second.example', 'SOA');
      assert.equal((await ask(node.dnsPort, 'not-hosted.example', 'A')).packet.rcode, 'REFUSED');
      for (let i = 0; i < 4; i++) await ask(node.dnsPort, 'theirs.example', 'A');

      const zone = await eventually(async () => {
        const s = await statistics('stats.example', range);
        return s.total >= base.zone + 13 ? s : undefined;
      });
      assert.deepEqual(zone, { requests: { [key]: base.zone + 13 }, total: base.zone + 13 });
      assert.deepEqual(await statistics('stats.example', `${range}&record_type=A`), { requests: { [key]: base.a + 9 }, total: base.a + 9 });
      assert.deepEqual(await statistics('stats.example', `${range}&record_type=aaaa`), { requests: { [key]: base.aaaa + 3 }, total: base.aaaa + 3 });
      assert.deepEqual(await statistics('stats.example', `${range}&record_type=CAA`), { requests: {}, total: 0 });
      const all = await eventually(async () => {
        const s = await statistics('all', range);
        return s.total >= base.all + 15 ? s : undefined;
      });
      assert.deepEqual(all, { requests: { [key]: base.all + 15 }, total: base.all + 15 });
      // The other account: its own zone only; ours are not found.
      const theirs = await eventually(async () => {
        const s = await statistics('all', range, otherApi);
        return s.total >= base.theirs + 4 ? s : undefined;
      });
      assert.equal(theirs.total, base.theirs + 4);
      assert.equal((await otherApi('GET', `/dns/v2/zones/stats.example/statistics?${range}`)).status, 404);
      // Nothing was counted twice by the time the writes settle.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal((await statistics('all', range)).total, base.all + 15);

      // By the minute: the same queries in the minutes they were answered.
      const byMinute = await statistics('stats.example', `from=${String(from)}&to=${String(to)}&granularity=1m`);
      assert.equal(byMinute.total, base.zone + 13);
      for (const start of Object.keys(byMinute.requests)) assert.equal(Number(start) % 60_000, 0);
    });

    test('bad ranges, granularities and types are a 400 naming the field', async () => {
      const cases: [string, string][] = [
        ['granularity=30s', 'granularity'],
        ['granularity=1h30', 'granularity'],
        ['granularity=90s', 'granularity'],
        ['granularity=', 'granularity'],
        ['from=2000&to=1000', 'from'],
        ['from=0&to=1000000000&granularity=1m', 'granularity'],
        ['record_type=NAPTR', 'record_type'],
      ];
      for (const [query, field] of cases) {
        const response = await api('GET', `/dns/v2/zones/stats.example/statistics?${query}`);
        assert.equal(response.status, 400, query);
        assert.ok(field in ((response.body as { fields?: object }).fields ?? {}), `${query}: ${response.text}`);
      }
      assert.equal((await api('GET', '/dns/v2/zones/stats.example/statistics?from=-5')).status, 400);
      assert.equal((await api('GET', '/dns/v2/zones/nope.example/statistics')).status, 404);
      // Defaults: the last 24 hours by the hour.
      assert.equal((await api('GET', '/dns/v2/zones/stats.example/statistics')).status, 200);
    });
  });
}
