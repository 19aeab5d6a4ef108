// On PostgreSQL an RRset batch is first tried as one guarded statement after an unlocked read, or
// with no read when the zone's last batch found its names new (src/store/guarded-change.ts,
// src/dns/rrset-batch.ts): these tests show it is the way taken, that the guard writes nothing once
// another writer changed the zone or a name guessed new holds an RRset, that a wrong guess still
// gives each write the answer a read would have, that writes arriving while batches commit all land
// with a journal that replays exactly, and that two nodes writing one zone at once lose no write and
// no serial step.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Principal } from '../../src/accounts/principal.ts';
import { sealer } from '../../src/crypto/sealed.ts';
import { ApiError } from '../../src/errors.ts';
import type { DnsContext } from '../../src/dns/context.ts';
import { deleteRrset, getRrset, writeRrset } from '../../src/dns/rrsets.ts';
import { createZone, deleteZone, updateZone } from '../../src/dns/zones.ts';
import { ChangeFeed, type ZoneChange } from '../../src/events/change-feed.ts';
import { ServedZones } from '../../src/dns/server/served-zones.ts';
import { rrsetOf } from '../../src/dns/server/zone-view.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { writeGuardedChange } from '../../src/store/guarded-change.ts';
import { readZone } from '../../src/store/zone-change.ts';
import { journalChain } from '../../src/store/zone-journal.ts';
import { dnsStoreSecret, openDnsStore, type DnsStore } from '../support/dns-store.ts';
import { engines } from '../support/engines.ts';

