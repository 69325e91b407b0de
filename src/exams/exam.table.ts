import type { Generated, Insertable, Selectable } from 'kysely';
import type { TableEntries } from '../platform/tables.js';

export type ExamKind = 'MONITOREO' | 'PSICOLOGIA' | 'OTRO';

/**
 * Every exam record, of the three kinds (see migration 20261122_0003_exams for why one table): the columns of
 * the other kinds are null. Decimal values are integer hundredths.
 */
export interface ExamRecordsTable {
  id: Generated<number>;
  ingreso_id: number;
  kind: ExamKind;
  /** 'YYYY-MM-DD', never in the future when registered. */
  fecha: string;
  /** 'HH:MM', the time of day RIPS needs; null for the records written before it was asked (decision 0090). */
  hora: string | null;
  /** The user who registered it. */
  registrado_por: number;
  created_at: string;
  observaciones: string | null;
  // Monitoreo
  tipo: string | null;
  /** Hundredths of events/hour. */
  iah: number | null;
  /** Hundredths of a percent. */
  saturacion_minima: number | null;
  /** Hundredths of an hour. */
  horas_uso_promedio: number | null;
  /** Hundredths of a percent. */
  porcentaje_noches_4h: number | null;
  /** Hundredths of cmH2O. */
  presion_cmh2o: number | null;
  /** Hundredths of L/min. */
  fuga_lpm: number | null;
  // Psicologia
  tipo_sesion: string | null;
  numero_sesion: number | null;
  isi: number | null;
  epworth: number | null;
  // Otros
  nombre_examen: string | null;
  resultado: string | null;
  // Voiding (all three set together, once)
  anulado_at: string | null;
  anulado_por: number | null;
  motivo_anulacion: string | null;
}

export interface ExamTables {
  exam_records: ExamRecordsTable;
}

/** The registry's line of the table (src/platform/tables.ts). */
export const EXAM_TABLE_ENTRIES = {
  exam_records: { versioned: true, patient: { column: 'ingreso_id', via: 'ingresos' } },
} as const satisfies TableEntries<keyof ExamTables>;

export type ExamRecordRow = Selectable<ExamRecordsTable>;
export type NewExamRecordRow = Insertable<ExamRecordsTable>;
