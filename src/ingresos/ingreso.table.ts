import type { Generated, Insertable, Selectable } from 'kysely';
import type { TableEntries } from '../platform/tables.js';

export interface IngresosTable {
  id: Generated<number>;
  paciente_id: number;
  fecha_inicio: string;
  fecha_fin: string | null;
  estado: Generated<'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO'>;
  motivo: string | null;
  created_at: string;
  updated_at: string;
}

export interface IngresoHistorialTable {
  id: Generated<number>;
  ingreso_id: number;
  at: string;
  user_id: number | null;
  /** null when the Ingreso was opened. */
  desde: string | null;
  hacia: string;
  motivo: string | null;
  fecha: string | null;
}

export interface IngresoTables {
  ingresos: IngresosTable;
  ingreso_historial: IngresoHistorialTable;
}

/** The registry's lines of these tables (src/platform/tables.ts). */
export const INGRESO_TABLE_ENTRIES = {
  ingresos: { versioned: true, patient: { column: 'paciente_id' } },
  ingreso_historial: { versioned: true, patient: { column: 'ingreso_id', via: 'ingresos' } },
} as const satisfies TableEntries<keyof IngresoTables>;

export type IngresoRow = Selectable<IngresosTable>;
export type NewIngresoRow = Insertable<IngresosTable>;