for (const engine of engines().filter((e) => e === 'postgres')) {
  describe(`RRset batches as guarded statements (${engine})`, () => {
    let fixture: DnsStore;
    let store: Store;
    let ctx: DnsContext;
    let caller: Principal;
    const published: ZoneChange[] = [];
    const put = (c: DnsContext, zone: string, name: string, address: string) =>
      writeRrset(c, caller, { zone, name, type: 'A' }, { ttl: 60, resource_records: [{ content: [address] }] }, 'upsert');
    const zoneRow = (name: string) => store.db.selectFrom('zones').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
    const counts = () => ({ ...fixture.batches });

    before(async () => {
      fixture = await openDnsStore(engine, published);
      ({ store, ctx, caller } = fixture);
    });
    after(() => fixture.close());

    test('writes at distinct names commit guarded; two at one name, or a zone with a webhook, the locked way', async () => {
      await createZone(ctx, caller, { name: 'guarded.test' });
      const zone = await zoneRow('guarded.test');
      const start = counts();
      await Promise.all(Array.from({ length: 6 }, (_, i) => put(ctx, 'guarded.test', `h${String(i)}.guarded.test`, `192.0.2.${String(i + 1)}`)));
      assert.deepEqual(counts(), { guarded: start.guarded + 1, unread: start.unread, locked: start.locked });
      const after = await zoneRow('guarded.test');
      assert.equal(after.serial, zone.serial + 6);
      const last = published.at(-1);
      assert.equal(last?.version, after.version);
      assert.equal(last.previous, zone.version);
      assert.deepEqual(last.written?.rrsets.map((r) => [r.name, r.records.map((c) => c.content)]).toSorted(), Array.from({ length: 6 }, (_, i) => [`h${String(i)}.guarded.test`, [`["192.0.2.${String(i + 1)}"]`]]));
      // The rows handed to the DNS threads carry the ids the store gave.
      for (const rrset of last.written.rrsets) assert.ok(rrset.id > 0 && rrset.records.every((r) => r.id > 0 && r.rrset_id === rrset.id));
      const chain = await journalChain(store.db, zone.id, zone.serial, after.serial, after.version);
      assert.equal(chain?.length, 1);
      assert.equal((JSON.parse(chain[0]?.added ?? '[]') as [string, number][]).filter(([, type]) => type === 1).length, 6);

      await Promise.all([put(ctx, 'guarded.test', 'same.guarded.test', '198.51.100.1'), put(ctx, 'guarded.test', 'same.guarded.test', '198.51.100.2')]);
      assert.deepEqual(counts(), { guarded: start.guarded + 1, unread: start.unread, locked: start.locked + 1 });
      assert.deepEqual((await getRrset(ctx, caller, 'guarded.test', 'same', 'A')).resource_records.map((r) => r.content[0]), ['198.51.100.2']);

      await updateZone(ctx, caller, 'guarded.test', { meta: { webhook: 'https://hooks.example.net/dns' } });
      await put(ctx, 'guarded.test', 'hooked.guarded.test', '198.51.100.3');
      assert.deepEqual(counts(), { guarded: start.guarded + 1, unread: start.unread, locked: start.locked + 2 });
      const queued = await store.db.selectFrom('webhook_outbox').selectAll().execute();
      assert.equal(queued.length, 1);
    });

    test('the guard writes nothing once another writer changed the zone, and writes at the version read', async () => {
      await createZone(ctx, caller, { name: 'stale.test' });
      const found = await readZone(store.db, 'stale.test', ['x.stale.test']);
      assert.ok(found !== undefined);
      await put(ctx, 'stale.test', 'other.stale.test', '192.0.2.1');
      const changed = await zoneRow('stale.test');
      const version = async () => (await store.db.selectFrom('zone_version').select('version').executeTakeFirstOrThrow()).version;
      const versionBefore = await version();
      const data = { name: 'x.stale.test', type: 'A', ttl: 60, meta: '{}', pickers: null, healthcheck: 0, records: [{ content: '["192.0.2.9"]', enabled: 1, meta: '{}' }] };
      const at = new Date().toISOString();
      const written = await writeGuardedChange(store.db, { version: found.zone.version, absent: [] }, [{ upsert: data, existing: undefined }], at, {
        zoneId: found.zone.id,
        fields: { serial: found.zone.serial + 1, updated_at: at },
        journal: { clear: true },
        bounds: { versions: 100, bytes: 1 << 20 },
        notice: { channel: 'edgeplane_test_unheard', payload: '{}' },
      });
      assert.equal(written, undefined);
      assert.deepEqual(await zoneRow('stale.test'), changed);
      assert.equal(await version(), versionBefore);
      assert.equal(await store.db.selectFrom('rrsets').select('id').where('name', '=', 'x.stale.test').executeTakeFirst(), undefined);
      assert.ok((await store.db.selectFrom('zone_journal').select('id').where('zone_id', '=', changed.id).execute()).length > 0);

      // Nor at that version, when a name it guesses holds no RRset (unread) does.
      const guessedWrong = await writeGuardedChange(store.db, { version: changed.version, absent: ['x.stale.test', 'other.stale.test'] }, [{ upsert: data, existing: undefined }], at, {
        zoneId: changed.id,
        fields: { serial: changed.serial + 1, updated_at: at },
        journal: { clear: true },
        bounds: { versions: 100, bytes: 1 << 20 },
        notice: { channel: 'edgeplane_test_unheard', payload: '{}' },
      });
      assert.equal(guessedWrong, undefined);
      assert.equal(await version(), versionBefore);

      // At the version it read, the same statement writes.
      const fresh = await writeGuardedChange(store.db, { version: changed.version, absent: ['y.stale.test'] }, [{ upsert: data, existing: undefined }], at, {
        zoneId: changed.id,
        fields: { serial: changed.serial + 1, updated_at: at },
        journal: { clear: true },
        bounds: { versions: 100, bytes: 1 << 20 },
        notice: { channel: 'edgeplane_test_unheard', payload: '{}' },
      });
      assert.equal(fresh?.version, versionBefore + 1);
      assert.deepEqual(fresh.stored.map((r) => r?.records.map((c) => c.content)), [['["192.0.2.9"]']]);
      assert.equal((await zoneRow('stale.test')).serial, changed.serial + 1);
    });

    test('a stream of new names commits unread; a wrong guess gets the answer a read would have given', async () => {
      await createZone(ctx, caller, { name: 'unread.test' });
      const zone = await zoneRow('unread.test');
      const start = counts();
      const since = (way: keyof typeof start) => counts()[way] - start[way];
      // The first batch reads; it finds its name new, so the next ones are planned unread.
      for (let i = 0; i < 5; i++) await put(ctx, 'unread.test', `u${String(i)}.unread.test`, `192.0.2.${String(i + 1)}`);
      assert.deepEqual([since('guarded'), since('unread'), since('locked')], [1, 4, 0]);
      const after = await zoneRow('unread.test');
      assert.equal(after.serial, zone.serial + 5);
      const last = published.at(-1);
      assert.equal(last?.version, after.version);
      assert.equal(last.written?.zone.serial, after.serial);
      assert.equal(last.written.zone.version, after.version);
      assert.equal((await journalChain(store.db, zone.id, zone.serial, after.serial, after.version))?.length, 5);

      // u0 holds the A RRset this process wrote: planned on it, unread, the upsert replaces it.
      await put(ctx, 'unread.test', 'u0.unread.test', '198.51.100.10');
      assert.deepEqual((await getRrset(ctx, caller, 'unread.test', 'u0', 'A')).resource_records.map((r) => r.content[0]), ['198.51.100.10']);
      assert.deepEqual([since('guarded'), since('unread')], [1, 5]);
      // A CNAME beside it is refused as it would be on a read.
      await put(ctx, 'unread.test', 'u5.unread.test', '192.0.2.6');
      const cname = writeRrset(ctx, caller, { zone: 'unread.test', name: 'u1', type: 'CNAME' }, { ttl: 60, resource_records: [{ content: ['target.example.'] }] }, 'upsert');
      await assert.rejects(cname, (e) => e instanceof ApiError && e.status === 409);
      // A delete the guess would refuse (nothing there) deletes.
      await put(ctx, 'unread.test', 'u6.unread.test', '192.0.2.7');
      await deleteRrset(ctx, caller, 'unread.test', 'u2', 'A');
      await assert.rejects(getRrset(ctx, caller, 'unread.test', 'u2', 'A'), (e) => e instanceof ApiError && e.status === 404);

      // Another node creates a name this one guesses new: a create there conflicts.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-second-node-'));
      const second = openStore({ dataDir: dir, databaseUrl: fixture.databaseUrl });
      const other: DnsContext = { ...ctx, store: second, changes: new ChangeFeed(() => undefined), countBatch: () => undefined };
      try {
        await put(ctx, 'unread.test', 'u7.unread.test', '192.0.2.8');
        await put(other, 'unread.test', 'taken.unread.test', '198.51.100.1');
        const create = writeRrset(ctx, caller, { zone: 'unread.test', name: 'taken', type: 'A' }, { ttl: 60, resource_records: [{ content: ['198.51.100.2'] }] }, 'create');
        await assert.rejects(create, (e) => e instanceof ApiError && e.status === 409);
      } finally {
        await second.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }

      // A zone update on the locked way: the next write is planned on the row it left, not on the one kept.
      await put(ctx, 'unread.test', 'u8.unread.test', '192.0.2.9');
      await updateZone(ctx, caller, 'unread.test', { nx_ttl: 1234 });
      await put(ctx, 'unread.test', 'u9.unread.test', '192.0.2.10');
      assert.equal(published.at(-1)?.written?.zone.nx_ttl, 1234);
      assert.equal((await zoneRow('unread.test')).nx_ttl, 1234);

      // The zone deleted and made again: the write lands in the new zone.
      await put(ctx, 'unread.test', 'u10.unread.test', '192.0.2.11');
      await deleteZone(ctx, caller, 'unread.test');
      await createZone(ctx, caller, { name: 'unread.test' });
      const again = await zoneRow('unread.test');
      await put(ctx, 'unread.test', 'u11.unread.test', '192.0.2.12');
      const rows = await store.db.selectFrom('rrsets').select(['zone_id', 'name']).where('zone_id', '=', again.id).where('type', '=', 'A').execute();
      assert.deepEqual(rows.map((r) => r.name), ['u11.unread.test']);
      assert.equal((await zoneRow('unread.test')).serial, again.serial + 1);
      assert.equal(since('locked'), 0);
    });

    test('rewrites of the names this process wrote commit unread; another node\'s write to one of them is not lost', async () => {
      await createZone(ctx, caller, { name: 'rewrite.test' });
      const start = counts();
      const since = (way: keyof typeof start) => counts()[way] - start[way];
      const names = ['r0', 'r1', 'r2', 'r3'];
      const content = async (name: string) => (await getRrset(ctx, caller, 'rewrite.test', name, 'A')).resource_records.map((r) => r.content[0]);
      for (const name of names) await put(ctx, 'rewrite.test', `${name}.rewrite.test`, '192.0.2.1');
      // The first batch read; the rest, new names and then rewrites of them, were planned unread.
      for (let round = 2; round <= 4; round++) await Promise.all(names.map((name) => put(ctx, 'rewrite.test', `${name}.rewrite.test`, `192.0.2.${String(round)}`)));
      assert.equal(since('guarded'), 1);
      assert.equal(since('locked'), 0);
      for (const name of names) assert.deepEqual(await content(name), ['192.0.2.4']);
      const zone = await zoneRow('rewrite.test');
      // Journaled unbroken: from the zone's first serial to its last (one entry per batch, at least one per round).
      const chain = await journalChain(store.db, zone.id, zone.serial - 4 * names.length, zone.serial, zone.version);
      assert.ok(chain !== undefined && chain.length >= names.length + 3, `journal chain: ${String(chain?.length)}`);

      // This node deletes r0, another creates it again. This node's delete of r0, planned on what it
      // knew (nothing there), would be refused with nothing to write: it reads, and deletes.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-second-node-'));
      const second = openStore({ dataDir: dir, databaseUrl: fixture.databaseUrl });
      const other: DnsContext = { ...ctx, store: second, changes: new ChangeFeed(() => undefined), countBatch: () => undefined };
      try {
        await deleteRrset(ctx, caller, 'rewrite.test', 'r0', 'A');
        await put(other, 'rewrite.test', 'r0.rewrite.test', '198.51.100.1');
        await deleteRrset(ctx, caller, 'rewrite.test', 'r0', 'A');
        await assert.rejects(getRrset(ctx, caller, 'rewrite.test', 'r0', 'A'), (e) => e instanceof ApiError && e.status === 404);
        // And a rewrite of another name after the other node's write: the guard sees the zone moved on.
        await put(other, 'rewrite.test', 'r2.rewrite.test', '198.51.100.2');
        const guarded = since('guarded');
        await put(ctx, 'rewrite.test', 'r3.rewrite.test', '192.0.2.5');
        assert.equal(since('guarded'), guarded + 1);
        assert.deepEqual(await content('r2'), ['198.51.100.2']);
        assert.deepEqual(await content('r3'), ['192.0.2.5']);
        // The zone as the DNS threads were told: r2 as the other node left it is not overwritten by what this one knew.
        const last = published.at(-1);
        assert.deepEqual(last?.written?.rrsets.map((r) => r.name), ['r3.rewrite.test']);
      } finally {
        await second.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
      assert.equal(since('locked'), 0);
    });

    test('writes arriving while batches commit: every write lands, in order, and the journal replays exactly', async () => {
      await createZone(ctx, caller, { name: 'stream.test' });
      const zone = await zoneRow('stream.test');
      const served = new ServedZones(store.db, sealer(dnsStoreSecret));
      await served.loadAll();
      published.length = 0;
      const start = counts();
      // Six clients, each writing soon after its last write is answered, each write at the next of six
      // names: batches of one to six writes, some with two writes at one name (the locked way).
      const rounds = 12;
      await Promise.all(
        Array.from({ length: 6 }, async (_, c) => {
          for (let i = 0; i < rounds; i++) {
            // As over a network: each client's next write comes a little later than the others'.
            await new Promise((resolve) => setTimeout(resolve, (c * 7 + i * 3) % 4));
            await put(ctx, 'stream.test', `s${String((c + i) % 6)}.stream.test`, `198.51.100.${String(c * rounds + i + 1)}`);
          }
        }),
      );
      const after = await zoneRow('stream.test');
      assert.equal(after.serial, zone.serial + 6 * rounds);
      assert.equal(fixture.batches.guarded + fixture.batches.unread + fixture.batches.locked - start.guarded - start.unread - start.locked, published.length);
      // Each change follows the one before it, and applying them in turn gives what the store holds.
      for (const [i, change] of published.entries()) {
        assert.equal(change.previous, i === 0 ? zone.version : published[i - 1]?.version);
        assert.equal(await served.apply(change), true);
      }
      assert.equal(published.at(-1)?.version, after.version);
      assert.equal(published.at(-1)?.serial, after.serial);
      const chain = await journalChain(store.db, zone.id, zone.serial, after.serial, after.version);
      assert.equal(chain?.length, published.length);
      // Replayed in turn, the journal removes only what is there and ends where the store does.
      const records = new Set<string>();
      const aRecords = (text: string) => (JSON.parse(text) as [string, number, number, string][]).filter(([, type]) => type === 1).map(([name, , , rdata]) => `${name} ${Buffer.from(rdata, 'base64').join('.')}`);
      for (const entry of chain) {
        for (const record of aRecords(entry.removed)) assert.ok(records.delete(record), `the journal removes ${record}, which is not there`);
        for (const record of aRecords(entry.added)) records.add(record);
      }
      for (let n = 0; n < 6; n++) {
        const stored = (await getRrset(ctx, caller, 'stream.test', `s${String(n)}`, 'A')).resource_records.map((r) => `s${String(n)}.stream.test ${String(r.content[0])}`);
        assert.deepEqual([...records].filter((r) => r.startsWith(`s${String(n)}.`)), stored);
      }
      for (let n = 0; n < 6; n++) {
        const stored = (await getRrset(ctx, caller, 'stream.test', `s${String(n)}`, 'A')).resource_records.map((r) => r.content[0]);
        const rdata = rrsetOf(served.get('stream.test')?.node(`s${String(n)}.stream.test`), 1)?.rdata;
        assert.deepEqual([typeof rdata === 'string' ? Buffer.from(rdata, 'latin1').join('.') : undefined], stored);
      }
    });

    test('two nodes writing one zone at once: every write lands, each with its serial step, journaled unbroken', async () => {
      await createZone(ctx, caller, { name: 'nodes.test' });
      const zone = await zoneRow('nodes.test');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-second-node-'));
      const second = openStore({ dataDir: dir, databaseUrl: fixture.databaseUrl });
      const start = counts();
      let otherGuarded = 0;
      const other: DnsContext = { ...ctx, store: second, changes: new ChangeFeed(() => undefined), countBatch: (way) => (otherGuarded += way === 'guarded' ? 1 : 0) };
      try {
        // Rounds of writes from both nodes at once, each node at distinct names (n0-n2 and n1-n3), so
        // each batch can go guarded, two of them at names the other node writes too.
        for (let round = 0; round < 8; round++) {
          await Promise.all(
            [0, 1, 2].flatMap((n) => [
              put(ctx, 'nodes.test', `n${String(n)}.nodes.test`, `198.51.100.${String(round * 6 + n * 2 + 1)}`),
              put(other, 'nodes.test', `n${String(n + 1)}.nodes.test`, `198.51.100.${String(round * 6 + n * 2 + 2)}`),
            ]),
          );
        }
      } finally {
        await second.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
      const after = await zoneRow('nodes.test');
      assert.equal(after.serial, zone.serial + 48);
      // In each round the first batch to lock the zone finds it as it read it.
      assert.ok(fixture.batches.guarded - start.guarded + otherGuarded >= 8);
      const chain = await journalChain(store.db, zone.id, zone.serial, after.serial, after.version);
      assert.ok(chain !== undefined && chain.length > 0);
      // The names each node wrote last in the last round hold one of that round's addresses.
      for (const n of [0, 1, 2, 3]) {
        const content = (await getRrset(ctx, caller, 'nodes.test', `n${String(n)}`, 'A')).resource_records.map((r) => r.content[0]);
        assert.equal(content.length, 1);
        assert.ok(Number(String(content[0]).split('.')[3]) > 42, String(content[0]));
      }
    });
  });
}
