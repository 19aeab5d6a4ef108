// Separate roles on one store: an API-only process and a DNS-only process (`EDGEPLANE_ROLES`), as
// several nodes run. The DNS node learns of changes from the store itself (PostgreSQL NOTIFY, or the
// periodic zone version check on either engine) and runs its own health checks.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { notifyChannel } from '../../src/events/change-feed.ts';
import { addressesIn, ask } from '../support/dns-client.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

/** Asks until the answer's addresses are `expected` (sorted) or `ms` pass. */
async function until(port: number, name: string, expected: string[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = addressesIn((await ask(port, name, 'A')).packet);
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) assert.deepEqual(seen, expected, `${name} at the DNS node`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const engine of engines()) {
  describe(`an API node and a DNS node on one ${engine} store`, () => {
    let apiNode: Service;
    let dnsNode: Service;
    let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
    const listener = net.createServer((socket) => socket.end());
    let port: number;

    before(async () => {
      port = await new Promise<number>((resolve) => listener.listen(0, '127.0.0.1', () => resolve((listener.address() as net.AddressInfo).port)));
      apiNode = await startService({ engine, env: { EDGEPLANE_ROLES: 'api' } });
      dnsNode = await apiNode.sibling({ EDGEPLANE_ROLES: 'dns', EDGEPLANE_HEALTHCHECK_ALLOW_PRIVATE: '1' });
      const auth = bearer((await login(apiNode.url, adminEmail, adminPassword)).access);
      api = (method, path, body) => call(apiNode.url, method, path, { auth, body });
      assert.equal((await api('POST', '/dns/v2/zones', { name: 'nodes.test' })).status, 200);
    });
    after(async () => {
      await dnsNode.dispose();
      await apiNode.dispose();
      listener.close();
    });

    test('each process serves only its roles', () => {
      assert.equal(apiNode.dnsPort, 0);
      assert.doesNotMatch(apiNode.output(), /DNS listening/);
      assert.equal(dnsNode.url, '');
      assert.match(dnsNode.output(), /DNS listening/);
    });

    test('an RRset written at the API node is served by the DNS node, and its deletion too', async () => {
      const put = await api('PUT', '/dns/v2/zones/nodes.test/www.nodes.test/A', { ttl: 60, resource_records: [{ content: ['192.0.2.10'] }] });
      assert.equal(put.status, 200, put.text);
      // NOTIFY is immediate; the version check that SQLite relies on runs every 2 s.
      await until(dnsNode.dnsPort, 'www.nodes.test', ['192.0.2.10'], 5000);
      assert.equal((await api('DELETE', '/dns/v2/zones/nodes.test/www.nodes.test/A')).status, 200);
      await until(dnsNode.dnsPort, 'www.nodes.test', [], 5000);
      assert.equal((await ask(dnsNode.dnsPort, 'www.nodes.test', 'A')).packet.rcode, 'NXDOMAIN');
    });

    test('a stranger\'s NOTIFY on the change channel, and its listening connections ended by the server, leave the DNS node following changes', { skip: engine === 'postgres' ? false : 'SQLite has no NOTIFY: PostgreSQL only' }, async () => {
      const admin = new pg.Client({ connectionString: dnsNode.env['EDGEPLANE_DATABASE_URL'] });
      await admin.connect();
      try {
        const listening = `select pid from pg_stat_activity where datname = current_database() and query = 'LISTEN ${notifyChannel}'`;
        const before = (await admin.query<{ pid: number }>(listening)).rows.map((r) => r.pid);
        assert.ok(before.length > 0);
        // Anyone who can connect may NOTIFY: neither payload is a change, and neither may stop the node.
        await admin.query(`select pg_notify($1, 'not json'), pg_notify($1, '{"zoneId": "nodes.test"}')`, [notifyChannel]);
        // Heard before the listening sessions are ended: a session ended first would never pass them on.
        await waitFor(() => /a notification that is not JSON; ignored/.test(dnsNode.output()) && /a zone change notification not understood; ignored/.test(dnsNode.output()));
        await admin.query(`select pg_terminate_backend(pid) from (${listening}) as l`);
        const deadline = Date.now() + 10_000;
        for (;;) {
          const now = (await admin.query<{ pid: number }>(listening)).rows.map((r) => r.pid);
          if (now.length === before.length && now.every((pid) => !before.includes(pid))) break;
          if (Date.now() > deadline) assert.fail(`the DNS node's threads did not listen again: ${JSON.stringify({ before, now })}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const put = await api('PUT', '/dns/v2/zones/nodes.test/again.nodes.test/A', { ttl: 60, resource_records: [{ content: ['192.0.2.11'] }] });
        assert.equal(put.status, 200, put.text);
        await until(dnsNode.dnsPort, 'again.nodes.test', ['192.0.2.11'], 5000);
      } finally {
        await admin.end();
      }
    });

    test('a node with both the API and DNS serves another node\'s change from its NOTIFY, and its own as before', { skip: engine === 'postgres' ? false : 'SQLite has no NOTIFY: PostgreSQL only' }, async () => {
      const both = await apiNode.sibling({ EDGEPLANE_ROLES: 'api,dns' });
      try {
        const resyncs = async () => Number(/^edgeplane_dns_zone_resyncs_total (\S+)$/m.exec((await call(both.url, 'GET', '/metrics')).text)?.[1]);
        const before = await resyncs();
        assert.ok(Number.isFinite(before));
        const put = await api('PUT', '/dns/v2/zones/nodes.test/other.nodes.test/A', { ttl: 60, resource_records: [{ content: ['192.0.2.12'] }] });
        assert.equal(put.status, 200, put.text);
        await until(both.dnsPort, 'other.nodes.test', ['192.0.2.12'], 5000);
        // Found by the periodic check (every 2 s) instead, it would count as a resync.
        assert.equal(await resyncs(), before, both.output().split('\n').filter((l) => /periodic|notification|listen/i.test(l)).join('\n'));
        const auth = bearer((await login(both.url, adminEmail, adminPassword)).access);
        const own = await call(both.url, 'PUT', '/dns/v2/zones/nodes.test/own.nodes.test/A', { auth, body: { ttl: 60, resource_records: [{ content: ['192.0.2.13'] }] } });
        assert.equal(own.status, 200, own.text);
        // Its own change is served when the API answers; the DNS-only node hears of it by NOTIFY.
        assert.deepEqual(addressesIn((await ask(both.dnsPort, 'own.nodes.test', 'A')).packet), ['192.0.2.13']);
        await until(dnsNode.dnsPort, 'own.nodes.test', ['192.0.2.13'], 5000);
        assert.equal(await resyncs(), before);
      } finally {
        await both.dispose();
      }
    });

    test('the DNS node runs the health checks it reads from the store', async () => {
      const body = {
        ttl: 60,
        meta: { failover: { protocol: 'TCP', port, frequency: 10, timeout: 1 } },
        pickers: [{ type: 'healthcheck' }],
        resource_records: [{ content: ['127.0.0.1'] }, { content: ['127.0.0.2'] }],
      };
      assert.equal((await api('PUT', '/dns/v2/zones/nodes.test/hc.nodes.test/A', body)).status, 200);
      // It re-reads its checks when it applies the change: at once on PostgreSQL, within 2 s on SQLite.
      await until(dnsNode.dnsPort, 'hc.nodes.test', ['127.0.0.1'], 5000);
    });
  });
}
