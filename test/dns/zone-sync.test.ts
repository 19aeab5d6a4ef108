// One DNS thread's zones against a real store (SQLite file, PostgreSQL database), written through
// the DNS use cases: changes the thread never hears of, hears out of order, or fails to apply still
// end up served as the store has them, by the thread's own version check.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { Principal } from '../../src/accounts/principal.ts';
import { sealer } from '../../src/crypto/sealed.ts';
import { writeRrset } from '../../src/dns/rrsets.ts';
import { ApplyFaults } from '../../src/dns/server/apply-faults.ts';
import { ServedZones } from '../../src/dns/server/served-zones.ts';
import { rrsetOf } from '../../src/dns/server/zone-view.ts';
import { ZoneSync } from '../../src/dns/server/zone-sync.ts';
import { createZone, deleteZone, setZoneEnabled, updateZone } from '../../src/dns/zones.ts';
import { importZone } from '../../src/dns/zone-file-io.ts';
import type { ZoneChange } from '../../src/events/change-feed.ts';
import type { Store } from '../../src/store/database.ts';
import { engines } from '../support/engines.ts';
import { dnsStoreSecret, openDnsStore, type DnsStore } from '../support/dns-store.ts';

const logger = pino({ level: 'silent' });
const aType = 1;

/**
 * A thread's zones, checking the store every 100 ms; `handed`: it is handed changes as they commit;
 * `faults`: `zone:times` failures to inject.
 */
