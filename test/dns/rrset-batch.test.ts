// RRset writes of one zone that arrive together are committed together (src/dns/rrset-batch.ts),
// against a real store (SQLite file, PostgreSQL database), through the RRset use cases: each write
// gets its own answer and serial step, a refused one fails alone, an error of another kind reaches
// only its own write, and a DNS thread fed the changes, the store and the zone journal all end up
// with every write, in order.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Principal } from '../../src/accounts/principal.ts';
import { sealer } from '../../src/crypto/sealed.ts';
import { commitRrsetWrite } from '../../src/dns/rrset-batch.ts';
import { deleteRrset, getRrset, writeRrset } from '../../src/dns/rrsets.ts';
import { ServedZones } from '../../src/dns/server/served-zones.ts';
import { rrsetOf } from '../../src/dns/server/zone-view.ts';
import { createZone } from '../../src/dns/zones.ts';
import { ApiError } from '../../src/errors.ts';
import type { ZoneChange } from '../../src/events/change-feed.ts';
import type { Store } from '../../src/store/database.ts';
import { zoneRrsets } from '../../src/store/rrsets.ts';
import { journalChain } from '../../src/store/zone-journal.ts';
import { engines } from '../support/engines.ts';
import { dnsStoreSecret, openDnsStore, type DnsStore } from '../support/dns-store.ts';

const aType = 1;

