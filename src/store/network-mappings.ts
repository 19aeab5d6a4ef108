// Network mappings repository: every read and write names the account, so one account's mappings
// are never another's to read, change or count.
import type { Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { DnsNetworkMappingsTable } from './schema.ts';

export type NetworkMappingRow = Selectable<DnsNetworkMappingsTable>;

export interface NetworkMappingListFilter {
  offset: number;
  limit: number | undefined;
  orderBy: 'id' | 'name';
  direction: 'asc' | 'desc';
}

export async function listNetworkMappings(db: Db, accountId: number, filter: NetworkMappingListFilter): Promise<{ rows: NetworkMappingRow[]; total: number }> {
  const query = db
    .selectFrom('dns_network_mappings')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy(filter.orderBy, filter.direction)
    .orderBy('id')
    // An OFFSET needs a LIMIT on SQLite.
    .limit(filter.limit ?? 2 ** 31 - 1)
    .offset(filter.offset);
  const [rows, count] = await Promise.all([query.execute(), countNetworkMappings(db, accountId)]);
  return { rows, total: count };
}

export async function countNetworkMappings(db: Db, accountId: number): Promise<number> {
  const row = await db.selectFrom('dns_network_mappings').select((eb) => eb.fn.countAll<number | string>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findNetworkMapping(db: Db, accountId: number, by: { id: number } | { name: string }): Promise<NetworkMappingRow | undefined> {
  const query = db.selectFrom('dns_network_mappings').selectAll().where('account_id', '=', accountId);
  return ('id' in by ? query.where('id', '=', by.id) : query.where('name', '=', by.name)).executeTakeFirst();
}

export async function insertNetworkMapping(db: Db, accountId: number, name: string, mapping: string, at: string): Promise<number> {
  const row = await db.insertInto('dns_network_mappings').values({ account_id: accountId, name, mapping, created_at: at, updated_at: at }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** False when the account has no mapping with that id. */
export async function updateNetworkMapping(db: Db, accountId: number, id: number, mapping: string, at: string): Promise<boolean> {
  const result = await db.updateTable('dns_network_mappings').set({ mapping, updated_at: at }).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** False when the account has no mapping with that id. */
export async function deleteNetworkMapping(db: Db, accountId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('dns_network_mappings').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
