// On PostgreSQL a change can be committed by the server and its answer lost with the connection
// (an ambiguous commit). Such a change must be neither committed again nor reported as refused:
// each write of its batch gets 503 commit_outcome_unknown, and the store holds it once. The link to
// the server goes through a TCP forwarder that drops the answer to one statement and closes the
// connection (test/support/cut-link.ts); each test also shows that the change did reach the store,
// so it cannot pass on a cut that came too early.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isAbortedTransactionError, sql } from 'kysely';
import type { Principal } from '../../src/accounts/principal.ts';
import type { BatchWay, DnsContext } from '../../src/dns/context.ts';
import { getRrset, writeRrset } from '../../src/dns/rrsets.ts';
import { createZone, updateZone } from '../../src/dns/zones.ts';
import { ChangeFeed } from '../../src/events/change-feed.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { CommitOutcomeUnknown, isUniqueViolation } from '../../src/store/errors.ts';
import { journalChain } from '../../src/store/zone-journal.ts';
import { cutLink, type CutLink } from '../support/cut-link.ts';
import { openDnsStore, type DnsStore } from '../support/dns-store.ts';
import { engines } from '../support/engines.ts';
import { assertError } from '../support/assertions.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const unknownOutcome = (e: unknown) => e instanceof CommitOutcomeUnknown;

/** The COMMIT a transaction ends with: a simple query message ('Q', its length, the text and a NUL). */
const commitMessage = Buffer.from([0x51, 0, 0, 0, 11, ...Buffer.from('commit\0')]);
const isCommit = (chunk: Buffer) => chunk.equals(commitMessage);

