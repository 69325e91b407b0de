import type { NewAuditRow } from './audit.table.js';

export type FieldChanges = Record<string, [unknown, unknown]>;

/** What a change or a view leaves in the audit trail, as the code describes it. */
export interface AuditEntry {
  at: Date;
  actor: { id: number; username: string } | null;
  action: string;
  entityType?: string | null;
  entityId?: number | null;
  patientId?: number | null;
  /** Field changes ({ field: [before, after] }) or details of a view or export. */
  changes?: Record<string, unknown> | null;
  requestId?: string | null;
}

/** The row an entry is stored as: the only place an entry becomes a row (recordAudit, the view queue and its writer). */
export function auditRowOf(entry: AuditEntry): NewAuditRow {
  return {
    at: entry.at.toISOString(),
    user_id: entry.actor?.id ?? null,
    username: entry.actor?.username ?? null,
    action: entry.action,
    entity_type: entry.entityType ?? null,
    entity_id: entry.entityId ?? null,
    patient_id: entry.patientId ?? null,
    changes: entry.changes ? JSON.stringify(entry.changes) : null,
    request_id: entry.requestId ?? null,
  };
}

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