for (const engine of engines()) {
  describe(`RRset writes committed together (${engine})`, () => {
    let fixture: DnsStore;
    let store: Store;
    let ctx: DnsStore['ctx'];
    let caller: Principal;
    const published: ZoneChange[] = [];
    const put = (zone: string, name: string, address: string, mode: 'create' | 'upsert' = 'upsert') =>
      writeRrset(ctx, caller, { zone, name, type: 'A' }, { ttl: 60, resource_records: [{ content: [address] }] }, mode);
    const zoneRow = (name: string) => store.db.selectFrom('zones').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
    const addresses = async (zone: string, name: string) => {
      const rrset = await getRrset(ctx, caller, zone, name, 'A').catch(() => undefined);
      return rrset?.resource_records.map((r) => r.content[0]);
    };

    before(async () => {
      fixture = await openDnsStore(engine, published);
      ({ store, ctx, caller } = fixture);
    });
    after(() => fixture.close());

    test('concurrent writes: each its own answer, refused ones alone, all served and journaled in order', async () => {
      await createZone(ctx, caller, { name: 'batch.test' });
      await put('batch.test', 'taken.batch.test', '192.0.2.1');
      const zone = await zoneRow('batch.test');
      const served = new ServedZones(store.db, sealer(dnsStoreSecret));
      await served.loadAll();
      published.length = 0;

      const outcomes = await Promise.allSettled([
        ...Array.from({ length: 10 }, (_, i) => put('batch.test', `h${String(i)}.batch.test`, `198.51.100.${String(i + 1)}`)),
        put('batch.test', 'taken.batch.test', '192.0.2.9', 'create'),
        deleteRrset(ctx, caller, 'batch.test', 'missing.batch.test', 'A'),
        // Two writes of one name in one batch: the second sees the first's and wins.
        put('batch.test', 'twice.batch.test', '203.0.113.1', 'create'),
        put('batch.test', 'twice.batch.test', '203.0.113.2'),
        deleteRrset(ctx, caller, 'batch.test', 'h0.batch.test', 'A'),
      ]);
      const statuses = outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : o.reason instanceof ApiError ? o.reason.status : String(o.reason)));
      assert.deepEqual(statuses, [...Array(10).fill('ok'), 409, 404, 'ok', 'ok', 'ok']);
      const second = outcomes[1];
      const answer = second.status === 'fulfilled' ? (second.value as Awaited<ReturnType<typeof put>>) : undefined;
      assert.equal(answer?.resource_records[0]?.content[0], '198.51.100.2');

      // All of them reached the queue in one turn of the event loop: one commit.
      assert.equal(published.length, 1);
      for (const [i, change] of published.entries()) {
        assert.equal(change.previous, i === 0 ? zone.version : published[i - 1]?.version);
        assert.equal(await served.apply(change), true);
      }
      const view = (name: string) => {
        const rdata = rrsetOf(served.get('batch.test')?.node(name), aType)?.rdata;
        return rdata === undefined ? undefined : (typeof rdata === 'string' ? [rdata] : [...rdata]).map((r) => Buffer.from(r, 'latin1').join('.'));
      };
      assert.deepEqual([view('h0.batch.test'), view('h1.batch.test'), view('twice.batch.test'), view('taken.batch.test')], [undefined, ['198.51.100.2'], ['203.0.113.2'], ['192.0.2.1']]);
      assert.deepEqual([await addresses('batch.test', 'h0'), await addresses('batch.test', 'h9'), await addresses('batch.test', 'twice')], [undefined, ['198.51.100.10'], ['203.0.113.2']]);

      // One serial step per write that changed something, and the journal leads from the serial
      // before to the last, one entry per commit.
      const last = published.at(-1);
      assert.ok(last !== undefined);
      assert.equal(last.serial, (await zoneRow('batch.test')).serial);
      assert.equal(last.serial, zone.serial + 13);
      const chain = await journalChain(store.db, zone.id, zone.serial, last.serial, last.version);
      assert.equal(chain?.length, published.length);
      const added = chain.flatMap((entry) => (JSON.parse(entry.added) as [string, number][]).filter(([, type]) => type === aType).map(([name]) => name));
      const removed = chain.flatMap((entry) => (JSON.parse(entry.removed) as [string, number][]).filter(([, type]) => type === aType).map(([name]) => name));
      // h0 was added and deleted within one commit or across two; twice.batch.test ends with one record.
      assert.equal(added.filter((n) => n === 'h5.batch.test').length, 1);
      assert.equal(added.filter((n) => n === 'twice.batch.test').length - removed.filter((n) => n === 'twice.batch.test').length, 1);
      assert.equal(added.filter((n) => n === 'h0.batch.test').length, removed.filter((n) => n === 'h0.batch.test').length);
      assert.ok(!added.includes('taken.batch.test') && !removed.includes('missing.batch.test'));
    });

    test('the RRsets handed to the DNS threads are the rows as stored, ids included', async () => {
      await createZone(ctx, caller, { name: 'rows.test' });
      const write = (name: string, count: number, first: number) =>
        writeRrset(ctx, caller, { zone: 'rows.test', name, type: 'A' }, { ttl: 60, resource_records: Array.from({ length: count }, (_, i) => ({ content: [`192.0.2.${String(first + i)}`] })) }, 'upsert');
      await Promise.all([write('a.rows.test', 2, 1), write('b.rows.test', 1, 10)]);
      published.length = 0;
      // Records replaced with more, with fewer, an RRset created, a TXT beside them: one batch.
      await Promise.all([
        write('a.rows.test', 3, 20),
        write('b.rows.test', 0, 0).catch(() => undefined),
        write('c.rows.test', 4, 30),
        writeRrset(ctx, caller, { zone: 'rows.test', name: 'd.rows.test', type: 'TXT' }, { ttl: 60, resource_records: [{ content: ['one'] }, { content: ['two'] }] }, 'upsert'),
      ]);
      const handed = published.flatMap((change) => change.written?.rrsets ?? []);
      assert.ok(handed.length >= 3);
      const stored = await zoneRrsets(store.db, (await zoneRow('rows.test')).id);
      // As plain values: SQLite's rows are objects without a prototype.
      const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
      for (const rrset of handed) assert.deepEqual(plain(rrset), plain(stored.find((r) => r.id === rrset.id)), `${rrset.name} ${rrset.type}`);
    });

    test('a batch waits for the writes that reach it over the next turns of the event loop, then commits', async () => {
      await createZone(ctx, caller, { name: 'turns.test' });
      const zone = await zoneRow('turns.test');
      published.length = 0;
      // Like requests read in the turns after the first one's: each turn brings one more write.
      const later = new Promise<unknown[]>((resolve) => {
        setImmediate(() => {
          const second = put('turns.test', 'b.turns.test', '192.0.2.2');
          setImmediate(() => resolve([second, put('turns.test', 'c.turns.test', '192.0.2.3')]));
        });
      });
      const first = put('turns.test', 'a.turns.test', '192.0.2.1');
      await Promise.all([first, ...(await later)]);
      const [batch] = published;
      assert.equal(published.length, 1);
      assert.deepEqual(batch?.names?.toSorted(), ['a.turns.test', 'b.turns.test', 'c.turns.test']);
      assert.equal(batch.serial, zone.serial + 3);

      // A lone write commits on its own, after the batch before it.
      await put('turns.test', 'd.turns.test', '192.0.2.4');
      const [, lone] = published;
      assert.equal(published.length, 2);
      assert.equal(lone?.previous, batch.version);
      assert.deepEqual(lone.names, ['d.turns.test']);
    });

    test('an error other than a refusal rolls the batch back, and only its own write fails', async () => {
      await createZone(ctx, caller, { name: 'broken.test' });
      const write = (name: string, fail: boolean) =>
        commitRrsetWrite(ctx, { name: 'broken.test', accountId: caller.accountId }, [name], (_zone, here) => {
          const data = { name, type: 'A', ttl: 60, meta: '{}', pickers: null, healthcheck: 0, records: [{ content: '["192.0.2.7"]', enabled: 1, meta: '{}' }] };
          return {
            write: { upsert: data, existing: here.find((r) => r.type === 'A') },
            outcome: (rrset) => {
              // After the batch's RRsets are written: only a rollback of the whole batch undoes them.
              if (fail || rrset === undefined) throw new Error('the store failed');
              return { result: name, changedNames: [name], rrsetsAfter: [...here.filter((r) => r.type !== 'A'), rrset], rrsetChanges: { created: [], updated: [], deleted: [] } };
            },
          };
        });
      const outcomes = await Promise.allSettled([write('a.broken.test', false), write('b.broken.test', false), write('c.broken.test', true), write('d.broken.test', false)]);
      assert.deepEqual(
        outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
        ['a.broken.test', 'b.broken.test', 'the store failed', 'd.broken.test'],
      );
      assert.deepEqual(
        await Promise.all(['a', 'b', 'c', 'd'].map((n) => addresses('broken.test', n))),
        [['192.0.2.7'], ['192.0.2.7'], undefined, ['192.0.2.7']],
      );
    });

    test("a write into another account's zone, or a missing one, fails alone with 404 and writes nothing", async () => {
      await createZone(ctx, caller, { name: 'owned.test' });
      const before = await zoneRow('owned.test');
      const stranger: Principal = { ...caller, accountId: caller.accountId + 1000 };
      const body = { ttl: 60, resource_records: [{ content: ['192.0.2.8'] }] };
      const outcomes = await Promise.allSettled([
        put('owned.test', 'mine.owned.test', '192.0.2.7'),
        writeRrset(ctx, stranger, { zone: 'owned.test', name: 'theirs.owned.test', type: 'A' }, body, 'upsert'),
        deleteRrset(ctx, stranger, 'owned.test', 'mine.owned.test', 'A'),
        put('owned.test', 'mine2.owned.test', '192.0.2.9'),
        put('missing.test', 'x.missing.test', '192.0.2.1'),
      ]);
      const statuses = outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : o.reason instanceof ApiError ? o.reason.status : String(o.reason)));
      assert.deepEqual(statuses, ['ok', 404, 404, 'ok', 404]);
      assert.deepEqual(
        await Promise.all(['mine', 'theirs', 'mine2'].map((n) => addresses('owned.test', n))),
        [['192.0.2.7'], undefined, ['192.0.2.9']],
      );
      assert.equal((await zoneRow('owned.test')).serial, before.serial + 2);
    });
  });
}
