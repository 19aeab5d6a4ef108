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
export function answeredByServer(error: unknown): boolean {
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
 * PostgreSQL could not be reached (no connection within the pool's wait, refused, shutting down),
 * or the connection failed under a transaction before its COMMIT was sent: nothing of the change was
 * stored (the server rolls back a transaction whose connection goes). The API answers 503
 * store_unavailable; sending the request again is safe.
 */
export class StoreUnavailable extends Error {
  constructor(options: { cause: unknown }) {
    super('the connection to PostgreSQL failed before anything was committed', options);
  }
}

/** Socket errors of a connection that failed or could not be made. */
const socketErrors = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** What the server says when it ends a connection or will not take one: the connection exceptions (08), the shutdowns (57P01–57P03), too many connections. */
const closingStates = /^(?:08...|57P0[123]|53300)$/;
/** pg's own errors for a connection that ended, or one the pool could not give within its wait. */
const closedMessages = /^(?:Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

/** True for an error that says the connection to PostgreSQL failed or could not be made, not that a statement failed on it. */
export function connectionFailed(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && (socketErrors.has(e.code) || (answeredByServer(error) && closingStates.test(e.code)))) return true;
  return typeof e.message === 'string' && closedMessages.test(e.message);
}

/**
 * What a PostgreSQL commit (a COMMIT, or a statement that commits by itself) failing with `error`
 * means: the error itself when the server answered it (refused, or a COMMIT answered ROLLBACK: not
 * committed) or when it is already read (pg-commit.ts), else CommitOutcomeUnknown.
 */
export function commitFailure(error: unknown): unknown {
  if (error instanceof CommitOutcomeUnknown || error instanceof StoreUnavailable) return error;
  return answeredByServer(error) || isAbortedTransactionError(error) ? error : new CommitOutcomeUnknown({ cause: error });
}
