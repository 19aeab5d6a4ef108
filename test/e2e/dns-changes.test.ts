// What a committed DNS change sets in motion: serials that never collide under concurrent writers,
// the change feed, zone webhooks (delivered, retried, surviving a restart, stopped with their zone,
// refused to private addresses by default), and a DS that an independent DNSSEC implementation agrees with.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { assertError } from '../support/assertions.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);

interface Delivery {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: { created: { name: string; type: string }[]; updated: { name: string }[]; deleted: { name: string }[] };
}

/** A local webhook receiver; `failures` first requests answer 500, until heal(). */
async function receiver(failures = 0, port = 0) {
  const deliveries: Delivery[] = [];
  let failuresLeft = failures;
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      deliveries.push({ method: request.method ?? '', headers: request.headers, body: JSON.parse(text) as Delivery['body'] });
      response.statusCode = failuresLeft-- > 0 ? 500 : 204;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    port: address.port,
    deliveries,
    heal: () => (failuresLeft = 0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

for (const engine of engines()) {
  describe(`DNS changes (${engine})`, () => {
    let service: Service;
    let auth: string;
    const dns = (method: string, path: string, body?: unknown) => call(service.url, method, path, { auth, body, contentType: 'application/json' });
    before(async () => {
      service = await startService({ engine, env: { EDGEPLANE_WEBHOOK_ALLOW_PRIVATE: '1' } });
      auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    });
    after(() => service.dispose());

    test('64 concurrent PUTs of different RRsets of one zone all land, each with its own serial', async () => {
      assert.equal((await dns('POST', '/dns/v2/zones', { name: 'busy.example' })).status, 200);
      const before = (await dns('GET', '/dns/v2/zones/busy.example')).body.Zone.serial as number;
      const results = await Promise.all(
        Array.from({ length: 64 }, (_, i) => dns('PUT', `/dns/v2/zones/busy.example/host${i}/A`, { ttl: 60, resource_records: [{ content: [`192.0.2.${i}`] }] })),
      );
      assert.deepEqual(results.map((r) => r.status), Array.from({ length: 64 }, () => 200));
      const zone = (await dns('GET', '/dns/v2/zones/busy.example')).body.Zone;
      assert.equal(zone.serial, before + 64, 'one serial per committed change, none reused');
      const listed = await dns('GET', '/dns/v2/zones/busy.example/rrsets?type=A');
      assert.equal(listed.body.total_amount, 64);
      assert.deepEqual(
        listed.body.rrsets.map((r: { resource_records: { content: string[] }[] }) => r.resource_records[0]?.content[0]).sort(),
        Array.from({ length: 64 }, (_, i) => `192.0.2.${i}`).sort(),
      );
    });

    test('every committed change is announced with the new serial (PostgreSQL NOTIFY to other nodes)', { skip: engine !== 'postgres' && 'the SQLite feed is in-process; the DNS server consumes it' }, async () => {
      const client = new pg.Client({ connectionString: service.env['EDGEPLANE_DATABASE_URL'] });
      await client.connect();
      try {
        const heard: { zone: string; serial: number; names?: string[]; written?: unknown }[] = [];
        client.on('notification', (n) => heard.push(JSON.parse(n.payload ?? '{}') as { zone: string; serial: number }));
        await client.query('LISTEN edgeplane_zone_changes');
        await dns('POST', '/dns/v2/zones', { name: 'feed.example' });
        await dns('PUT', '/dns/v2/zones/feed.example/www/A', { resource_records: [{ content: ['192.0.2.1'] }] });
        // A refused write changes nothing and announces nothing.
        assertError(await dns('PUT', '/dns/v2/zones/feed.example/www/A', { resource_records: [{ content: ['not-an-ip'] }] }), 400);
        await dns('PATCH', '/dns/v2/zones/feed.example/disable');
        const serial = (await dns('GET', '/dns/v2/zones/feed.example')).body.Zone.serial as number;
        await waitFor(() => heard.filter((h) => h.zone === 'feed.example').length >= 3);
        const serials = heard.filter((h) => h.zone === 'feed.example').map((h) => h.serial);
        assert.equal(serials.length, 3);
        assert.equal(serials[2], serial);
        assert.equal(serials[1], serial - 1);
        // The RRset change names its name; the rows it wrote go to this process's DNS threads only.
        const put = heard.filter((h) => h.zone === 'feed.example')[1];
        assert.deepEqual([put?.names, put?.written], [['www.feed.example'], undefined]);
      } finally {
        await client.end();
      }
    });

    test('a zone webhook receives {created, updated, deleted} with its method, and is retried after a failure', async () => {
      const hook = await receiver(1);
      try {
        await dns('POST', '/dns/v2/zones', { name: 'hooked.example', meta: JSON.stringify({ webhook: hook.url, webhook_method: 'put' }) });
        await dns('PUT', '/dns/v2/zones/hooked.example/www/A', { resource_records: [{ content: ['192.0.2.7'] }] });
        // The first attempt got a 500; the retry follows after a short backoff.
        await waitFor(() => hook.deliveries.length >= 2);
        const [first, second] = hook.deliveries as [Delivery, Delivery];
        assert.equal(second.method, 'PUT');
        assert.deepEqual(second.body, first.body);
        assert.equal(second.headers['x-edgeplane-delivery'], first.headers['x-edgeplane-delivery']);
        assert.deepEqual(second.body.created.map((r) => [r.name, r.type]), [['www.hooked.example', 'A']]);
        assert.deepEqual([second.body.updated, second.body.deleted], [[], []]);

        await dns('PUT', '/dns/v2/zones/hooked.example/www/A', { resource_records: [{ content: ['192.0.2.8'] }] });
        await dns('DELETE', '/dns/v2/zones/hooked.example/www/A');
        await waitFor(() => hook.deliveries.length >= 4);
        assert.deepEqual(hook.deliveries[2]?.body.updated.map((r) => r.name), ['www.hooked.example']);
        assert.deepEqual(hook.deliveries[3]?.body.deleted.map((r) => r.name), ['www.hooked.example']);
      } finally {
        await hook.close();
      }
    });

    test('a webhook that could not be delivered is delivered after a restart', async () => {
      // kill -9 needs a process of its own.
      let killed = await startService({ engine, env: { EDGEPLANE_WEBHOOK_ALLOW_PRIVATE: '1' }, process: true });
      try {
        const killedAuth = bearer((await login(killed.url, adminEmail, adminPassword)).access);
        const api = (method: string, path: string, body?: unknown) => call(killed.url, method, path, { auth: killedAuth, body, contentType: 'application/json' });
        // Reserve a port, then close it: the first attempt is refused.
        const probe = await receiver();
        const port = probe.port;
        await probe.close();
        await api('POST', '/dns/v2/zones', { name: 'restart.example', meta: { webhook: `http://127.0.0.1:${port}/hook` } });
        await api('PUT', '/dns/v2/zones/restart.example/www/TXT', { resource_records: [{ content: ['survives'] }] });
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(await killed.stop('SIGKILL'), 'SIGKILL');
        const hook = await receiver(0, port);
        try {
          killed = await killed.restart();
          await waitFor(() => hook.deliveries.length >= 1);
          assert.deepEqual(hook.deliveries[0]?.body.created.map((r) => r.name), ['www.restart.example']);
        } finally {
          await hook.close();
        }
      } finally {
        await killed.dispose();
      }
    });

    test("a deleted zone's pending webhooks stop", async () => {
      const hook = await receiver(Number.POSITIVE_INFINITY);
      try {
        await dns('POST', '/dns/v2/zones', { name: 'gone.example', meta: { webhook: hook.url } });
        await dns('PUT', '/dns/v2/zones/gone.example/www/A', { resource_records: [{ content: ['192.0.2.9'] }] });
        // The first attempt got a 500: a retry is pending.
        await waitFor(() => hook.deliveries.length >= 1);
        assert.equal((await dns('DELETE', '/dns/v2/zones/gone.example')).status, 200);
        hook.heal();
        // An attempt already on its way when the zone went is not recalled.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const seen = hook.deliveries.length;
        // Retries follow after 0.5-1 s, then 1-2 s: without the stop, one would arrive in this time.
        await new Promise((resolve) => setTimeout(resolve, 4000));
        assert.equal(hook.deliveries.length, seen);
      } finally {
        await hook.close();
      }
    });

    test('webhook URLs are validated at write time', async () => {
      const bad = await dns('POST', '/dns/v2/zones', { name: 'badhook.example', meta: { webhook: 'ftp://example.com/x' } });
      assertError(bad, 400, 'invalid_input');
      assert.ok('meta.webhook' in bad.body.fields);
      assertError(await dns('POST', '/dns/v2/zones', { name: 'badhook.example', meta: { webhook: 'https://example.com/', webhook_method: 'TRACE' } }), 400);
      assertError(await dns('POST', '/dns/v2/zones', { name: 'badhook.example', meta: '{not json' }), 400);
      assertError(await dns('GET', '/dns/v2/zones/badhook.example'), 404);
    });

    test('the DS the API returns is the one an independent implementation derives from the DNSKEY', async (t) => {
      const tool = await run('sh', ['-c', 'command -v ldns-key2ds']).catch(() => undefined);
      if (tool === undefined) {
        if (process.env['CI'] !== undefined) assert.fail('ldns-key2ds (Debian ldnsutils) is required in CI; .ci/run installs it');
        t.skip('ldns-key2ds (Debian ldnsutils) is not installed');
        return;
      }
      await dns('POST', '/dns/v2/zones', { name: 'signed.example' });
      const key = (await dns('PATCH', '/dns/v2/zones/signed.example/dnssec', { enabled: true })).body;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-ds-'));
      try {
        const file = path.join(dir, 'Ksigned.example.key');
        fs.writeFileSync(file, `signed.example. 3600 IN DNSKEY ${key.flags} 3 ${key.algorithm} ${key.public_key}\n`);
        await run('ldns-key2ds', ['-n', '-2', file], { cwd: dir }).then(({ stdout }) => {
          const fieldsOf = (ds: string) => ds.trim().split(/\s+/).slice(-4).join(' ').toUpperCase();
          assert.equal(fieldsOf(stdout), fieldsOf(key.ds));
          assert.match(key.ds, new RegExp(`^signed\\.example\\. 3600 IN DS ${key.key_tag} 13 2 ${key.digest}$`));
        });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe(`webhooks to private addresses (${engine})`, () => {
    test('are refused when the zone is written unless EDGEPLANE_WEBHOOK_ALLOW_PRIVATE=1', async () => {
      const service = await startService({ engine });
      try {
        const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
        const dns = (method: string, path: string, body?: unknown) => call(service.url, method, path, { auth, body });
        const refused: [string, RegExp][] = [
          ['http://127.0.0.1:9/hook', /loopback/],
          ['http://[::127.0.0.1]/hook', /IPv4-compatible/],
          ['http://[::ffff:10.0.0.1]/hook', /private/],
          ['http://[64:ff9b::a00:1]/hook', /NAT64-embedded private/],
          // A name is resolved (here from the hosts file) and its addresses checked.
          ['http://localhost:9/hook', /localhost resolves to .* loopback/],
        ];
        for (const [webhook, reason] of refused) {
          for (const meta of [{ webhook }, JSON.stringify({ webhook })]) {
            const created = await dns('POST', '/dns/v2/zones', { name: 'private.example', meta });
            assertError(created, 400, 'invalid_input');
            assert.match(created.body.fields['meta.webhook'], reason);
          }
        }
        assertError(await dns('GET', '/dns/v2/zones/private.example'), 404, 'not_found');
        assert.equal((await dns('POST', '/dns/v2/zones', { name: 'private.example' })).status, 200);
        const updated = await dns('PUT', '/dns/v2/zones/private.example', { meta: { webhook: 'http://[::127.0.0.1]/hook' } });
        assertError(updated, 400, 'invalid_input');
        assert.deepEqual((await dns('GET', '/dns/v2/zones/private.example')).body.Zone.meta, {});
        // A public address is accepted; nothing connects to it when the zone is written.
        assert.equal((await dns('PUT', '/dns/v2/zones/private.example', { meta: { webhook: 'https://93.184.216.34/hook' } })).status, 200);
      } finally {
        await service.dispose();
      }
    });
  });
}
