// Protected web resources: the resource, its host names (names and aliases, unique across the
// service), origins, rate rules and access lists.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

export async function up(db: Kysely<unknown>, { id, key }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('resources')
    .addColumn('id', id, key)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    /** JSON object of the service_* settings and the two is_* flags. */
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('ssl_type', 'text')
    .addColumn('ssl_crt', 'text')
    /** The private key, sealed with the service's secret key; never returned. */
    .addColumn('ssl_key_sealed', 'text')
    .addColumn('ssl_expire', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('resources_account').on('resources').column('account_id').execute();

  // Every name and alias of every resource: the primary key makes each host belong to one resource.
  await db.schema
    .createTable('resource_hosts')
    .addColumn('hostname', 'text', (c) => c.primaryKey())
    .addColumn('resource_id', 'integer', (c) => c.notNull().references('resources.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('resource_hosts_resource').on('resource_hosts').column('resource_id').execute();

  await db.schema
    .createTable('resource_aliases')
    .addColumn('id', id, key)
    .addColumn('resource_id', 'integer', (c) => c.notNull().references('resources.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('alias_data', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('resource_origins')
    .addColumn('id', id, key)
    .addColumn('resource_id', 'integer', (c) => c.notNull().references('resources.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('origin_data', 'text', (c) => c.notNull())
    .addColumn('origin_weight', 'integer', (c) => c.notNull())
    .addColumn('origin_mode', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('resource_rate_rules')
    .addColumn('id', id, key)
    .addColumn('resource_id', 'integer', (c) => c.notNull().references('resources.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('value', 'integer', (c) => c.notNull())
    .addColumn('test_cookie', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('resource_access_lists')
    .addColumn('id', id, key)
    .addColumn('resource_id', 'integer', (c) => c.notNull().references('resources.id').onDelete('cascade'))
    /** 'black' or 'white'. */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();

  for (const table of ['resource_aliases', 'resource_origins', 'resource_rate_rules', 'resource_access_lists']) {
    await db.schema.createIndex(`${table}_resource`).on(table).column('resource_id').execute();
  }
}
