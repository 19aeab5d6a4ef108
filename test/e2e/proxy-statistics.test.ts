// Request statistics of a protected resource: requests sent through the proxy (two threads) from
// addresses the resource passes and blacklists, then GET /security/resources/{id}/statistics
// checked exactly, by interval and by outcome, and closed to other accounts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engines } from '../support/engines.ts';
import { call, login, bearer } from '../support/http.ts';
import { adminAuth, ask, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';
import { eventually } from '../support/wait.ts';

interface RequestStatistics {
  requests: Record<string, number>;
  total: number;
  outcomes: Record<string, number>;
}

for (const engine of engines()) {
  describe(`request statistics (${engine})`, () => {
    let service: Service;
    let origin: Origin;
    let auth: string;
    let id: number;

    before(async () => {
      [service, origin] = await Promise.all([startService({ engine, env: { EDGEPLANE_STATS_FLUSH: '1', EDGEPLANE_PROXY_WORKERS: '2' } }), startOrigin('A')]);
      auth = await adminAuth(service);
      ({ id } = await createResource(service, auth, { name: 'counted.example', origins: [{ origin_data: origin.address }], blacklists: [{ blacklist_data: '127.0.0.9' }] }));
    });
    after(async () => {
      await Promise.all([service.dispose(), origin.close()]);
    });

    const statistics = async (query: string, caller = auth) => {
      const response = await call(service.url, 'GET', `/security/resources/${String(id)}/statistics?${query}`, { auth: caller });
      assert.equal(response.status, 200, response.text);
      return response.body as RequestStatistics;
    };

    test('each request the proxy ended for the resource counts once, by outcome; other hosts count for no resource', async () => {
      const from = Math.floor(Date.now() / 60_000) * 60;
      const range = `from=${String(from)}&to=${String(from + 3600)}&granularity=1h`;
      for (let i = 0; i < 6; i++) assert.equal((await ask(service, 'counted.example', '/', { localAddress: '127.0.0.1' })).status, 200);
      for (let i = 0; i < 3; i++) assert.equal((await ask(service, 'counted.example', '/', { localAddress: '127.0.0.9' })).status, 403);
      for (let i = 0; i < 2; i++) assert.equal((await ask(service, 'nobody.example')).status, 404);

      const counted = await eventually(async () => {
        const s = await statistics(range);
        return s.total >= 9 ? s : undefined;
      });
      assert.deepEqual(counted, { requests: { [String(from * 1000)]: 9 }, total: 9, outcomes: { blacklist: 3, passed: 6 } });
      assert.deepEqual(await statistics(`${range}&outcome=passed`), { requests: { [String(from * 1000)]: 6 }, total: 6, outcomes: { passed: 6 } });
      // Nothing counted twice once the writes settle (every thread's counters are read at each write).
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal((await statistics(range)).total, 9);
    });

    test('another account does not see it; bad parameters are a 400 naming the field', async () => {
      const created = await call(service.url, 'POST', '/iam/accounts', { auth, body: { email: 'requests-other@example.com', password: 'other password 1' } });
      assert.equal(created.status, 201, created.text);
      const other = bearer((await login(service.url, 'requests-other@example.com', 'other password 1')).access);
      assert.equal((await call(service.url, 'GET', `/security/resources/${String(id)}/statistics`, { auth: other })).status, 404);
      for (const [query, field] of [
        ['outcome=Not-An-Outcome', 'outcome'],
        ['granularity=10s', 'granularity'],
        ['from=5000&to=4000', 'from'],
      ]) {
        const response = await call(service.url, 'GET', `/security/resources/${String(id)}/statistics?${String(query)}`, { auth });
        assert.equal(response.status, 400, query);
        assert.ok(String(field) in ((response.body as { fields?: object }).fields ?? {}), `${String(query)}: ${response.text}`);
      }
      assert.equal((await call(service.url, 'GET', '/security/resources/999999/statistics', { auth })).status, 404);
    });
  });
}
