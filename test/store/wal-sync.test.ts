// The SQLite store syncs its WAL from libuv's thread pool after commits (src/store/wal-sync.ts), so
// a checkpoint's own sync has little left to write. These tests hold what can be seen from outside:
// commits through the store's dialect open the WAL for that once and keep working, nothing is opened
// where there is no WAL yet, and closing the store lets the file go.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Kysely, sql } from 'kysely';
import { openSqlite, sqliteDialect } from '../../src/store/sqlite.ts';
import { WalSyncAhead } from '../../src/store/wal-sync.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-wal-sync-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** This process's open descriptors on `file`. */
const descriptorsOn = (file: string) =>
  fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;

test('commits open the WAL to sync it once, every commit lands, and closing lets it go', async () => {
  const file = path.join(dir, 'store.sqlite');
  const db = new Kysely<{ t: { n: number } }>({ dialect: sqliteDialect(openSqlite(file)) });
  await sql`create table t (n integer)`.execute(db);
  const wal = `${file}-wal`;
  const sqlite = descriptorsOn(wal);
  for (let n = 0; n < 50; n++) await db.transaction().execute((tx) => tx.insertInto('t').values({ n }).execute());
  // SQLite's own descriptor, and one more for the syncs, however many commits.
  assert.equal(descriptorsOn(wal), sqlite + 1);
  assert.equal((await db.selectFrom('t').select(sql<number>`count(*)`.as('c')).executeTakeFirstOrThrow()).c, 50);
  await new Promise((resolve) => setTimeout(resolve, 50));
  await db.destroy();
  assert.equal(descriptorsOn(wal), 0);
});

test('with no WAL there yet, a commit opens nothing and throws nothing; closing during a sync lets the file go after it', async () => {
  const missing = path.join(dir, 'none.sqlite-wal');
  const absent = new WalSyncAhead(missing);
  absent.committed();
  assert.equal(descriptorsOn(missing), 0);
  absent.close();

  const present = path.join(dir, 'some.sqlite-wal');
  fs.writeFileSync(present, 'frames');
  const syncing = new WalSyncAhead(present);
  syncing.committed();
  assert.equal(descriptorsOn(present), 1);
  syncing.close();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(descriptorsOn(present), 0);
  // Closed: no further syncs.
  syncing.committed();
  assert.equal(descriptorsOn(present), 0);
});
