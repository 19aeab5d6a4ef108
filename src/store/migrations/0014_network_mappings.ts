// Network mappings (/dns/v2/network-mappings): an account's named lists of networks, each entry
// IPv4 and IPv6 CIDRs with tags. The entries are one JSON document: they are always read and
// written whole. A name is unique within its account (looked up by name), not across accounts.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

export async function up(db: Kysely<unknown>, { id, key }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('dns_network_mappings')
    .addColumn('id', id, key)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('mapping', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('dns_network_mappings_account_name', ['account_id', 'name'])
    .execute();
}
