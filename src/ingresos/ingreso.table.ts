import type { Generated, Insertable, Selectable } from 'kysely';

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

export type IngresoRow = Selectable<IngresosTable>;
export type NewIngresoRow = Insertable<IngresosTable>;
