// A real store (a SQLite file, or a fresh PostgreSQL database) with the DNS use cases' context on it,
// for tests that write through the use cases without the HTTP API: an account and its administrator
// as the caller, and every zone change the use cases publish pushed onto `published`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Principal } from '../../src/accounts/principal.ts';
import { sealer } from '../../src/crypto/sealed.ts';
import type { BatchWay, DnsContext } from '../../src/dns/context.ts';
import { ChangeFeed, type ZoneChange } from '../../src/events/change-feed.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { createPostgresDatabase, type Engine } from './engines.ts';

/** The secret key the fixture's sealer uses (ServedZones built beside it need the same). */
export const dnsStoreSecret = new Uint8Array(32).fill(7);

export interface DnsStore {
  store: Store;
  ctx: DnsContext;
  /** The PostgreSQL database's URL (another store may open it, as a second node would); undefined on SQLite. */
  databaseUrl: string | undefined;
  /** RRset write batches committed so far, by way. */
  batches: Record<BatchWay, number>;
  caller: Principal;
  close(): Promise<void>;
}

export async function openDnsStore(engine: Engine, published: ZoneChange[]): Promise<DnsStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-dns-store-'));
  const database = engine === 'postgres' ? await createPostgresDatabase() : undefined;
  const store = openStore({ dataDir: dir, databaseUrl: database?.url });
  await migrateToLatest(store);
  const account = await store.db
    .insertInto('accounts')
    .values({ name: 'a', email: 'a@example.com', operator: 0, created_at: new Date().toISOString() })
    .returning('id')
    .executeTakeFirstOrThrow();
  const caller: Principal = { accountId: account.id, userId: 0, role: 'Administrators', operator: false, tokenId: undefined };
  const changes = new ChangeFeed((e) => assert.fail(String(e)));
  changes.subscribe((change) => {
    published.push(change);
    return Promise.resolve();
  });
  const config: DnsContext['config'] = { compat: 'seed', nameservers: ['ns1.example.net'], zoneAllowReserved: [], webhookAllowPrivate: false, dnsJournalVersions: 100, dnsJournalBytes: 1024 * 1024 };
  const batches: Record<BatchWay, number> = { guarded: 0, unread: 0, locked: 0 };
  const ctx: DnsContext = { store, config, sealer: sealer(dnsStoreSecret), changes, wakeWebhooks: () => undefined, countBatch: (way) => batches[way]++ };
  return {
    store,
    ctx,
    databaseUrl: database?.url,
    batches,
    caller,
    close: async () => {
      await store.close();
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
