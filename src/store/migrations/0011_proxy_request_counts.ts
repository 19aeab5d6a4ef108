// Requests the protection proxy ended per resource, one-minute bucket and outcome
// (security/proxy/request-stats.ts). No foreign key, for the reason 0010 gives.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('proxy_request_counts')
    .addColumn('resource_id', 'integer', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('proxy_request_counts_key', ['resource_id', 'bucket', 'outcome'])
    .execute();
  await db.schema.createIndex('proxy_request_counts_bucket').on('proxy_request_counts').column('bucket').execute();
}
