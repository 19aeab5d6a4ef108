// Managed certificates against Debian's pebble, on both stores: the manager orders through the one
// ACME account, a real proxy thread answers the HTTP-01 challenges from the policies the change path
// hands it, the certificate lands in the resource's row and is served by SNI; renewal, backoff after
// a failure (with a certificate for the names that passed), one issuer at a time across managers.
import assert from 'node:assert/strict';
import { randomBytes, X509Certificate } from 'node:crypto';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import packet from 'dns-packet';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { Principal } from '../../../src/accounts/principal.ts';
import { loadConfig } from '../../../src/config.ts';
import { sealer as makeSealer } from '../../../src/crypto/sealed.ts';
import { ChangeFeed, type ResourceChange } from '../../../src/events/change-feed.ts';
import type { SecurityContext } from '../../../src/security/context.ts';
import { loadPolicies } from '../../../src/security/proxy/policy-loader.ts';
import { proxySettings } from '../../../src/security/proxy/proxy-role.ts';
import { startProxyServer, type ProxyServer } from '../../../src/security/proxy/proxy-server.ts';
import { createAcmeManager, type AcmeManager, type AcmeTiming } from '../../../src/security/proxy/tls/acme-manager.ts';
import { createResource, getResource, replaceResource } from '../../../src/security/resources.ts';
import { insertAccount } from '../../../src/store/accounts.ts';
import { listAcmeAttempts } from '../../../src/store/acme.ts';
import { openStore, type Store } from '../../../src/store/database.ts';
import { migrateToLatest } from '../../../src/store/migrate.ts';
import { createPostgresDatabase, engines, type TestDatabase } from '../../support/engines.ts';
import { pebbleMissing, pebbleSite, type Pebble, type PebbleSite } from '../../support/pebble.ts';
import { handshake } from '../../support/tls-probe.ts';
import { loadGeoData } from '../../../src/geo/geoip.ts';

/** A DNS server for pebble: every name is 127.0.0.1, except names starting with `nowhere.` (NXDOMAIN). */
async function loopbackDns(): Promise<{ port: number; close(): void }> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (message, peer) => {
    const query = packet.decode(message);
    const question = query.questions?.[0];
    const exists = question !== undefined && !question.name.startsWith('nowhere.');
    const answers = exists && question.type === 'A' ? [{ type: 'A' as const, name: question.name, ttl: 1, data: '127.0.0.1' }] : [];
    const reply = packet.encode({ id: query.id, type: 'response', flags: packet.AUTHORITATIVE_ANSWER | (exists ? 0 : 3), questions: query.questions, answers });
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, close: () => socket.close() };
}

const missing = pebbleMissing();

