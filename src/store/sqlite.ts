// Kysely's SqliteDialect expects a better-sqlite3-shaped database; this adapts node:sqlite to it,
// so the embedded default needs no native addon.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';

/** node:sqlite binds no booleans; the schema stores flags as 0/1 integers. */
function bindable(values: readonly unknown[]): SQLInputValue[] {
  return values.map((v) => (typeof v === 'boolean' ? Number(v) : (v as SQLInputValue)));
}

function adaptStatement(statement: StatementSync): SqliteStatement {
  return {
    // A statement that yields columns (SELECT, or RETURNING) is read with all().
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...bindable(parameters)),
    run: (parameters) => statement.run(...bindable(parameters)),
    iterate: (parameters) => statement.iterate(...bindable(parameters)),
  };
}

export function openSqlite(file: string): DatabaseSync {
  const database = new DatabaseSync(file, { enableForeignKeyConstraints: true, timeout: 5000 });
  // WAL lets the CLI write while the server runs; NORMAL sync survives a killed process
  // (the WAL is in the OS page cache), only an OS crash could lose the last commits.
  database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  return database;
}

export function sqliteDialect(database: DatabaseSync): SqliteDialect {
  const adapted: SqliteDatabase = {
    close: () => database.close(),
    prepare: (sql) => adaptStatement(database.prepare(sql)),
  };
  return new SqliteDialect({ database: adapted });
}
