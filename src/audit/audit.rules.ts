export type FieldChanges = Record<string, [unknown, unknown]>;

/** The fields whose value differs between two versions of a record, as { field: [before, after] }. */
export function diffFields(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  ignore: readonly string[] = [],
): FieldChanges {
  const changes: FieldChanges = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const key of keys) {
    if (ignore.includes(key)) continue;
    const a = before?.[key] ?? null;
    const b = after?.[key] ?? null;
    if (a !== b) changes[key] = [a, b];
  }
  return changes;
}