for (const engine of engines()) {
  describe(`managed certificates through ACME (${engine})`, { skip: missing }, () => {
    const logger = pino({ level: 'silent' });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-acme-'));
    const sealer = makeSealer(randomBytes(32));
    let database: TestDatabase | undefined;
    let store: Store;
    let proxy: ProxyServer;
    let dns: { port: number; close(): void };
    let site: PebbleSite;
    let pebble: Pebble;
    let ctx: SecurityContext;
    let caller: Principal;
    const managers: AcmeManager[] = [];

    /** What the proxy role does with a change: re-read the resource and hand it to its threads. */
    const publish = async (change: ResourceChange) => {
      const policies = await loadPolicies(store.db, sealer, [change.resourceId]);
      await proxy.apply({ policies, gone: policies.length === 0 ? [change.resourceId] : [], full: false });
    };
    const manager = (timing: Partial<AcmeTiming> = {}): AcmeManager => {
      const made = createAcmeManager({
        store,
        sealer,
        logger,
        directory: { url: site.directory, email: 'ops@example.com', ca: fs.readFileSync(site.caFile, 'utf8'), pollMs: { min: 50, max: 500 } },
        loadPolicies: (ids) => loadPolicies(store.db, sealer, ids),
        publish,
        timing: { backoffBaseMs: 60_000, ...timing },
      });
      managers.push(made);
      return made;
    };
    /** One look by a manager that then stops, giving the issuing lease up as a node shutting down does. */
    const checkOnce = async (timing: Partial<AcmeTiming> = {}) => {
      const once = manager(timing);
      await once.check();
      await once.stop();
    };
    const resourceRow = (id: number) => store.db.selectFrom('resources').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    before(async () => {
      database = engine === 'postgres' ? await createPostgresDatabase() : undefined;
      store = openStore({ dataDir, databaseUrl: database?.url });
      await migrateToLatest(store);
      const account = await insertAccount(store.db, { name: 'acme', email: 'acme@example.com', operator: false });
      caller = { accountId: account.id, userId: 0, role: 'Administrators', operator: false, tokenId: undefined };
      ctx = { store, config: { publicIpv4: '127.0.0.1', publicIpv6: undefined, wafMode: 'block' }, sealer, changes: new ChangeFeed<ResourceChange>(() => undefined) };
      ctx.changes.subscribe(publish);
      proxy = await startProxyServer({
        httpListen: { host: '127.0.0.1', port: 0 },
        httpsListen: { host: '127.0.0.1', port: 0 },
        settings: { ...proxySettings(loadConfig({})), allowPrivateOrigins: true, redisUrl: undefined },
        cookieSecret: randomBytes(32),
        ticketKeys: randomBytes(48),
        geo: await loadGeoData({}),
        policies: [],
        logger,
        metrics: new Registry(),
      });
      dns = await loopbackDns();
      site = await pebbleSite();
      pebble = await site.start({ httpPort: proxy.httpPort, dnsPort: dns.port });
    });
    after(async () => {
      for (const m of managers) await m.stop();
      await pebble.stop();
      site.remove();
      dns.close();
      await proxy.stop();
      await store.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    const create = (name: string, aliases: string[], extra: Record<string, unknown> = {}) =>
      createResource(ctx, caller, { name, aliases: aliases.map((a) => ({ alias_data: a })), origins: [{ origin_data: '127.0.0.1:9' }], ssl_type: 'le', ...extra });

    test('a resource with ssl_type "le" gets a certificate for its name and aliases, served by SNI with its chain; renewal replaces it', async () => {
      const resource = await create('shop.acme.example', ['www.shop.acme.example']);
      assert.equal(resource.service_ssl_expire, 0);
      const issuedBefore = pebble.issued();
      await checkOnce();
      assert.equal(pebble.issued(), issuedBefore + 1);

      const row = await resourceRow(resource.id);
      assert.equal(row.ssl_type, 'le');
      assert.ok(row.ssl_crt !== null && row.ssl_key_sealed !== null);
      const leaf = new X509Certificate(row.ssl_crt);
      assert.equal(row.ssl_expire, Math.floor(leaf.validToDate.getTime() / 1000));
      assert.equal(leaf.subjectAltName, 'DNS:shop.acme.example, DNS:www.shop.acme.example');
      assert.equal(await listAcmeAttempts(store.db).then((a) => a.length), 0);

      // The API shows the expiry for the name and the aliases the certificate covers.
      const view = (await getResource(ctx, caller, resource.id)) as unknown as { service_ssl_expire: number; aliases: { alias_ssl_expire: number }[] };
      assert.equal(view.service_ssl_expire, row.ssl_expire);
      assert.deepEqual(view.aliases.map((a) => a.alias_ssl_expire), [row.ssl_expire]);

      // Served by SNI for both names, verified against pebble's root: the intermediate comes from us.
      const root = await pebble.root();
      for (const servername of ['shop.acme.example', 'www.shop.acme.example']) {
        const got = await handshake(proxy.httpsPort, { servername, ca: root, rejectUnauthorized: true });
        assert.equal(got.leaf.fingerprint256, leaf.fingerprint256, servername);
      }
      // Nothing to do while it is fresh, even after a client PUTs the resource back as it read it.
      await replaceResource(ctx, caller, resource.id, { name: 'shop.acme.example', aliases: [{ alias_data: 'www.shop.acme.example' }], origins: [{ origin_data: '127.0.0.1:9' }], ssl_type: 'le' });
      assert.equal((await resourceRow(resource.id)).ssl_crt, row.ssl_crt, 'ssl_type "le" again keeps the issued certificate');
      await checkOnce();
      assert.equal(pebble.issued(), issuedBefore + 1);

      // Renewal: with a window longer than its lifetime, the certificate is due at once.
      await checkOnce({ renewBeforeSeconds: 10 * 365 * 86_400 });
      assert.equal(pebble.issued(), issuedBefore + 2);
      const renewed = new X509Certificate((await resourceRow(resource.id)).ssl_crt ?? '');
      assert.notEqual(renewed.serialNumber, leaf.serialNumber);
      const got = await handshake(proxy.httpsPort, { servername: 'shop.acme.example', ca: root, rejectUnauthorized: true });
      assert.equal(got.leaf.serialNumber, renewed.serialNumber, 'the renewed certificate is served at the next handshake');
    });

    test('a name that fails validation: the names that passed get a certificate, the resource backs off, a changed set of names is tried at once', async () => {
      const resource = await create('blog.acme.example', ['nowhere.blog.acme.example']);
      const issuedBefore = pebble.issued();
      await checkOnce();
      const [attempt] = (await listAcmeAttempts(store.db)).filter((a) => a.resource_id === resource.id);
      assert.ok(attempt !== undefined, 'the failure is stored');
      assert.equal(attempt.failures, 1);
      assert.equal(attempt.hosts, 'blog.acme.example nowhere.blog.acme.example');
      assert.match(attempt.error, /nowhere\.blog\.acme\.example/);
      assert.ok(Date.parse(attempt.retry_at) > Date.now() + 50_000, 'the next try waits for the backoff');
      assert.equal(pebble.issued(), issuedBefore + 1, 'one certificate: for the name that passed');
      const leaf = new X509Certificate((await resourceRow(resource.id)).ssl_crt ?? '');
      assert.equal(leaf.subjectAltName, 'DNS:blog.acme.example');

      // Within the backoff nothing is ordered, whichever manager looks.
      const orders = (pebble.output().match(/POST \/order-plz/g) ?? []).length;
      await checkOnce();
      assert.equal((pebble.output().match(/POST \/order-plz/g) ?? []).length, orders);

      // Turning managed certificates off and on again retries at once.
      const body = { name: 'blog.acme.example', aliases: [{ alias_data: 'nowhere.blog.acme.example' }], origins: [{ origin_data: '127.0.0.1:9' }] };
      await replaceResource(ctx, caller, resource.id, { ...body, ssl_type: '' });
      await replaceResource(ctx, caller, resource.id, { ...body, ssl_type: 'le' });
      assert.equal((await listAcmeAttempts(store.db)).filter((a) => a.resource_id === resource.id).length, 0);

      // The owner fixes the alias: a new set of names is not held back by the old one's backoff.
      await replaceResource(ctx, caller, resource.id, { name: 'blog.acme.example', aliases: [{ alias_data: 'm.blog.acme.example' }], origins: [{ origin_data: '127.0.0.1:9' }] });
      await checkOnce();
      const fixed = new X509Certificate((await resourceRow(resource.id)).ssl_crt ?? '');
      assert.equal(fixed.subjectAltName, 'DNS:blog.acme.example, DNS:m.blog.acme.example');
      assert.equal((await listAcmeAttempts(store.db)).filter((a) => a.resource_id === resource.id).length, 0);
    });

    test('two managers (two nodes) looking at once: one issues, once', async () => {
      await create('pair.acme.example', []);
      const issuedBefore = pebble.issued();
      const [first, second] = [manager(), manager()];
      await Promise.all([first.check(), second.check()]);
      await Promise.all([first.stop(), second.stop()]);
      assert.equal(pebble.issued(), issuedBefore + 1);
    });

    test('a disabled resource and a custom-certificate resource are left alone; challenge answers are gone after the order', async () => {
      const issuedBefore = pebble.issued();
      await create('off.acme.example', [], { service_enable: 0 });
      await createResource(ctx, caller, { name: 'plain.acme.example', origins: [{ origin_data: '127.0.0.1:9' }] });
      await checkOnce();
      assert.equal(pebble.issued(), issuedBefore);
      const pending = await store.db.selectFrom('acme_challenges').selectAll().execute();
      assert.deepEqual(pending, []);
      for (const policy of await loadPolicies(store.db, sealer)) assert.equal(policy.acmeChallenges, undefined);
    });
  });
}
