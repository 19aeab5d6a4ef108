// Kysely's SqliteDialect expects a better-sqlite3-shaped database; this adapts node:sqlite to it,
// so the embedded default needs no native addon.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { WalSyncAhead } from './wal-sync.ts';

/** node:sqlite binds no booleans; the schema stores flags as 0/1 integers. */
function bindable(values: readonly unknown[]): SQLInputValue[] {
  return values.map((v) => (typeof v === 'boolean' ? Number(v) : (v as SQLInputValue)));
}

/** `committed`: called after each run of a COMMIT. */
function adaptStatement(statement: StatementSync, committed: () => void): SqliteStatement {
  const commit = statement.sourceSQL.trim().toLowerCase() === 'commit';
  return {
    // A statement that yields columns (SELECT, or RETURNING) is read with all().
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...bindable(parameters)),
    run: commit
      ? (parameters) => {
          const result = statement.run(...bindable(parameters));
          committed();
          return result;
        }
      : (parameters) => statement.run(...bindable(parameters)),
    iterate: (parameters) => statement.iterate(...bindable(parameters)),
  };
}

/** The node:sqlite database under each Kysely instance opened on one (not its transactions'). */
const databases = new WeakMap<object, DatabaseSync>();

/** `db`, a Kysely instance whose dialect is sqliteDialect(`database`). */
export function rememberSqlite(db: object, database: DatabaseSync): void {
  databases.set(db, database);
}

/** The database under `db`, for the reads that take rows as arrays (served-rrset-pages.ts); undefined for another engine or a transaction. */
export function sqliteOf(db: object): DatabaseSync | undefined {
  return databases.get(db);
}

export function openSqlite(file: string): DatabaseSync {
  const database = new DatabaseSync(file, { enableForeignKeyConstraints: true, timeout: 5000 });
  // WAL lets the CLI write while the server runs; NORMAL sync survives a killed process
  // (the WAL is in the OS page cache), only an OS crash could lose the last commits.
  database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  return database;
}

// Kysely prepares every query it runs; compiling the same SQL again costs more than running it,
// so statements are kept per SQL text (a handful of shapes per query builder call site).
const maxCachedStatements = 1000;

export function sqliteDialect(database: DatabaseSync): SqliteDialect {
  const statements = new Map<string, SqliteStatement>();
  const location = database.location();
  const wal = location === null ? undefined : new WalSyncAhead(`${location}-wal`);
  const committed = () => wal?.committed();
  const adapted: SqliteDatabase = {
    close: () => {
      statements.clear();
      database.close();
      wal?.close();
    },
    prepare: (sql) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        if (statements.size >= maxCachedStatements) statements.clear();
        statement = adaptStatement(database.prepare(sql), committed);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
  return new SqliteDialect({ database: adapted });
}
