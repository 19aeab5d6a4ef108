// A PostgreSQL COMMIT whose answer the connection lost (the server restarted, the network failed
// after the COMMIT went out) may have been carried out. Kysely then rolls back on the dead
// connection and throws that rollback's error, and nobody can tell a refused commit from one that
// may have landed: a caller that commits again (rrset-batch.ts commits a failed batch write by write)
// could land it twice. This dialect's driver throws CommitOutcomeUnknown for it instead, for every
// transaction of the store; a COMMIT the server itself refused is thrown as it was.
import { PostgresDialect, PostgresDriver, type DatabaseConnection, type Driver, type PostgresDialectConfig } from 'kysely';
import { commitFailure, CommitOutcomeUnknown } from './errors.ts';

class CommitAwareDriver extends PostgresDriver {
  /** Connections whose COMMIT's answer was lost: nothing is left to roll back on them. */
  readonly #lost = new WeakSet<DatabaseConnection>();

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection);
    } catch (e) {
      const failure = commitFailure(e);
      if (failure instanceof CommitOutcomeUnknown) this.#lost.add(connection);
      throw failure;
    }
  }

  override async rollbackTransaction(connection: Parameters<PostgresDriver['rollbackTransaction']>[0]): Promise<void> {
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
