// Where the proxy runs: several threads of one process, a proxy-only node beside an API-only node on
// one store, and ownership moving with zones. Every change is served at the next request, by every
// thread and (PostgreSQL NOTIFY) every node; a host falling inside another account's zone stops
// being served for the resource that lost it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminAuth, ask, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';

/** Asks on `count` new connections at once: with several threads the kernel spreads them. */
async function askMany(service: Service, host: string, count: number): Promise<string[]> {
  return Promise.all(Array.from({ length: count }, () => ask(service, host).then((a) => `${String(a.status)} ${a.body}`)));
}

for (const engine of engines()) {
  describe(`proxy threads and nodes (${engine})`, () => {
    let origins: Origin[];
    before(async () => {
      origins = await Promise.all(['one', 'two'].map((name) => startOrigin(name)));
    });
    after(async () => {
      await Promise.all(origins.map((o) => o.close()));
    });

    test('every proxy thread serves a change at the next request', async () => {
      const service = await startService({ engine, env: { EDGEPLANE_PROXY_WORKERS: '3' } });
      try {
        const auth = await adminAuth(service);
        const created = await createResource(service, auth, { name: 'threads.example', origins: [{ origin_data: origins[0]?.address }] });
        assert.deepEqual(new Set(await askMany(service, 'threads.example', 30)), new Set(['200 one']));
        for (const [round, origin] of [origins[1], origins[0], origins[1]].entries()) {
          const put = await call(service.url, 'PUT', `/security/resources/${String(created.id)}`, {
            auth,
            body: { name: 'threads.example', origins: [{ origin_data: origin?.address }] },
          });
          assert.equal(put.status, 200);
          const name = origin === origins[0] ? 'one' : 'two';
          assert.deepEqual(new Set(await askMany(service, 'threads.example', 30)), new Set([`200 ${name}`]), `round ${String(round)}`);
        }
        const metrics = await (await fetch(`${service.url}/metrics`)).text();
        const served = [...metrics.matchAll(/^edgeplane_proxy_requests_total\{resource="(\d+)",outcome="passed"\} (\d+)$/gm)];
        assert.equal(served.reduce((sum, m) => sum + Number(m[2]), 0), 120, 'every thread counts into /metrics');
      } finally {
        await service.dispose();
      }
    });

    test('a proxy-only node serves what an API-only node writes', async (t) => {
      const apiNode = await startService({ engine, env: { EDGEPLANE_ROLES: 'api' } });
      const proxyNode = await apiNode.sibling({ EDGEPLANE_ROLES: 'proxy' });
      t.after(async () => {
        await proxyNode.dispose();
        await apiNode.dispose();
      });
      assert.equal(apiNode.proxyHttpPort, 0);
      const auth = await adminAuth(apiNode);
      const created = await createResource(apiNode, auth, { name: 'nodes.example', origins: [{ origin_data: origins[0]?.address }] });
      // PostgreSQL tells the other node at commit; on SQLite it reads the store within 5 s.
      const started = Date.now();
      let answer = await ask(proxyNode, 'nodes.example');
      while (answer.status !== 200 && Date.now() - started < 8000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answer = await ask(proxyNode, 'nodes.example');
      }
      assert.equal(answer.body, 'one');
      if (engine === 'postgres') assert.ok(Date.now() - started < 2000, `NOTIFY reached the proxy node after ${String(Date.now() - started)} ms`);
      const put = await call(apiNode.url, 'PUT', `/security/resources/${String(created.id)}`, { auth, body: { name: 'nodes.example', origins: [{ origin_data: origins[1]?.address }] } });
      assert.equal(put.status, 200);
      const changed = Date.now();
      while ((await ask(proxyNode, 'nodes.example')).body !== 'two') {
        assert.ok(Date.now() - changed < 8000, 'the proxy node follows the change');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });

    test('a host inside a zone another account creates is no longer served for the resource that held it', async () => {
      const service = await startService({ engine });
      try {
        const operator = await adminAuth(service);
        const account = async (email: string) => {
          const created = await call(service.url, 'POST', '/iam/accounts', { auth: operator, body: { email, password: 'account password 1' } });
          assert.equal(created.status, 201, created.text);
          return bearer((await login(service.url, email, 'account password 1')).access);
        };
        const [squatter, owner] = [await account('squatter@a.test'), await account('owner@b.test')];
        await createResource(service, squatter, { name: 'shop.owned.example', origins: [{ origin_data: origins[0]?.address }] });
        assert.equal((await ask(service, 'shop.owned.example')).body, 'one');
        const zone = await call(service.url, 'POST', '/dns/v2/zones', { auth: owner, body: { name: 'owned.example' } });
        assert.equal(zone.status, 200, zone.text);
        assert.equal((await ask(service, 'shop.owned.example')).status, 404, 'the squatter no longer answers for the owner\'s name');
        await createResource(service, owner, { name: 'shop.owned.example', origins: [{ origin_data: origins[1]?.address }] });
        assert.equal((await ask(service, 'shop.owned.example')).body, 'two');
      } finally {
        await service.dispose();
      }
    });
  });
}
