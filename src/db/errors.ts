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

/**
 * The date rules the database holds on every write (migration 0160, decision 0063), by the code its refusal names.
 * A test checks this list against the migration's.
 */
export const DATE_RULE_CODES = [
  'exam_outside_cycle',
  'start_before_birth',
  'end_before_start',
  'start_after_exam',
  'end_before_exam',
  'start_after_status_change',
  'end_before_status_change',
  'birth_after_start',
  'history_out_of_order',
  'status_change_before_exam',
] as const;
export type DateRuleCode = (typeof DATE_RULE_CODES)[number];

const DATE_RULE = /^date rule (\w+):/;

/**
 * The date rule the database refused a write for (a race got past the domain check, or a writer other than the
 * application), or null for any other error. SQLite: RAISE(ABORT) in a trigger; PostgreSQL: check_violation.
 */
export function dateRuleRefused(err: unknown): DateRuleCode | null {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.message !== 'string' || (e.code !== '23514' && e.code !== 'SQLITE_CONSTRAINT_TRIGGER')) return null;
  const code = DATE_RULE.exec(e.message)?.[1];
  return code !== undefined && (DATE_RULE_CODES as readonly string[]).includes(code) ? (code as DateRuleCode) : null;
}
