// Engine-independent reading of the store's errors.
import { isAbortedTransactionError } from 'kysely';

/** True for a UNIQUE violation from node:sqlite or pg. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  // SQLITE_CONSTRAINT_UNIQUE = 2067, SQLITE_CONSTRAINT_PRIMARYKEY = 1555; PostgreSQL unique_violation = 23505.
  return e.code === '23505' || e.errcode === 2067 || e.errcode === 1555;
}

/**
 * True for an error PostgreSQL itself answered with (an ErrorResponse: a severity and a SQLSTATE):
 * the statement failed as a whole, and a COMMIT's transaction with it. Any other error of a
 * statement on its way (the connection reset or closed under it) leaves unknown whether the server
 * carried it out: a COMMIT, or a statement outside a transaction, may have been committed.
 */
function answeredByServer(error: unknown): boolean {
  const e = error as { code?: unknown; severity?: unknown };
  return typeof e.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
}

/**
 * A change sent to PostgreSQL whose answer the connection lost after it was sent to be committed (a
 * COMMIT, or a statement that commits by itself): the server may or may not have committed it. It
 * is neither committed again (it could land twice) nor reported as refused; the API answers 503
 * commit_outcome_unknown.
 */
export class CommitOutcomeUnknown extends Error {
  constructor(options: { cause: unknown }) {
    super('the connection to PostgreSQL was lost after the change was sent to be committed', options);
  }
}

/**
 * What a PostgreSQL commit (a COMMIT, or a statement that commits by itself) failing with `error`
 * means: the error itself when the server answered it (refused, or a COMMIT answered ROLLBACK: not
 * committed), else CommitOutcomeUnknown.
 */
export function commitFailure(error: unknown): unknown {
  return answeredByServer(error) || isAbortedTransactionError(error) ? error : new CommitOutcomeUnknown({ cause: error });
}
