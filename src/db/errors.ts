/** A unique-constraint violation on either engine (the database's own guard against races). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * PostgreSQL gave up on the transaction because of a concurrent one (deadlock detected, or a serialization
 * failure): it was rolled back whole, and running it again is correct. SQLite never reports these.
 */
export function isTransientConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}
