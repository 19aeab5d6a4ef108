// DNS zones, RRsets and their records, DNSSEC keys and the webhook outbox.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

export async function up(db: Kysely<unknown>, { id, key }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('zones')
    .addColumn('id', id, key)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('contact', 'text', (c) => c.notNull())
    .addColumn('primary_server', 'text', (c) => c.notNull())
    // SOA serials are unsigned 32-bit: bigint on PostgreSQL, INTEGER (64-bit) on SQLite.
    .addColumn('serial', 'bigint', (c) => c.notNull())
    .addColumn('refresh', 'integer', (c) => c.notNull())
    .addColumn('retry', 'integer', (c) => c.notNull())
    .addColumn('expiry', 'integer', (c) => c.notNull())
    .addColumn('nx_ttl', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('dnssec_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('meta', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('zones_account').on('zones').column('account_id').execute();

  await db.schema
    .createTable('rrsets')
    .addColumn('id', id, key)
    .addColumn('zone_id', 'integer', (c) => c.notNull().references('zones.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('ttl', 'integer', (c) => c.notNull())
    .addColumn('meta', 'text', (c) => c.notNull())
    /** JSON array of pickers, or NULL for a static RRset. */
    .addColumn('pickers', 'text')
    /** 1 for a dynamic RRset with health checks (meta.failover or a health picker). */
    .addColumn('healthcheck', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('rrsets_zone_name_type', ['zone_id', 'name', 'type'])
    .execute();

  await db.schema
    .createTable('records')
    .addColumn('id', id, key)
    .addColumn('rrset_id', 'integer', (c) => c.notNull().references('rrsets.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    /** JSON array: the canonical content. */
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('meta', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('records_rrset').on('records').columns(['rrset_id', 'position']).execute();

  await db.schema
    .createTable('dnssec_keys')
    .addColumn('zone_id', 'integer', (c) => c.primaryKey().references('zones.id').onDelete('cascade'))
    .addColumn('algorithm', 'integer', (c) => c.notNull())
    .addColumn('flags', 'integer', (c) => c.notNull())
    .addColumn('key_tag', 'integer', (c) => c.notNull())
    /** Base64 DNSKEY public key field. */
    .addColumn('public_key', 'text', (c) => c.notNull())
    /** PKCS#8 private key sealed with the service's secret key (see src/crypto/sealed.ts). */
    .addColumn('private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_outbox')
    .addColumn('id', id, key)
    .addColumn('zone_id', 'integer', (c) => c.references('zones.id').onDelete('set null'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    /** JSON body to deliver. */
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('failed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_outbox_due')
    .on('webhook_outbox')
    .columns(['delivered_at', 'failed_at', 'next_attempt_at'])
    .execute();
}
