// Zone webhooks leave through the durable outbox: delivered once received, retried with backoff,
// given up after the last attempt, kept in order per zone, never sent to a refused target.
// Real store on each engine, real HTTP receivers on loopback; "public" targets are only checked.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { startWebhookDelivery, type WebhookDelivery, type WebhookDeliveryOptions } from '../../src/events/webhook-delivery.ts';
import { claimDueWebhooks, enqueueWebhook, type WebhookRow } from '../../src/events/webhook-outbox.ts';
import { checkWebhookTarget, validateWebhookUrl, WebhookTargetError } from '../../src/events/webhook-target.ts';
import { openStore, type Db, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { createPostgresDatabase, engines, type Engine, type TestDatabase } from '../support/engines.ts';

const logger = pino({ level: 'silent' });

interface Received {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A loopback HTTP server; `answer` gives each request's status, or undefined to never answer. */
async function startReceiver(answer: (request: Received, index: number) => number | undefined): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const entry = { path: request.url ?? '', method: request.method ?? '', headers: request.headers, body };
      received.push(entry);
      const status = answer(entry, received.length - 1);
      if (status === undefined) return;
      response.writeHead(status, status >= 300 && status < 400 ? { location: '/moved' } : {}).end('receiver says hi');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function until(what: string, predicate: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function rows(db: Db): Promise<WebhookRow[]> {
  return db.selectFrom('webhook_outbox').selectAll().orderBy('id').execute();
}

async function settled(db: Db, count: number): Promise<WebhookRow[]> {
  let all: WebhookRow[] = [];
  await until(`${count} webhooks are settled`, async () => {
    all = await rows(db);
    return all.length === count && all.every((r) => r.delivered_at !== null || r.failed_at !== null);
  });
  return all;
}

function deliveryIds(received: Received[]): number[] {
  return received.map((r) => Number(r.headers['x-edgeplane-delivery']));
}

for (const engine of engines()) {
  describe(`webhook delivery (${engine})`, () => {
    let store: Store;
    let db: Db;
    let reopen: () => Store;
    let dispose: () => Promise<void>;
    const cleanups: (() => Promise<void>)[] = [];
    let zones = 0;

    beforeEach(async () => {
      ({ store, reopen, dispose } = await freshStore(engine));
      db = store.db;
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      await store.close();
      await dispose();
    });

    function worker(options: Partial<WebhookDeliveryOptions> = {}): WebhookDelivery {
      const started = startWebhookDelivery({ db, logger, allowPrivate: true, pollIntervalMs: 20, backoffBaseMs: 10, ...options });
      cleanups.push(() => started.stop());
      return started;
    }

    async function receiver(answer: (request: Received, index: number) => number | undefined = () => 200): Promise<Receiver> {
      const started = await startReceiver(answer);
      cleanups.push(() => started.close());
      return started;
    }

    async function zone(): Promise<number> {
      zones += 1;
      const now = new Date().toISOString();
      const account = await db
        .insertInto('accounts')
        .values({ name: `a${zones}`, email: `a${zones}@example.com`, operator: 0, created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const created = await db
        .insertInto('zones')
        .values({
          account_id: account.id, name: `zone${zones}.example.`, contact: 'hostmaster.example.', primary_server: 'ns1.example.',
          serial: 1, refresh: 3600, retry: 600, expiry: 86400, nx_ttl: 300, enabled: 1, dnssec_enabled: 0, meta: '{}', created_at: now, updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return created.id;
    }

    test('delivers the exact JSON payload with the method and headers', async () => {
      const target = await receiver();
      const zoneId = await zone();
      const payload = { created: [{ name: 'www', type: 'A', ttl: 60, records: [{ content: ['192.0.2.1'] }] }], updated: [], deleted: [] };
      await enqueueWebhook(db, { zoneId, url: `${target.url}/hook?key=k`, method: 'PUT', payload });
      worker();
      const [row] = await settled(db, 1);
      assert.ok(row?.delivered_at);
      assert.equal(row.failed_at, null);
      assert.equal(row.attempts, 1);
      assert.equal(target.received.length, 1);
      const [request] = target.received;
      assert.equal(request?.method, 'PUT');
      assert.equal(request.path, '/hook?key=k');
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['user-agent'], 'edgeplane-webhook');
      assert.equal(request.headers['x-edgeplane-delivery'], String(row.id));
      assert.equal(request.body, JSON.stringify(payload));
      assert.deepEqual(JSON.parse(request.body), payload);
    });

    test('a host name is reached through the addresses that were checked', async () => {
      const target = await receiver();
      const { port } = new URL(target.url);
      await enqueueWebhook(db, { zoneId: await zone(), url: `http://localhost:${port}/named`, method: 'POST', payload: {} });
      worker();
      const [row] = await settled(db, 1);
      assert.ok(row?.delivered_at, row?.last_error ?? undefined);
      assert.equal(target.received[0]?.headers.host, `localhost:${port}`);
    });

    test('GET and HEAD carry no body, DELETE does', async () => {
      const target = await receiver();
      const zoneId = await zone();
      for (const method of ['GET', 'HEAD', 'DELETE']) await enqueueWebhook(db, { zoneId, url: target.url, method, payload: { method } });
      worker();
      await settled(db, 3);
      assert.deepEqual(target.received.map((r) => [r.method, r.body, r.headers['content-type']]), [
        ['GET', '', undefined],
        ['HEAD', '', undefined],
        ['DELETE', '{"method":"DELETE"}', 'application/json'],
      ]);
    });

    test('a 500 is retried with the same delivery id until a 2xx', async () => {
      const target = await receiver((_request, index) => (index === 0 ? 500 : 204));
      await enqueueWebhook(db, { zoneId: await zone(), url: target.url, method: 'POST', payload: { n: 1 } });
      worker();
      const [row] = await settled(db, 1);
      assert.ok(row?.delivered_at);
      assert.equal(row.attempts, 2);
      assert.equal(row.last_error, 'HTTP 500');
      assert.deepEqual(deliveryIds(target.received), [row.id, row.id]);
      assert.equal(target.received[1]?.body, '{"n":1}');
    });

    test('a receiver that never answers times out and the failure is recorded', async () => {
      const target = await receiver(() => undefined);
      await enqueueWebhook(db, { zoneId: await zone(), url: target.url, method: 'POST', payload: {} });
      worker({ timeoutMs: 150, maxAttempts: 1 });
      const [row] = await settled(db, 1);
      assert.ok(row?.failed_at);
      assert.equal(row.delivered_at, null);
      assert.match(row.last_error ?? '', /no response within 150 ms/);
      assert.equal(target.received.length, 1);
    });

    test('gives up after maxAttempts', async () => {
      const target = await receiver(() => 500);
      await enqueueWebhook(db, { zoneId: await zone(), url: target.url, method: 'POST', payload: {} });
      worker({ maxAttempts: 3 });
      const [row] = await settled(db, 1);
      assert.ok(row?.failed_at);
      assert.equal(row.delivered_at, null);
      assert.equal(row.attempts, 3);
      assert.equal(row.last_error, 'HTTP 500');
      assert.equal(target.received.length, 3);
      // Given up means given up: nothing more is sent.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(target.received.length, 3);
    });

    test('a redirect is not followed and counts as a failure', async () => {
      const target = await receiver((request) => (request.path === '/moved' ? 200 : 302));
      await enqueueWebhook(db, { zoneId: await zone(), url: target.url, method: 'POST', payload: {} });
      worker({ maxAttempts: 1 });
      const [row] = await settled(db, 1);
      assert.ok(row?.failed_at);
      assert.match(row.last_error ?? '', /HTTP 302.*redirects are not followed/);
      assert.deepEqual(target.received.map((r) => r.path), ['/']);
    });

    test('pending and abandoned rows survive a restart', async () => {
      const target = await receiver();
      const first = worker();
      await first.stop();
      const pendingZone = await zone();
      const abandonedZone = await zone();
      await enqueueWebhook(db, { zoneId: pendingZone, url: `${target.url}/pending`, method: 'POST', payload: {} });
      await enqueueWebhook(db, { zoneId: abandonedZone, url: `${target.url}/abandoned`, method: 'POST', payload: {} });
      // A worker that died after claiming the second row: its short lease runs out.
      const now = Date.now();
      const claimed = await claimDueWebhooks(db, {
        now: new Date(now).toISOString(), leaseUntil: new Date(now + 300).toISOString(), limit: 2,
      });
      assert.equal(claimed.length, 2);
      await db.updateTable('webhook_outbox').set({ next_attempt_at: new Date(now).toISOString(), attempts: 0 }).where('url', 'like', '%/pending').execute();
      assert.equal(target.received.length, 0);

      await store.close();
      store = reopen();
      db = store.db;
      worker();
      const [pending, abandoned] = await settled(db, 2);
      assert.ok(pending?.delivered_at);
      assert.ok(abandoned?.delivered_at);
      assert.equal(abandoned.attempts, 2, 'the abandoned attempt counts');
      assert.ok(Date.parse(abandoned.delivered_at) >= now + 300, 'not before the lease ran out');
      assert.deepEqual(target.received.map((r) => r.path).sort(), ['/abandoned', '/pending']);
    });

    test('a loopback target is refused without sending unless private targets are allowed', async () => {
      const target = await receiver();
      await enqueueWebhook(db, { zoneId: await zone(), url: target.url, method: 'POST', payload: {} });
      const strict = worker({ allowPrivate: false });
      const [refused] = await settled(db, 1);
      await strict.stop();
      assert.ok(refused?.failed_at);
      assert.equal(refused.attempts, 1, 'refused for good at the first attempt');
      assert.match(refused.last_error ?? '', /127\.0\.0\.1 is a loopback address/);
      assert.equal(target.received.length, 0);

      await enqueueWebhook(db, { zoneId: await zone(), url: target.url, method: 'POST', payload: {} });
      worker({ allowPrivate: true });
      const [, allowed] = await settled(db, 2);
      assert.ok(allowed?.delivered_at);
      assert.equal(target.received.length, 1);
    });

    test("a zone's webhooks arrive in order; a failing zone does not hold up another", async () => {
      let zoneAFailures = 2;
      const log: string[] = [];
      const target = await receiver((request) => {
        log.push(`${request.path}:${String(request.headers['x-edgeplane-delivery'])}`);
        if (request.path === '/a' && zoneAFailures > 0) {
          zoneAFailures -= 1;
          return 503;
        }
        return 200;
      });
      const zoneA = await zone();
      const zoneB = await zone();
      for (const n of [1, 2, 3]) await enqueueWebhook(db, { zoneId: zoneA, url: `${target.url}/a`, method: 'POST', payload: { n } });
      await enqueueWebhook(db, { zoneId: zoneB, url: `${target.url}/b`, method: 'POST', payload: { n: 4 } });
      worker({ backoffBaseMs: 100 });
      const [a1, a2, a3, b1] = await settled(db, 4);
      assert.deepEqual(
        log.filter((entry) => entry.startsWith('/a')),
        [`/a:${a1?.id}`, `/a:${a1?.id}`, `/a:${a1?.id}`, `/a:${a2?.id}`, `/a:${a3?.id}`],
      );
      assert.ok(log.indexOf(`/b:${b1?.id}`) < log.lastIndexOf(`/a:${a1?.id}`), 'zone B went while zone A was retrying');
      assert.deepEqual(target.received.map((r) => JSON.parse(r.body).n).filter((n) => n !== 4), [1, 1, 1, 2, 3]);
    });

    test('two workers on separate connections deliver each row once, in order per zone', async () => {
      const target = await receiver();
      const zoneIds = [await zone(), await zone(), await zone(), await zone()];
      for (let n = 0; n < 24; n += 1) {
        await enqueueWebhook(db, { zoneId: zoneIds[n % zoneIds.length]!, url: target.url, method: 'POST', payload: { n } });
      }
      const other = reopen();
      cleanups.push(() => other.close());
      const a = worker({ pollIntervalMs: 5 });
      const b = worker({ pollIntervalMs: 5, db: other.db });
      for (let i = 0; i < 20; i += 1) {
        a.wake();
        b.wake();
      }
      const all = await settled(db, 24);
      assert.ok(all.every((r) => r.delivered_at !== null && r.attempts === 1));
      const ids = deliveryIds(target.received);
      assert.equal(ids.length, 24);
      assert.equal(new Set(ids).size, 24, 'no row was delivered twice');
      const zoneOf = new Map(all.map((r) => [r.id, r.zone_id]));
      for (const zoneId of zoneIds) {
        const sequence = ids.filter((id) => zoneOf.get(id) === zoneId);
        assert.deepEqual(sequence, [...sequence].sort((x, y) => x - y));
      }
    });
  });
}

describe('webhook targets', () => {
  const refused: [string, RegExp][] = [
    ['http://127.0.0.1/', /loopback/],
    ['http://10.1.2.3/', /private/],
    ['http://172.16.0.1/', /private/],
    ['http://192.168.1.1/', /private/],
    ['http://[::1]/', /loopback/],
    ['http://169.254.1.1/', /linkLocal/],
    ['http://[fe80::1]/', /linkLocal/],
    ['http://100.64.0.1/', /carrierGradeNat/],
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://[::ffff:10.0.0.1]/', /private/],
    ['http://[fc00::1]/', /uniqueLocal/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://[::]/', /unspecified/],
    ['http://224.0.0.1/', /multicast/],
    ['http://255.255.255.255/', /broadcast/],
    ['http://[64:ff9b::a01:203]/', /NAT64-embedded private/],
    // IPv4-compatible (deprecated): the URL parser writes it ::7f00:1, which ipaddr.js calls unicast.
    ['http://[::127.0.0.1]/', /deprecated IPv4-compatible/],
    ['http://[::8.8.8.8]/', /deprecated IPv4-compatible/],
    ['http://[::1:0:0:1]/', /non-global IPv6/],
    // Shorthand literals are normalised by the URL parser before the check.
    ['http://2130706433/', /loopback/],
    ['http://0x7f.1/', /loopback/],
    // A name is resolved, here from the hosts file, and its addresses checked.
    ['http://localhost:8080/', /localhost resolves to .* loopback/],
  ];
  for (const [url, reason] of refused) {
    test(`refuses ${url}`, async () => {
      await assert.rejects(checkWebhookTarget(url, false), (error: unknown) => {
        assert.ok(error instanceof WebhookTargetError);
        assert.match(error.message, reason);
        return true;
      });
    });
  }

  test('accepts public addresses, and private ones when allowed', async () => {
    assert.deepEqual(await checkWebhookTarget('https://93.184.216.34/hook', false), [{ address: '93.184.216.34', family: 4 }]);
    await checkWebhookTarget('http://[2606:2800:220:1:248:1893:25c8:1946]:8443/', false);
    await checkWebhookTarget('http://[64:ff9b::5db8:d822]/', false);
    await checkWebhookTarget('http://127.0.0.1:9/', true);
    await checkWebhookTarget('http://10.1.2.3/', true);
  });

  test('refuses other schemes and credentials, even when private targets are allowed', async () => {
    for (const url of ['ftp://x/', 'http://user:pw@example.com/', 'file:///etc/passwd', 'not a url']) {
      await assert.rejects(checkWebhookTarget(url, true), WebhookTargetError);
    }
  });

  test('validateWebhookUrl explains what is wrong without touching the network', () => {
    assert.equal(validateWebhookUrl('https://hooks.example.com/zone?token=t'), undefined);
    assert.equal(validateWebhookUrl('http://93.184.216.34:8080/'), undefined);
    assert.match(validateWebhookUrl('ftp://x') ?? '', /scheme ftp is not allowed/);
    assert.match(validateWebhookUrl('http://user:pw@host/') ?? '', /credentials/);
    assert.match(validateWebhookUrl('http://user@host/') ?? '', /credentials/);
    assert.match(validateWebhookUrl('example.com/hook') ?? '', /absolute http/);
    assert.match(validateWebhookUrl('') ?? '', /absolute http/);
  });
});

async function freshStore(engine: Engine): Promise<{ store: Store; reopen: () => Store; dispose: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-webhooks-'));
  const database: TestDatabase | undefined = engine === 'postgres' ? await createPostgresDatabase() : undefined;
  const config = { dataDir, databaseUrl: database?.url };
  const store = openStore(config);
  await migrateToLatest(store);
  return {
    store,
    reopen: () => openStore(config),
    dispose: async () => {
      if (database !== undefined) {
        await closedEverywhere(database.url);
        await database.drop();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * pg's Pool.end() resolves before its connections have closed; dropping the database then would
 * kill them and surface as an uncaught error. Waits until the server has let them all go.
 */
async function closedEverywhere(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await until('the test database has no other connections', async () => {
      const result = await client.query<{ count: number }>(
        'select count(*)::int as count from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      return result.rows[0]?.count === 0;
    });
  } finally {
    await client.end();
  }
}
