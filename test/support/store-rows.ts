// Rows written straight into a store, for tests of store-level code that need an account and a zone
// to hang their data on (the API would add SOA and NS records these tests do not want).
import type { Db } from '../../src/store/database.ts';

/** A new account and an enabled zone `name` in it, with plain SOA values; their ids. */
export async function insertAccountZone(db: Db, name: string, now = new Date().toISOString()): Promise<{ accountId: number; zoneId: number }> {
  const account = await db.insertInto('accounts').values({ name: 'a', email: `a@${name}`, operator: 0, created_at: now }).returning('id').executeTakeFirstOrThrow();
  const zone = await db
    .insertInto('zones')
    .values({ account_id: account.id, name, contact: `hostmaster.${name}`, primary_server: `ns1.${name}`, serial: 1, refresh: 3600, retry: 600, expiry: 86400, nx_ttl: 300, enabled: 1, dnssec_enabled: 0, meta: '{}', created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { accountId: account.id, zoneId: zone.id };
}
