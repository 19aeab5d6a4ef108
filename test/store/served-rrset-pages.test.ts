// A zone's RRsets as the DNS server loads them (servedRrsetPages), on both engines: every RRset of
// the zone and none of another's, in name and type order, each with its records in order, pages of
// whole owner names; on SQLite read as arrays on the store's own connection, never inside another
// query's transaction.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { servedRrsetPages, type ServedRrsetRow } from '../../src/store/served-rrset-pages.ts';
import { sqliteOf } from '../../src/store/sqlite.ts';
import { upsertRrset, zoneRrsets, type RrsetData } from '../../src/store/rrsets.ts';
import { engines } from '../support/engines.ts';
import { insertAccountZone } from '../support/store-rows.ts';
import { suiteStore } from '../support/suite-store.ts';

const now = new Date().toISOString();
const rrset = (name: string, type: string, contents: unknown[][], pickers: string | null = null): RrsetData => ({
  name,
  type,
  ttl: 300,
  meta: '{}',
  pickers,
  healthcheck: 0,
  records: contents.map((c, i) => ({ content: JSON.stringify(c), enabled: i % 2, meta: `{"n":${String(i)}}` })),
});

/** What serving reads of a row, as plain data. */
const served = (r: ServedRrsetRow) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  ttl: r.ttl,
  pickers: r.pickers,
  records: r.records.map(({ content, enabled, meta }) => ({ content, enabled, meta })),
});

async function pages(db: Parameters<typeof servedRrsetPages>[0], zoneId: number, size: number): Promise<ServedRrsetRow[][]> {
  const all: ServedRrsetRow[][] = [];
  for await (const page of servedRrsetPages(db, zoneId, size)) all.push(page);
  return all;
}

for (const engine of engines()) {
  describe(`a zone's RRsets as the DNS server loads them (${engine})`, () => {
    const opened = suiteStore(engine, 'served-rrset-pages');

    test('every RRset of the zone in order with its records, in pages of whole names', async () => {
      const { db } = opened();
      const { zoneId } = await insertAccountZone(db, 'pages.example', now);
      const other = await insertAccountZone(db, 'other.example', now);
      const write = (zone: number, data: RrsetData) => upsertRrset(db, engine, zone, data, now, undefined);
      // Three RRsets at one name: with pages of 4 a page ends inside it, and it moves whole to the next.
      for (const type of ['A', 'AAAA', 'TXT']) await write(zoneId, rrset('b.pages.example', type, type === 'A' ? [['192.0.2.1'], ['192.0.2.2'], ['192.0.2.3']] : type === 'AAAA' ? [['2001:db8::1']] : [['hello']]));
      for (const name of ['a', 'c', 'd', 'e', 'f', 'g']) await write(zoneId, rrset(`${name}.pages.example`, 'A', [['198.51.100.1'], ['198.51.100.2']]));
      await write(zoneId, rrset('geo.pages.example', 'A', [['203.0.113.1'], ['203.0.113.2']], JSON.stringify([{ type: 'geodns' }])));
      await write(zoneId, rrset('empty.pages.example', 'A', []));
      await write(other.zoneId, rrset('a.other.example', 'A', [['192.0.2.99']]));

      const expected = (await zoneRrsets(db, zoneId)).map(served);
      assert.equal(expected.length, 11);
      for (const size of [4, 5, 1000]) {
        const read = await pages(db, zoneId, size);
        assert.deepEqual(read.flat().map(served), expected, `pages of ${String(size)}`);
        const names = read.map((page) => new Set(page.map((r) => r.name)));
        names.forEach((page, i) => {
          for (const name of page) assert.ok(!names.slice(i + 1).some((later) => later.has(name)), `${name} split across pages of ${String(size)}`);
        });
        assert.ok(read.every((page) => page.length <= size));
      }
      assert.deepEqual(await pages(db, 999_999, 4), []);
    });

    test('a name with more RRsets than a page is an error, not a name cut in two', async () => {
      const { db } = opened();
      const { zoneId } = await insertAccountZone(db, 'crowded.example', now);
      for (const type of ['A', 'AAAA', 'TXT']) await upsertRrset(db, engine, zoneId, rrset('x.crowded.example', type, type === 'A' ? [['192.0.2.1']] : type === 'AAAA' ? [['2001:db8::1']] : [['t']]), now, undefined);
      await assert.rejects(pages(db, zoneId, 2), /more than 2 RRsets at x\.crowded\.example/);
    });

    test("a read while a transaction is open waits for it: it never sees that transaction's writes unless they commit", async () => {
      const { db } = opened();
      const { zoneId } = await insertAccountZone(db, 'open.example', now);
      await upsertRrset(db, engine, zoneId, rrset('kept.open.example', 'A', [['192.0.2.1']]), now, undefined);
      let reading: Promise<ServedRrsetRow[][]> | undefined;
      await assert.rejects(
        db.transaction().execute(async (tx) => {
          await upsertRrset(tx, engine, zoneId, rrset('rolled-back.open.example', 'A', [['192.0.2.2']]), now, undefined);
          reading = pages(db, zoneId, 1000);
          await new Promise((resolve) => setTimeout(resolve, 50));
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      assert.deepEqual((await reading)?.flat().map((r) => r.name), ['kept.open.example']);
    });

    test('on SQLite the store itself is read as arrays, a transaction through Kysely', async () => {
      const { db } = opened();
      assert.equal(sqliteOf(db) !== undefined, engine === 'sqlite');
      await db.transaction().execute((tx) => {
        assert.equal(sqliteOf(tx), undefined);
        return Promise.resolve();
      });
    });
  });
}