for (const engine of engines().filter((e) => e === 'postgres')) {
  describe(`a commit whose answer is lost (${engine})`, () => {
    let fixture: DnsStore;
    let store: Store;
    let caller: Principal;
    let link: CutLink;
    let linked: Store;
    let dir: string;
    /** The use cases on the store reached through the link: a node whose network fails. */
    let node: DnsContext;
    const batches: Record<BatchWay, number> = { guarded: 0, unread: 0, locked: 0 };
    const put = (zone: string, name: string, address: string) => writeRrset(node, caller, { zone, name, type: 'A' }, { ttl: 60, resource_records: [{ content: [address] }] }, 'upsert');
    const zoneRow = (name: string) => store.db.selectFrom('zones').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
    const addresses = async (zone: string, name: string) => (await getRrset(fixture.ctx, caller, zone, name, 'A')).resource_records.map((r) => r.content[0]);

    before(async () => {
      fixture = await openDnsStore(engine, []);
      ({ store, caller } = fixture);
      const url = new URL(fixture.databaseUrl ?? '');
      link = await cutLink({ host: url.hostname, port: Number(url.port || 5432) });
      url.hostname = '127.0.0.1';
      url.port = String(link.port);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-cut-link-'));
      // Statements sent with their text each time, so that the cut can pick one out by it.
      linked = openStore({ dataDir: dir, databaseUrl: url.toString(), databasePrepare: false });
      node = { ...fixture.ctx, store: linked, changes: new ChangeFeed(() => undefined), countBatch: (way) => batches[way]++ };
    });
    after(async () => {
      await linked.close();
      await link.close();
      await fixture.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('a guarded statement: the write fails as CommitOutcomeUnknown (503 at the API), is stored once, and is not committed again the locked way', async () => {
      await createZone(fixture.ctx, caller, { name: 'lost.test' });
      await put('lost.test', 'first.lost.test', '192.0.2.1');
      const zone = await zoneRow('lost.test');
      const locked = batches.locked;
      const cut = link.arm((chunk) => chunk.includes('with guard as'));
      await assert.rejects(put('lost.test', 'second.lost.test', '192.0.2.2'), unknownOutcome);
      await cut;
      // The server did commit it, once: one serial step, one journal entry, and no locked retry.
      assert.deepEqual(await addresses('lost.test', 'second'), ['192.0.2.2']);
      const after = await zoneRow('lost.test');
      assert.equal(after.serial, zone.serial + 1);
      assert.equal((await journalChain(store.db, zone.id, zone.serial, after.serial, after.version))?.length, 1);
      assert.equal(batches.locked, locked);
      // The next write goes on a new connection and reads the zone again (nothing kept from the lost one).
      await put('lost.test', 'third.lost.test', '192.0.2.3');
      assert.equal((await zoneRow('lost.test')).serial, zone.serial + 2);
    });

    test('a locked batch: every write fails as CommitOutcomeUnknown and the batch is stored once, not write by write again', async () => {
      await createZone(fixture.ctx, caller, { name: 'locked.test' });
      await put('locked.test', 'a.locked.test', '192.0.2.1');
      const zone = await zoneRow('locked.test');
      const cut = link.arm(isCommit);
      // Two writes at one name: one batch, the locked way.
      const writes = [put('locked.test', 'same.locked.test', '198.51.100.1'), put('locked.test', 'same.locked.test', '198.51.100.2')];
      for (const write of writes) await assert.rejects(write, unknownOutcome);
      await cut;
      assert.deepEqual(await addresses('locked.test', 'same'), ['198.51.100.2']);
      const after = await zoneRow('locked.test');
      assert.equal(after.serial, zone.serial + 2);
      assert.equal((await journalChain(store.db, zone.id, zone.serial, after.serial, after.version))?.length, 1);
    });

    test('any change through the locked transaction: CommitOutcomeUnknown, stored once', async () => {
      await createZone(fixture.ctx, caller, { name: 'fields.test' });
      const zone = await zoneRow('fields.test');
      const cut = link.arm(isCommit);
      await assert.rejects(updateZone(node, caller, 'fields.test', { nx_ttl: 777 }), unknownOutcome);
      await cut;
      const after = await zoneRow('fields.test');
      assert.equal(after.nx_ttl, 777);
      assert.equal(after.serial, zone.serial + 1);
    });

    test('any transaction of the store: a lost COMMIT is CommitOutcomeUnknown; one the server refused, or answered with ROLLBACK, is not', async () => {
      await sql`create table outcome_probe (id integer unique deferrable initially deferred)`.execute(store.db);
      const probes = async () => (await sql<{ id: number }>`select id from outcome_probe order by id`.execute(store.db)).rows.map((r) => r.id);
      const cut = link.arm(isCommit);
      await assert.rejects(linked.db.transaction().execute((tx) => sql`insert into outcome_probe values (1)`.execute(tx)), unknownOutcome);
      await cut;
      assert.deepEqual(await probes(), [1]);
      // The unique check deferred to the COMMIT: the server's own refusal, thrown as it is.
      await assert.rejects(linked.db.transaction().execute((tx) => sql`insert into outcome_probe values (2), (2)`.execute(tx)), (e) => isUniqueViolation(e));
      // A statement failed and the work went on: the COMMIT answers ROLLBACK.
      const failedInside = linked.db.transaction().execute(async (tx) => {
        await sql`insert into outcome_probe values (3)`.execute(tx);
        await sql`select 1/0`.execute(tx).catch(() => undefined);
      });
      await assert.rejects(failedInside, (e) => !(e instanceof CommitOutcomeUnknown) && isAbortedTransactionError(e));
      assert.deepEqual(await probes(), [1]);
    });
  });
}

for (const engine of engines().filter((e) => e === 'postgres')) {
  describe(`a commit whose answer is lost, over HTTP (${engine})`, () => {
    let service: Service;
    let node: Service;
    let link: CutLink;

    before(async () => {
      service = await startService({ engine, env: { EDGEPLANE_ROLES: 'api' } });
      const url = new URL(service.env['EDGEPLANE_DATABASE_URL'] ?? '');
      link = await cutLink({ host: url.hostname, port: Number(url.port || 5432) });
      url.hostname = '127.0.0.1';
      url.port = String(link.port);
      node = await service.sibling({ EDGEPLANE_DATABASE_URL: url.toString(), EDGEPLANE_DATABASE_PREPARE: '0' });
    });
    after(async () => {
      await node.dispose();
      await link.close();
      await service.dispose();
    });

    test('the write answers 503 commit_outcome_unknown, and reading it back shows it stored', async () => {
      const auth = bearer((await login(node.url, adminEmail, adminPassword)).access);
      assert.equal((await call(node.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'http-lost.test' } })).status, 200);
      const cut = link.arm((chunk) => chunk.includes('with guard as'));
      const put = await call(node.url, 'PUT', '/dns/v2/zones/http-lost.test/www.http-lost.test/A', { auth, body: { ttl: 60, resource_records: [{ content: ['192.0.2.7'] }] } });
      await cut;
      assertError(put, 503, 'commit_outcome_unknown');
      assert.match((put.body as { error: string }).error, /may or may not have been stored/);
      const read = await call(node.url, 'GET', '/dns/v2/zones/http-lost.test/www.http-lost.test/A', { auth });
      assert.equal(read.status, 200, read.text);
      assert.deepEqual((read.body as { resource_records: { content: string[] }[] }).resource_records.map((r) => r.content), [['192.0.2.7']]);
    });
  });
}
