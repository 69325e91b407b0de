import type { ColumnType } from 'kysely';
import type { TableEntries } from '../platform/tables.js';

/**
 * The dashboard's counters (migration 0070, decision 0045): signed deltas per (key, slot), written only by
 * database triggers in the write's own transaction; a figure is the sum over the slots of its key.
 */
type Counter<T> = { [K in keyof T]: ColumnType<T[K], never, never> } & {
  slot: ColumnType<number, never, never>;
  n: ColumnType<number | string, never, never>;
};

export interface DashboardTables {
  /** Open Ingresos per (programa, entidad_salud, estado, month of fecha_inicio) and the sum of valor_capita. */
  dashboard_open_counts: Counter<{ programa: string; entidad_salud: string; estado: string; mes: string; total: number | string }>;
  /** Ingresos per month of fecha_inicio ('inicio') and of fecha_fin ('fin'). */
  dashboard_cycle_counts: Counter<{ kind: 'inicio' | 'fin'; mes: string }>;
  /** Active patients per ultimo_monitoreo ('' when never monitored). */
  dashboard_monitoreo_counts: Counter<{ ultimo: string }>;
}

/**
 * The registry's lines of the counters (src/platform/tables.ts): kept by the database from a versioned table. The
 * open Ingresos' counts change with a patient's programa, entidad or capita, and with an Ingreso's insert, delete,
 * estado, start or patient, each of which also rewrites the patient's activo_desde (migration 0010): every change
 * of them changes patients.
 */
export const DASHBOARD_TABLE_ENTRIES = {
  dashboard_open_counts: { derivedFrom: 'patients' },
  dashboard_cycle_counts: { derivedFrom: 'ingresos' },
  dashboard_monitoreo_counts: { derivedFrom: 'patients' },
} as const satisfies TableEntries<keyof DashboardTables>;

// Migration 0021 also adds patients.ultimo_monitoreo (fecha of the patient's latest non-voided MONITOREO record,
// any cycle; null when none), written only by database triggers on exam_records. It is deliberately not declared
// in PatientsTable: the patient feature's row and form types are derived from that interface and have no use for
// it. The dashboard's queries name it with sql`p.ultimo_monitoreo` (monitoring.repository.ts).
