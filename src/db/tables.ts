// Every table of the database, once (decision 0067): the features' lines of the table registry, each written
// beside its tables' types, composed here as database.ts composes the types. What the lines mean and what is
// derived from them: src/platform/tables.ts. The features' *.table.ts files are all this module imports.
import { AGENDA_TABLE_ENTRIES } from '../agenda/agenda.table.js';
import { AUDIT_TABLE_ENTRIES } from '../audit/audit.table.js';
import { DASHBOARD_TABLE_ENTRIES } from '../dashboard/dashboard.table.js';
import { EXAM_TABLE_ENTRIES } from '../exams/exam.table.js';
import { IMPORT_TABLE_ENTRIES } from '../imports/import.table.js';
import { INGRESO_TABLE_ENTRIES } from '../ingresos/ingreso.table.js';
import { PATIENT_TABLE_ENTRIES } from '../patients/patient.table.js';
import type { TableEntries } from '../platform/tables.js';
import { RIPS_TABLE_ENTRIES } from '../rips/rips.table.js';
import { USER_TABLE_ENTRIES } from '../users/user.table.js';
import type { Database } from './database.js';

export const TABLES = {
  // The machinery's own counters, written only by the triggers generated from this registry.
  table_versions: {},
  patient_versions: {},
  ...USER_TABLE_ENTRIES,
  ...AUDIT_TABLE_ENTRIES,
  ...PATIENT_TABLE_ENTRIES,
  ...INGRESO_TABLE_ENTRIES,
  ...EXAM_TABLE_ENTRIES,
  ...DASHBOARD_TABLE_ENTRIES,
  ...IMPORT_TABLE_ENTRIES,
  ...AGENDA_TABLE_ENTRIES,
  ...RIPS_TABLE_ENTRIES,
} as const satisfies TableEntries<keyof Database | 'patients_fts'>;
