// The exam record's fields as people read them: the forms' labels and how each stored value reads in the
// history (src/shared/field-defs.ts).

import type { FieldDef } from '../shared/field-defs.js';
import { EXAM_KINDS, TIPOS_MONITOREO, TIPOS_SESION } from './exam.rules.js';

export const EXAM_FIELDS = {
  kind: { label: 'Clase de registro', kind: 'choice', choices: EXAM_KINDS },
  ingreso_id: { label: 'Ciclo', kind: 'reference' },
  fecha: { label: 'Fecha', kind: 'date' },
  registrado_por: { label: 'Registrado por (usuario)', kind: 'reference' },
  observaciones: { label: 'Observaciones', kind: 'text' },
  tipo: { label: 'Tipo', kind: 'choice', choices: TIPOS_MONITOREO },
  iah: { label: 'IAH', kind: 'decimal', unit: 'eventos/h' },
  saturacion_minima: { label: 'Saturación mínima', kind: 'decimal', unit: '%' },
  horas_uso_promedio: { label: 'Horas de uso promedio', kind: 'decimal', unit: 'h', unitInLabel: false },
  porcentaje_noches_4h: { label: 'Noches con uso ≥ 4 h', kind: 'decimal', unit: '%' },
  presion_cmh2o: { label: 'Presión', kind: 'decimal', unit: 'cmH₂O' },
  fuga_lpm: { label: 'Fuga', kind: 'decimal', unit: 'L/min' },
  tipo_sesion: { label: 'Tipo de sesión', kind: 'choice', choices: TIPOS_SESION },
  numero_sesion: { label: 'Número de sesión', kind: 'integer' },
  isi: { label: 'ISI (índice de severidad del insomnio)', kind: 'integer' },
  epworth: { label: 'Epworth (somnolencia)', kind: 'integer' },
  nombre_examen: { label: 'Nombre del examen', kind: 'text' },
  resultado: { label: 'Resultado', kind: 'text' },
  anulado_at: { label: 'Anulado el', kind: 'instant' },
  anulado_por: { label: 'Anulado por (usuario)', kind: 'reference' },
  motivo_anulacion: { label: 'Motivo de la anulación', kind: 'text' },
} as const satisfies Record<string, FieldDef>;

export type ExamFieldName = keyof typeof EXAM_FIELDS;

/** The columns a new record's `exam.create` entry lists (when not null): every field described here, so not created_at. */
export const EXAM_AUDITED_ON_CREATE: ReadonlySet<string> = new Set(Object.keys(EXAM_FIELDS));
