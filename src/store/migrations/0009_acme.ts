// Managed certificates (ssl_type "le", issued through ACME): the account at each directory, the
// HTTP-01 challenges every proxy thread and node answers while an order is pending, each resource's
// failed attempts (its backoff survives restarts), and the lease that lets one node at a time
// talk to the CA.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('acme_accounts')
    .addColumn('directory', 'text', (c) => c.primaryKey())
    /** The account's private key, sealed with the service's secret key; never returned. */
    .addColumn('key_sealed', 'text', (c) => c.notNull())
    /** The account's URL at the CA; null until it is registered. */
    .addColumn('url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('acme_challenges')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('resource_id', 'integer', (c) => c.notNull().references('resources.id').onDelete('cascade'))
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('key_authorization', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('acme_challenges_resource').on('acme_challenges').column('resource_id').execute();

  await db.schema
    .createTable('acme_attempts')
    .addColumn('resource_id', 'integer', (c) => c.primaryKey().references('resources.id').onDelete('cascade'))
    /** The names the failed order asked for, space-separated: other names are a new request, not retried later. */
    .addColumn('hosts', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('retry_at', 'text', (c) => c.notNull())
    .addColumn('error', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('acme_lease')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}
