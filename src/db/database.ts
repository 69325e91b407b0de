import { PostgresAdapter, type ColumnType, type Kysely, type Transaction } from 'kysely';
import type { AgendaTables } from '../agenda/agenda.table.js';
import type { AuditTables } from '../audit/audit.table.js';
import type { DashboardTables } from '../dashboard/dashboard.table.js';
import type { ExamTables } from '../exams/exam.table.js';
import type { ImportTables } from '../imports/import.table.js';
import type { IngresoTables } from '../ingresos/ingreso.table.js';
import type { PatientTables } from '../patients/patient.table.js';
import type { RipsTables } from '../rips/rips.table.js';
import type { UserTables } from '../users/user.table.js';

/** Every table, composed from the features that own them. */
export interface Database extends UserTables, AuditTables, PatientTables, IngresoTables, ExamTables, DashboardTables, ImportTables, AgendaTables, RipsTables {
  table_versions: TableVersionsTable;
  patient_versions: PatientVersionsTable;
}

/**
 * One row per versioned table and slot (16 on PostgreSQL, 1 on SQLite), bumped by database triggers generated from
 * the table registry (tables.ts); a table's version is the sum of its slots. Never written by the application.
 */
export interface TableVersionsTable {
  table_name: ColumnType<string, never, never>;
  slot: ColumnType<number, never, never>;
  n: ColumnType<number | string, never, never>;
}

/**
 * One row per patient whose row, Ingresos, history, exam records or trail (its entries that are not views) ever
 * changed: a counter bumped by triggers generated from the table registry (tables.ts; decisions 0049, 0051).
 * Never written by the application.
 */
export interface PatientVersionsTable {
  paciente_id: ColumnType<number, never, never>;
  n: ColumnType<number | string, never, never>;
}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** A query runner: the database itself or an open transaction. */
export type Executor = Db | Trx;

/** True when the query runner talks to PostgreSQL (row locks and some SQL differ from SQLite). */
export const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;
