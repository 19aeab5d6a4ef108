// Engine-independent reading of constraint errors.

/** True for a UNIQUE violation from node:sqlite or pg. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  // SQLITE_CONSTRAINT_UNIQUE = 2067, SQLITE_CONSTRAINT_PRIMARYKEY = 1555; PostgreSQL unique_violation = 23505.
  return e.code === '23505' || e.errcode === 2067 || e.errcode === 1555;
}
