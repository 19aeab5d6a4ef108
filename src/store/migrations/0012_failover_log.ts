// Health checks shared by every DNS node of a store (docs/dns-server.md, "Health checks"): the agreed
// state of each checked record, and each RRset's log of state changes (GET .../failover/log).
// Both go with their RRset.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('failover_states')
    .addColumn('rrset_id', 'integer', (c) => c.notNull().references('rrsets.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('up', 'integer', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('failover_states_key', ['rrset_id', 'address'])
    .execute();
  await db.schema
    .createTable('failover_log')
    .addColumn('id', context.id, context.key)
    .addColumn('rrset_id', 'integer', (c) => c.notNull().references('rrsets.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('failover_log_rrset').on('failover_log').columns(['rrset_id', 'id']).execute();
}
