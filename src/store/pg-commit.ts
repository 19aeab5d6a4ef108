// What a failed PostgreSQL connection means for the change under way, read once for every query of
// the store (the API maps each to its answer, docs/api/errors.md):
// - a COMMIT whose answer the connection lost (the server restarted, the network failed after the
//   COMMIT went out) may have been carried out. Kysely would roll back on the dead connection and
//   throw that rollback's error, and nobody could tell a refused commit from one that may have
//   landed: a caller that commits again (rrset-batch.ts commits a failed batch write by write)
//   could land it twice. It is thrown as CommitOutcomeUnknown, as is a lost statement that commits
//   by itself (a write outside a transaction); a COMMIT the server itself refused is thrown as it was;
// - no connection to be had (refused, the pool's wait over, the server shutting down), or one lost
//   inside a transaction before its COMMIT (the server rolls that transaction back), or under a
//   read: StoreUnavailable, nothing stored, safe to send again.
import { PostgresDialect, PostgresDriver, type CompiledQuery, type DatabaseConnection, type Driver, type PostgresDialectConfig, type TransactionSettings } from 'kysely';
import { commitFailure, CommitOutcomeUnknown, connectionFailed, StoreUnavailable } from './errors.ts';

/** A statement that only reads (a SELECT, marked prepared or not: prepared.ts), whatever it reads. */
const reading = (sql: string): boolean => /^\s*(?:\/\*[^*]*\*\/\s*)?select\b/i.test(sql) && !/\b(?:insert|update|delete)\b/i.test(sql);

class CommitAwareDriver extends PostgresDriver {
  /** Connections lost with nothing left to roll back on them. */
  readonly #lost = new WeakSet<DatabaseConnection>();
  /** Connections inside a transaction, its COMMIT not sent yet. */
  readonly #inTransaction = new WeakSet<DatabaseConnection>();
  /** Connections whose statements' failures are read here (Kysely keeps one connection object per pooled client). */
  readonly #read = new WeakSet<DatabaseConnection>();

  override async acquireConnection(...args: Parameters<PostgresDriver['acquireConnection']>): Promise<DatabaseConnection> {
    let connection: DatabaseConnection;
    try {
      connection = await super.acquireConnection(...args);
    } catch (e) {
      throw connectionFailed(e) ? new StoreUnavailable({ cause: e }) : e;
    }
    if (!this.#read.has(connection)) {
      this.#read.add(connection);
      const execute = connection.executeQuery.bind(connection);
      connection.executeQuery = async <R>(query: CompiledQuery) => {
        try {
          return await execute<R>(query);
        } catch (e) {
          throw this.#failure(connection, query, e);
        }
      };
    }
    return connection;
  }

  #failure(connection: DatabaseConnection, query: CompiledQuery, error: unknown): unknown {
    if (!connectionFailed(error)) return error;
    if (this.#inTransaction.has(connection)) {
      this.#lost.add(connection);
      return new StoreUnavailable({ cause: error });
    }
    return reading(query.sql) ? new StoreUnavailable({ cause: error }) : commitFailure(error);
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    this.#inTransaction.add(connection);
    await super.beginTransaction(connection, settings);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // The COMMIT is a statement that commits: its connection lost, the outcome is unknown.
    this.#inTransaction.delete(connection);
    try {
      await super.commitTransaction(connection);
    } catch (e) {
      const failure = commitFailure(e);
      if (failure instanceof CommitOutcomeUnknown) this.#lost.add(connection);
      throw failure;
    }
  }

  override async rollbackTransaction(connection: Parameters<PostgresDriver['rollbackTransaction']>[0]): Promise<void> {
    this.#inTransaction.delete(connection);
    if (this.#lost.delete(connection)) return;
    await super.rollbackTransaction(connection);
  }
}

export class CommitAwarePostgresDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;

  constructor(config: PostgresDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new CommitAwareDriver(this.#config);
  }
}
