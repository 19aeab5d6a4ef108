// Answered queries per zone, one-minute bucket, QTYPE and RCODE (dns/server/query-stats.ts). No
// foreign key to zones: a thread's counts for a zone deleted since are still written; zone ids
// are never handed out again, the statistics read only the caller's zones, and the retention drops
// them in time.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dns_query_counts')
    .addColumn('zone_id', 'integer', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('qtype', 'integer', (c) => c.notNull())
    .addColumn('rcode', 'integer', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('dns_query_counts_key', ['zone_id', 'bucket', 'qtype', 'rcode'])
    .execute();
  await db.schema.createIndex('dns_query_counts_bucket').on('dns_query_counts').column('bucket').execute();
}