async function thread(store: Store, handed: boolean, faults: Record<string, number> = {}) {
  const zones = new ServedZones(store.db, sealer(dnsStoreSecret));
  const metrics = new Registry();
  const caughtUp: string[] = [];
  const sync = new ZoneSync({
    db: store.db,
    zones,
    logger,
    metrics,
    thread: 0,
    catalog: undefined,
    faults: new ApplyFaults(Object.entries(faults).map(([zone, times]) => ({ thread: 0, zone, times })), 0),
    onCaughtUp: (change) => caughtUp.push(change.zone),
    handed,
    checkIntervalMs: 100,
  });
  await sync.start();
  const metric = async (name: string) => (await metrics.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;
  return { zones, sync, caughtUp, metric };
}

/** The A addresses `name` has in the thread's view; undefined when no zone serves it. */
function served(zones: ServedZones, name: string): string[] | undefined {
  const zone = zones.find(name);
  if (zone === undefined) return undefined;
  const rdata = rrsetOf(zone.node(name), aType)?.rdata ?? [];
  return (typeof rdata === 'string' ? [rdata] : [...rdata]).map((r) => Buffer.from(r, 'latin1').join('.'));
}

async function eventually(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`not within ${String(ms)} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const engine of engines()) {
  describe(`a DNS thread keeps up with the ${engine} store`, () => {
    let fixture: DnsStore;
    let store: Store;
    let ctx: DnsStore['ctx'];
    let caller: Principal;
    /** Every change the use cases publish; no DNS thread is subscribed, so every one is missed. */
    const published: ZoneChange[] = [];
    const put = (zone: string, name: string, address: string) =>
      writeRrset(ctx, caller, { zone, name, type: 'A' }, { ttl: 60, resource_records: [{ content: [address] }] }, 'upsert');

    before(async () => {
      fixture = await openDnsStore(engine, published);
      ({ store, ctx, caller } = fixture);
    });
    after(() => fixture.close());

    for (const handed of [false, true]) {
      // A thread handed changes as they commit waits one more check before reloading.
      const z = (name: string) => `${name}${handed ? '-handed' : ''}.test`;
      test(`changes the thread never heard of are served within a few checks: created, changed, disabled, deleted, created again (${handed ? 'handed changes' : 'no changes handed'})`, async () => {
        await createZone(ctx, caller, { name: z('kept') });
        await createZone(ctx, caller, { name: z('off') });
        await createZone(ctx, caller, { name: z('gone') });
        for (const zone of [z('kept'), z('off'), z('gone')]) await put(zone, `www.${zone}`, '192.0.2.1');
        const { zones, sync, caughtUp, metric } = await thread(store, handed);
        try {
          assert.deepEqual(served(zones, `www.${z('gone')}`), ['192.0.2.1']);
          await createZone(ctx, caller, { name: z('new') });
          await put(z('new'), `www.${z('new')}`, '192.0.2.9');
          await put(z('kept'), `www.${z('kept')}`, '192.0.2.2');
          await updateZone(ctx, caller, z('kept'), { nx_ttl: 77 });
          await setZoneEnabled(ctx, caller, z('off'), false);
          await deleteZone(ctx, caller, z('gone'));
          await eventually(
            () =>
              served(zones, `www.${z('new')}`)?.[0] === '192.0.2.9' &&
              served(zones, `www.${z('kept')}`)?.[0] === '192.0.2.2' &&
              zones.get(z('kept'))?.head.negativeTtl === 77 &&
              zones.get(z('off')) === undefined &&
              zones.get(z('gone')) === undefined,
            'every missed change served',
          );
          // A zone created again under a deleted one's name is a new zone.
          await createZone(ctx, caller, { name: z('gone') });
          await put(z('gone'), `www.${z('gone')}`, '192.0.2.3');
          await eventually(() => served(zones, `www.${z('gone')}`)?.[0] === '192.0.2.3', 'the zone created again');
          assert.ok(caughtUp.includes(z('off')) && caughtUp.includes(z('gone')));
          assert.equal(await metric('edgeplane_dns_zone_apply_failures_total'), 0);
          assert.ok((await metric('edgeplane_dns_zone_resyncs_total')) >= 5);
        } finally {
          await sync.stop();
        }
      });
    }

    test('a change of some names that arrives without the one before it reloads the zone', async () => {
      await createZone(ctx, caller, { name: 'order.test' });
      const { zones, sync } = await thread(store, false);
      await sync.stop(); // no checks: only the changes handed to it
      published.length = 0;
      await put('order.test', 'www.order.test', '192.0.2.10');
      await put('order.test', 'mail.order.test', '192.0.2.11');
      const [first, second] = published;
      assert.ok(first !== undefined && second !== undefined);
      assert.deepEqual([first.names, second.names, second.previous], [['www.order.test'], ['mail.order.test'], first.version]);
      // The first is lost: the second alone must not leave www behind while claiming its version.
      assert.equal(await sync.apply(second), true);
      assert.deepEqual([served(zones, 'www.order.test'), served(zones, 'mail.order.test')], [['192.0.2.10'], ['192.0.2.11']]);
      // The lost one arriving late is already served: nothing is read again.
      assert.equal(await zones.apply(first), false);
      // In order, each change re-reads only its names.
      await put('order.test', 'www.order.test', '192.0.2.20');
      const third = published.at(-1);
      assert.ok(third !== undefined);
      assert.equal(third.previous, second.version);
      assert.equal(await sync.apply(third), true);
      assert.deepEqual(served(zones, 'www.order.test'), ['192.0.2.20']);
      assert.equal(zones.get('order.test')?.head.version, third.version);
    });

    test('an import of more names than an eighth of the zone (and than 1,000) is read whole into an image; smaller changes go beside it; a replacement is offered the image while few names are', async () => {
      await createZone(ctx, caller, { name: 'bulk.test' });
      const { zones, sync } = await thread(store, false);
      await sync.stop(); // no checks: only the changes handed to it
      const lines = (from: number, count: number) => Array.from({ length: count }, (_, i) => `h${String(from + i)}.bulk.test. 300 IN A 192.0.2.${String((from + i) % 250)}`).join('\n');
      const view = () => {
        const zone = zones.get('bulk.test');
        assert.ok(zone !== undefined);
        return zone;
      };
      published.length = 0;
      await importZone(ctx, caller, 'bulk.test', lines(0, 1500));
      assert.equal(await sync.apply(published.at(-1) as ZoneChange), true);
      // Read whole: the names are in the image, the apex alone beside it.
      assert.equal(view().image?.names, 1500);
      assert.deepEqual(view().ownNames(), ['bulk.test']);
      assert.deepEqual(served(zones, 'h1499.bulk.test'), ['192.0.2.249']);
      // 200 names (not over 1,000): beside the image, which stays.
      const image = view().image;
      await importZone(ctx, caller, 'bulk.test', lines(1500, 200));
      assert.equal(await sync.apply(published.at(-1) as ZoneChange), true);
      assert.equal(view().image, image);
      assert.equal(view().ownNames().length, 201);
      assert.deepEqual(served(zones, 'h1600.bulk.test'), ['192.0.2.100']);
      // The other tests' zones are in the same store: this zone's offer alone.
      const offered = () => zones.current().filter((z) => z.zoneId === view().head.id);
      assert.deepEqual(offered().map((z) => [z.version, z.names?.length]), [[view().head.version, 201]]);
      // Over 1,000 names held beside an image of 1,500: a replacement reads the zone whole instead.
      for (const name of ['h1.bulk.test', 'h2.bulk.test']) await put('bulk.test', name, '198.51.100.1');
      for (const change of published.slice(-2)) assert.equal(await sync.apply(change), true);
      await importZone(ctx, caller, 'bulk.test', lines(1700, 1000));
      assert.equal(await sync.apply(published.at(-1) as ZoneChange), true);
      assert.equal(view().image, image);
      assert.equal(view().ownNames().length, 1203);
      assert.deepEqual(offered(), []);
      assert.deepEqual([served(zones, 'h1.bulk.test'), served(zones, 'h2699.bulk.test')], [['198.51.100.1'], ['192.0.2.199']]);
    });

    test('a thread about to read a zone whole takes the image another thread serves it from, at that version or later, with its head; otherwise it reads the store', async () => {
      const loads: string[] = [];
      const main = new ServedZones(store.db, sealer(dnsStoreSecret), { onLoaded: (from) => loads.push(`main ${from}`) });
      const worker = new ServedZones(store.db, sealer(dnsStoreSecret), { ask: (zone, version) => main.imageOf(zone, version, 300), onLoaded: (from) => loads.push(`worker ${from}`) });
      const apply = async (zones: ServedZones, change: ZoneChange | undefined) => {
        assert.ok(change !== undefined);
        return zones.apply(change);
      };
      published.length = 0;
      await createZone(ctx, caller, { name: 'given.test' });
      await put('given.test', 'www.given.test', '192.0.2.1');
      await updateZone(ctx, caller, 'given.test', { nx_ttl: 1234 });
      const [created, written, updated] = published;
      assert.ok(created !== undefined && written !== undefined && updated !== undefined);
      // The main thread is handed every change first (workers.ts); the worker, asking on the creation,
      // takes the view the main thread has after all three: its image, and the head of the last.
      const mainDone = Promise.all([created, written, updated].map((change) => apply(main, change)));
      assert.equal(await apply(worker, created), true);
      await mainDone;
      const [mainView, workerView] = [main.get('given.test'), worker.get('given.test')];
      assert.ok(mainView?.image !== undefined && workerView?.image !== undefined);
      assert.equal(workerView.image.data.data, mainView.image.data.data, 'one image, not a copy');
      assert.equal(workerView.head.version, updated.version);
      assert.equal(workerView.head.negativeTtl, 1234);
      assert.equal(workerView.head.serial, mainView.head.serial);
      assert.deepEqual(served(worker, 'www.given.test'), ['192.0.2.1']);
      // The later changes are served already: nothing to read.
      assert.equal(await apply(worker, written), false);
      assert.equal(await apply(worker, updated), false);
      assert.deepEqual(loads, ['main store', 'worker thread']);
      // A change of names goes beside the image in each thread, as before.
      await put('given.test', 'new.given.test', '192.0.2.2');
      const small = published.at(-1);
      assert.equal(await apply(main, small), true);
      assert.equal(await apply(worker, small), true);
      assert.deepEqual(served(worker, 'new.given.test'), ['192.0.2.2']);
      assert.deepEqual(loads, ['main store', 'worker thread']);
      // The main thread hears of a change after the worker asked (each thread of a process without
      // the API hears changes itself): the worker waits for it, and takes its image.
      await updateZone(ctx, caller, 'given.test', { nx_ttl: 888 });
      const late = published.at(-1);
      const asked = apply(worker, late);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(await apply(main, late), true);
      assert.equal(await asked, true);
      assert.equal(worker.get('given.test')?.head.negativeTtl, 888);
      assert.equal(worker.get('given.test')?.image?.data.data, main.get('given.test')?.image?.data.data);
      assert.deepEqual(loads, ['main store', 'worker thread', 'main store', 'worker thread']);
      // The main thread does not serve the zone at the version asked within the wait (it never heard
      // of the change): the worker reads the store.
      await updateZone(ctx, caller, 'given.test', { nx_ttl: 999 });
      const unheard = published.at(-1);
      assert.equal(await apply(worker, unheard), true);
      assert.equal(worker.get('given.test')?.head.negativeTtl, 999);
      assert.notEqual(worker.get('given.test')?.image?.data.data, main.get('given.test')?.image?.data.data);
      assert.deepEqual(loads, ['main store', 'worker thread', 'main store', 'worker thread', 'worker store']);
    });

    test('a change handed with what it wrote is applied without reading the store; without it, its names are read', async () => {
      await createZone(ctx, caller, { name: 'written.test' });
      const handedData = await thread(store, false);
      const fromStore = await thread(store, false);
      // No checks: only the changes handed to them.
      await handedData.sync.stop();
      await fromStore.sync.stop();
      published.length = 0;
      await put('written.test', 'www.written.test', '192.0.2.30');
      await put('written.test', 'www.written.test', '192.0.2.31');
      const [first] = published;
      assert.ok(first?.written !== undefined);
      assert.deepEqual(first.written.rrsets.map((r) => [r.name, r.type, r.records.map((rec) => rec.content)]), [['www.written.test', 'A', ['["192.0.2.30"]']]]);
      assert.equal(first.written.zone.serial, first.serial);
      // The store has moved on since the first change: a thread that took it from the store would
      // serve the second change's address under the first one's version.
      assert.equal(await handedData.sync.apply(first), true);
      assert.deepEqual(served(handedData.zones, 'www.written.test'), ['192.0.2.30']);
      assert.equal(handedData.zones.get('written.test')?.head.version, first.version);
      assert.equal(handedData.zones.get('written.test')?.head.serial, first.serial);
      // The same change as another node hears it (PostgreSQL NOTIFY): the names are read.
      assert.equal(await fromStore.sync.apply({ ...first, written: undefined }), true);
      assert.deepEqual(served(fromStore.zones, 'www.written.test'), ['192.0.2.31']);
    });

    test('a change that keeps failing is given up for the moment, never thrown, and served once a check reloads the zone', async () => {
      await createZone(ctx, caller, { name: 'flaky.test' });
      await put('flaky.test', 'www.flaky.test', '192.0.2.1');
      // Three attempts while the change is handed over, then two more at the checks.
      const { zones, sync, metric } = await thread(store, true, { 'flaky.test': 5 });
      try {
        published.length = 0;
        await put('flaky.test', 'www.flaky.test', '192.0.2.2');
        const change = published[0];
        assert.ok(change !== undefined);
        assert.equal(await sync.apply(change), false);
        assert.deepEqual(served(zones, 'www.flaky.test'), ['192.0.2.1'], 'the former version, whole');
        assert.equal(await metric('edgeplane_dns_zones_behind'), 1);
        await eventually(() => served(zones, 'www.flaky.test')?.[0] === '192.0.2.2', 'the change served after the failures');
        assert.equal(await metric('edgeplane_dns_zone_apply_failures_total'), 5);
        assert.equal(await metric('edgeplane_dns_zones_behind'), 0);
      } finally {
        await sync.stop();
      }
    });
  });
}
