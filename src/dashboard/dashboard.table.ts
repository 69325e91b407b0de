import type { ColumnType } from 'kysely';

/**
 * The dashboard's data version (migration 0021): one row per slot (16 on PostgreSQL, 1 on SQLite), bumped by
 * database triggers whenever patients or ingresos change; the version is the sum of the slots. Never written by
 * the application.
 */
export interface DashboardVersionTable {
  slot: ColumnType<number, never, never>;
  n: ColumnType<number | string, never, never>;
}

export interface DashboardTables {
  dashboard_version: DashboardVersionTable;
  /** Same shape, bumped by every change of exam records (migration 0023). */
  exam_records_version: DashboardVersionTable;
}

// Migration 0021 also adds patients.ultimo_monitoreo (fecha of the patient's latest non-voided MONITOREO record,
// any cycle; null when none), written only by database triggers on exam_records. It is deliberately not declared
// in PatientsTable: the patient feature's row and form types are derived from that interface and have no use for
// it. The dashboard's queries name it with sql`p.ultimo_monitoreo` (monitoring.repository.ts).
