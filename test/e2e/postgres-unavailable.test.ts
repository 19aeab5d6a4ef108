// PostgreSQL lost or out of reach, as an API node sees it through a link that fails on purpose
// (cut-link.ts): a connection lost inside a transaction before its COMMIT stored nothing, and the
// API says so (503 store_unavailable, Retry-After) rather than 500; a server out of reach answers
// the same within EDGEPLANE_DATABASE_WAIT instead of holding every request until the operating
// system gives up; a connection that goes silent under a statement (its answer lost, or the server
// gone) answers the same within the wait and a look from another connection (pg-watchdog.ts), while
// a long statement is left to run; and the node serves again once the server is back. (A COMMIT lost
// on its way: test/dns/commit-outcome-unknown.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../src/store/database.ts';
import { StoreUnavailable } from '../../src/store/errors.ts';
import { assertError } from '../support/assertions.ts';
import { cutLink, type CutLink } from '../support/cut-link.ts';
import { engines } from '../support/engines.ts';
import { waitFor } from '../support/wait.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const postgres = engines().includes('postgres');

describe('PostgreSQL lost or out of reach, over HTTP', { skip: postgres ? false : 'PostgreSQL only: EDGEPLANE_TEST_DATABASE_URL is not set' }, () => {
  let service: Service;
  let node: Service;
  let link: CutLink;
  let auth: string;

  before(async () => {
    service = await startService({ engine: 'postgres', env: { EDGEPLANE_ROLES: 'api' } });
    const url = new URL(service.env['EDGEPLANE_DATABASE_URL'] ?? '');
    link = await cutLink({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(link.port);
    node = await service.sibling({ EDGEPLANE_DATABASE_URL: url.toString(), EDGEPLANE_DATABASE_WAIT: '500ms' });
    auth = bearer((await login(node.url, adminEmail, adminPassword)).access);
  });
  after(async () => {
    await node.dispose();
    await link.close();
    await service.dispose();
  });

  test('a connection lost inside a transaction, before its COMMIT: 503 store_unavailable, nothing stored; sent again, it is', async () => {
    const cut = link.arm((chunk) => chunk.includes('insert into "zones"'));
    const created = await call(node.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'lost-before-commit.test' } });
    await cut;
    assertError(created, 503, 'store_unavailable');
    assert.equal(created.headers.get('retry-after'), '1');
    assert.match((created.body as { error: string }).error, /nothing was stored/);
    assert.equal((await call(node.url, 'GET', '/dns/v2/zones/lost-before-commit.test', { auth })).status, 404);
    assert.equal((await call(node.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'lost-before-commit.test' } })).status, 200);
    assert.equal((await call(node.url, 'GET', '/dns/v2/zones/lost-before-commit.test', { auth })).status, 200);
  });

  test('a read whose connection is lost: 503 store_unavailable', async () => {
    const cut = link.arm((chunk) => chunk.includes('from "zones"'));
    const read = await call(node.url, 'GET', '/dns/v2/zones', { auth });
    await cut;
    assertError(read, 503, 'store_unavailable');
    assert.equal((await call(node.url, 'GET', '/dns/v2/zones', { auth })).status, 200);
  });

  test('out of reach: reads and writes answer 503 store_unavailable within the wait, and are served again once it is back', { timeout: 15_000 }, async () => {
    link.down();
    try {
      // More requests than the pool has connections: none waits past EDGEPLANE_DATABASE_WAIT.
      const started = Date.now();
      const answers = await Promise.all([
        ...Array.from({ length: 12 }, () => call(node.url, 'GET', '/dns/v2/zones', { auth })),
        call(node.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'while-down.test' } }),
      ]);
      const took = Date.now() - started;
      for (const answer of answers) assertError(answer, 503, 'store_unavailable');
      assert.ok(took < 3000, `answered after ${String(took)} ms`);
    } finally {
      link.up();
    }
    assert.equal((await call(node.url, 'GET', '/dns/v2/zones/while-down.test', { auth })).status, 404);
    assert.equal((await call(node.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'while-down.test' } })).status, 200);
  });

  test('a connection silenced under a transaction, the server still there: 503 store_unavailable within the wait; the server ends the session, so the name it held is free', { timeout: 15_000 }, async () => {
    const silenced = link.silence((chunk) => chunk.includes('insert into "zones"'));
    const started = Date.now();
    const created = await call(node.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'silenced.test' } });
    const took = Date.now() - started;
    await silenced;
    assertError(created, 503, 'store_unavailable');
    assert.ok(took < 3000, `answered after ${String(took)} ms`);
    // The node's log comes through a pipe: its line may arrive after the answer it came before.
    const ended = /"why":"its session on the server is not running it".*went unanswered/;
    await waitFor(() => ended.test(node.output()), 3000).catch(() => undefined);
    assert.match(node.output(), ended);
    // Its insert, uncommitted, held the name's unique key: were the session still there, this one would wait on it.
    assert.equal((await call(node.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'silenced.test' } })).status, 200);
  });

  test('a connection silenced under a read, the server then out of reach: 503 store_unavailable within the wait; served again once it is back', { timeout: 15_000 }, async () => {
    const silenced = link.silence((chunk) => chunk.includes('from "zones"'));
    void silenced.then(() => link.hold());
    try {
      const started = Date.now();
      const read = await call(node.url, 'GET', '/dns/v2/zones', { auth });
      const took = Date.now() - started;
      assertError(read, 503, 'store_unavailable');
      assert.ok(took < 3000, `answered after ${String(took)} ms`);
      const ended = /"why":"PostgreSQL cannot be reached".*went unanswered/;
      await waitFor(() => ended.test(node.output()), 3000).catch(() => undefined);
      assert.match(node.output(), ended);
    } finally {
      link.up();
    }
    assert.equal((await call(node.url, 'GET', '/dns/v2/zones', { auth })).status, 200);
  });

  test('a statement that runs longer than the wait is left to run: the server is found running it', { timeout: 15_000 }, async () => {
    const store = openStore({ dataDir: '', databaseUrl: service.env['EDGEPLANE_DATABASE_URL'], databaseWaitMs: 200 });
    try {
      const slept = await sql<{ done: number }>`select 1 as done from pg_sleep(1.2)`.execute(store.db);
      assert.deepEqual(slept.rows, [{ done: 1 }]);
    } finally {
      await store.close();
    }
  });

  test('a new connection silenced before its session was read, the server then out of reach: its statement fails within the wait', { timeout: 15_000 }, async () => {
    const url = new URL(service.env['EDGEPLANE_DATABASE_URL'] ?? '');
    url.hostname = '127.0.0.1';
    url.port = String(link.port);
    const store = openStore({ dataDir: '', databaseUrl: url.toString(), databaseWaitMs: 300 });
    // The store's first connection reads its session first (pg-watchdog.ts): that is what goes silent.
    const silenced = link.silence((chunk) => chunk.includes('pg_backend_pid()'));
    void silenced.then(() => link.hold());
    try {
      const started = Date.now();
      await assert.rejects(sql`select 1 as one`.execute(store.db), (e: unknown) => e instanceof StoreUnavailable);
      assert.ok(Date.now() - started < 3000, `failed after ${String(Date.now() - started)} ms`);
    } finally {
      link.up();
      await store.close();
    }
  });
});
