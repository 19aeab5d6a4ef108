// A resource's name stops being unique among resources: resource_hosts alone says which resource
// holds a host name. A resource whose name falls inside another account's zone keeps its document
// while that account protects the name (security/host-ownership.ts). No row is changed or removed.
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

export async function up(db: Kysely<unknown>, { engine }: MigrationContext): Promise<void> {
  if (engine === 'postgres') {
    // The name PostgreSQL gave the column's UNIQUE in 0003_security.ts.
    await sql`alter table resources drop constraint resources_name_key`.execute(db);
    return;
  }
  await rebuildSqliteResources(db);
}

interface SqlRow {
  sql: string;
}

/**
 * SQLite cannot drop a column's UNIQUE: the table is rebuilt from its own definition without it,
 * by the procedure of https://sqlite.org/lang_altertable.html#otheralter (foreign keys off, copy,
 * drop, rename, indexes again, foreign_key_check). Kysely runs SQLite migrations outside a
 * transaction, so this one brings its own.
 */
async function rebuildSqliteResources(db: Kysely<unknown>): Promise<void> {
  const table = (await sql<SqlRow>`select sql from sqlite_master where type = 'table' and name = 'resources'`.execute(db)).rows[0];
  const unique = /("name" text not null) unique/;
  if (table === undefined || !unique.test(table.sql)) throw new Error('resources.name is not declared as 0003_security.ts made it');
  const definition = table.sql.replace(unique, '$1').replace(/^create table "resources"/i, 'create table "resources_rebuilt"');
  const indexes = (await sql<SqlRow>`select sql from sqlite_master where type = 'index' and tbl_name = 'resources' and sql is not null`.execute(db)).rows;

  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    try {
      // The AUTOINCREMENT high-water mark, so that ids of deleted resources are never reused.
      const sequence = (await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'resources'`.execute(db)).rows[0]?.seq ?? 0;
      await sql.raw(definition).execute(db);
      await sql`insert into resources_rebuilt select * from resources`.execute(db);
      await sql`drop table resources`.execute(db);
      await sql`alter table resources_rebuilt rename to resources`.execute(db);
      for (const index of indexes) await sql.raw(index.sql).execute(db);
      // The rename carried the copy's sequence row (the highest id left), if the table had rows.
      await sql`delete from sqlite_sequence where name = 'resources'`.execute(db);
      await sql`insert into sqlite_sequence (name, seq) select 'resources', max(${sequence}, coalesce(max(id), 0)) from resources`.execute(db);
      const broken = (await sql`pragma foreign_key_check`.execute(db)).rows;
      if (broken.length > 0) throw new Error(`foreign keys broken by the rebuild: ${JSON.stringify(broken)}`);
      await sql`commit`.execute(db);
    } catch (e) {
      await sql`rollback`.execute(db);
      throw e;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
