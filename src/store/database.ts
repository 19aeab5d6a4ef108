// Opens the store on the configured engine: SQLite in the data dir by default, PostgreSQL
// when a database URL is set.
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { CommitAwarePostgresDialect } from './pg-commit.ts';
import { pgDriver } from './pg-driver.ts';
import { PgWatchdog } from './pg-watchdog.ts';
import { preparingPool } from './prepared.ts';
import type { Tables } from './schema.ts';
import { openSqlite, rememberSqlite, sqliteDialect } from './sqlite.ts';

export type Engine = 'sqlite' | 'postgres';
export type Db = Kysely<Tables>;

export interface Store {
  db: Db;
  engine: Engine;
  /** Throws when the store cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}


/**
 * `logger`: told when PostgreSQL drops an idle pooled connection (a server restart, an
 * administrator's terminate, a network cut). The pool discards that connection and the next query
 * opens another; unheard, the pool's 'error' event would end the process.
 */
export function openStore(config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'databasePrepare' | 'databaseWaitMs'>>, logger?: Logger): Store {
  const { db, engine } = config.databaseUrl === undefined
    ? { db: openSqliteDb(config.dataDir), engine: 'sqlite' as const }
    : { db: openPostgresDb(config.databaseUrl, config.databasePrepare ?? true, config.databaseWaitMs ?? 5000, logger), engine: 'postgres' as const };
  return {
    db,
    engine,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

/**
 * `prepare`: run the statements marked prepared (prepared.ts) as named prepared statements.
 * `waitMs`: how long a query waits for a connection, a new one or a free one of the pool's: past it,
 * StoreUnavailable (pg-commit.ts). Without it a query would wait as long as the operating system
 * takes to give up on an unreachable server (minutes), and every request meanwhile would queue behind
 * it, without bound. TCP keep-alive finds an idle connection to a server that went away; the
 * watchdog (pg-watchdog.ts), a connection that went away under a statement, after the same wait.
 */
function openPostgresDb(url: string, prepare: boolean, waitMs: number, logger: Logger | undefined): Db {
  const pool = new (pgDriver().Pool)({ connectionString: url, max: 10, connectionTimeoutMillis: waitMs, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
  pool.on('error', (e) => logger?.warn({ err: e }, 'PostgreSQL dropped an idle connection; the next query opens another'));
  return new Kysely<Tables>({ dialect: new CommitAwarePostgresDialect({ pool: preparingPool(pool, prepare, new PgWatchdog(pool, waitMs, logger)) }) });
}

function openSqliteDb(dataDir: string): Db {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const database = openSqlite(path.join(dataDir, 'edgeplane.sqlite'));
  const db = new Kysely<Tables>({ dialect: sqliteDialect(database) });
  rememberSqlite(db, database);
  return db;
}
