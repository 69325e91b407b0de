import type { Generated, Selectable } from 'kysely';

export interface AuditLogTable {
  id: Generated<number>;
  at: string;
  user_id: number | null;
  username: string | null;
  action: string;
  entity_type: string | null;
  entity_id: number | null;
  patient_id: number | null;
  changes: string | null;
  request_id: string | null;
}

export interface AuditTables {
  audit_log: AuditLogTable;
}

export type AuditRow = Selectable<AuditLogTable>;
