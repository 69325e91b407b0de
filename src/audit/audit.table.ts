import type { Generated, Selectable } from 'kysely';
import type { TableEntries } from '../platform/tables.js';
import { VIEW_ACTIONS } from './audit.labels.js';

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

/**
 * The registry's line of the trail (src/platform/tables.ts). No kept page reads it, but an entry of a patient that
 * is not a view (a change, an export) bumps the patient's counter in the same transaction (decision 0051), so the
 * history kept for the patient page is current while the counter stands; and a patient's changes are read from an
 * index of their own, (patient_id, id) over the entries that are not views. Both, trigger and index, are generated
 * at start from VIEW_ACTIONS: a new view action is one word in that list.
 */
export const AUDIT_TABLE_ENTRIES = {
  audit_log: { patient: { column: 'patient_id', appendOnly: true, unless: { column: 'action', values: VIEW_ACTIONS }, changesIndex: true } },
} as const satisfies TableEntries<keyof AuditTables>;

export type AuditRow = Selectable<AuditLogTable>;

/** An entry on its way to audit_log (the id comes from the database): the one row shape every writer uses. */
export type NewAuditRow = Omit<AuditLogTable, 'id'>;

/** The columns of NewAuditRow, in the order the view writer's statement binds them. */
export const AUDIT_ROW_COLUMNS = ['at', 'user_id', 'username', 'action', 'entity_type', 'entity_id', 'patient_id', 'changes', 'request_id'] as const;

// Every column of NewAuditRow is listed, and nothing else: a column added to the table without the list fails to compile.
type Listed = (typeof AUDIT_ROW_COLUMNS)[number];
const _everyColumnListed: [Exclude<keyof NewAuditRow, Listed>, Exclude<Listed, keyof NewAuditRow>] extends [never, never] ? true : never = true;
void _everyColumnListed;
