// The zone journal's bounds in the store, on both engines: each change's entry (written with the
// change, zone-change.ts) keeps at most the newest `versions` entries and `bytes` octets of a zone's
// entries, drops everything older than the first entry past either bound, and leaves other zones'
// entries alone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { changeNotice } from '../../src/events/change-feed.ts';
import { writeZoneChange } from '../../src/store/zone-change.ts';
import { journalStatements } from '../../src/store/zone-journal.ts';
import { engines } from '../support/engines.ts';
import { insertAccountZone } from '../support/store-rows.ts';
import { suiteStore } from '../support/suite-store.ts';

const now = new Date().toISOString();

for (const engine of engines()) {
  describe(`zone journal bounds (${engine})`, () => {
    const opened = suiteStore(engine, 'journal');

    const kept = async (zoneId: number) =>
      (await opened().db.selectFrom('zone_journal').select('version').where('zone_id', '=', zoneId).orderBy('version').execute()).map((r) => r.version);
    /** A change of the zone with an entry of `size` octets; its version. */
    const append = (zoneId: number, size: number, bounds: { versions: number; bytes: number }) =>
      opened().db.transaction().execute(async (tx) => {
        const serial = size;
        const notice = changeNotice({ zoneId, zone: 'any.example', serial, version: 0, deleted: false }, 'test');
        const entry = { zone_id: zoneId, serial_from: serial, serial_to: serial + 1, removed: '[]', added: '[]', size };
        return writeZoneChange(tx, opened().engine, { zoneId, fields: { serial, updated_at: now }, journal: { entry }, bounds, notice });
      });

    test('the newest entries within the count bound are kept, per zone', async () => {
      const a = (await insertAccountZone(opened().db, 'count-a.example', now)).zoneId;
      const b = (await insertAccountZone(opened().db, 'count-b.example', now)).zoneId;
      const versions: number[] = [];
      for (let n = 1; n <= 6; n++) versions.push(await append(a, 10, { versions: 3, bytes: 1000 }));
      const other = await append(b, 10, { versions: 3, bytes: 1000 });
      assert.deepEqual(await kept(a), versions.slice(3));
      assert.deepEqual(await kept(b), [other]);
    });

    test('the byte bound drops the first entry past it and everything older; an entry over it alone clears the zone', async () => {
      const z = (await insertAccountZone(opened().db, 'bytes.example', now)).zoneId;
      const bounds = { versions: 100, bytes: 100 };
      const v: number[] = [];
      for (const size of [30, 30, 30]) v.push(await append(z, size, bounds));
      assert.deepEqual(await kept(z), v);
      // 50 + 30 + 30 = 110 > 100: the second entry is past the bound, so the first two go.
      v.push(await append(z, 50, bounds));
      assert.deepEqual(await kept(z), v.slice(2));
      // Exactly at the bound is within it.
      v.push(await append(z, 20, bounds));
      assert.deepEqual(await kept(z), v.slice(2));
      await append(z, 101, bounds);
      assert.deepEqual(await kept(z), []);
    });

    // Entries kept under a larger count bound (a node with another setting, or before a restart)
    // are all at or above the row's journal_from: the next change's prune reaches them all.
    test('a lowered count bound: the next change keeps only the newest within it', async () => {
      const z = (await insertAccountZone(opened().db, 'lowered.example', now)).zoneId;
      const v: number[] = [];
      for (let n = 0; n < 80; n++) v.push(await append(z, 1, { versions: 1000, bytes: 100_000 }));
      v.push(await append(z, 1, { versions: 3, bytes: 100_000 }));
      assert.deepEqual(await kept(z), v.slice(-3));
    });

    if (engine === 'postgres') {
      // The entries deleted before lie in PostgreSQL's table and index, dead, until VACUUM: a prune
      // that scanned the zone's whole range visited every one of them (bench/README.md, session 24).
      test('a prune reads the live entries from the row\'s journal_from, not the dead ones older than them', async () => {
        const { db } = opened();
        const z = (await insertAccountZone(db, 'dead.example', now)).zoneId;
        await sql`insert into zone_journal (zone_id, version, serial_from, serial_to, removed, added, size)
          select ${z}, n, n, n + 1, '[]', '[]', 1 from generate_series(1, 20000) as n`.execute(db);
        await sql`delete from zone_journal where zone_id = ${z}`.execute(db);
        await sql`update zone_version set version = version + 20000`.execute(db);
        const bounds = { versions: 3, bytes: 1000 };
        const journalFrom = async () => (await db.selectFrom('zones').select('journal_from').where('id', '=', z).executeTakeFirstOrThrow()).journal_from;
        const v: number[] = [];
        for (let n = 0; n < 5; n++) {
          v.push(await append(z, 10, bounds));
          assert.equal(await journalFrom(), (await kept(z))[0]);
        }
        assert.deepEqual(await kept(z), v.slice(-3));
        // The next change's prune, as its statement would run it (rolled back): the pages it reads.
        const entry = { zone_id: z, serial_from: 1, serial_to: 2, removed: '[]', added: '[]', size: 10 };
        const [prune] = journalStatements('postgres', z, { entry }, bounds, sql<number>`0`).statements;
        assert.ok(prune !== undefined);
        const query = prune.compile(db);
        const pages = await db.connection().execute(async (c) => {
          await sql`begin`.execute(c);
          try {
            const { rows } = await c.executeQuery<{ 'QUERY PLAN': { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[] }>({
              ...query,
              sql: `explain (analyze, buffers, format json) ${query.sql}`,
            });
            const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
            return (plan?.['Shared Hit Blocks'] ?? NaN) + (plan?.['Shared Read Blocks'] ?? NaN);
          } finally {
            await sql`rollback`.execute(c);
          }
        });
        // A few pages of the index and the table, not the hundreds the 20,000 dead entries fill.
        assert.ok(pages < 30, `the prune read ${String(pages)} pages`);
        assert.deepEqual(await kept(z), v.slice(-3));
        // A change that clears the journal leaves nothing older than its own version.
        const cleared = await append(z, 1001, bounds);
        assert.deepEqual(await kept(z), []);
        assert.equal(await journalFrom(), cleared);
      });
    }
  });
}
