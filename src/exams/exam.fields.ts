// The exam record's fields, each described once: its label and kind (how the history shows its stored value:
// src/shared/field-defs.ts), whether a form requires it, and its limits. The forms of each kind (exam.schema.ts:
// their zod schemas; views/forms.tsx: their inputs and hints) and the audited columns are derived from here.

import type { FieldDef } from '../shared/field-defs.js';
import {
  EXAM_KINDS,
  EXAM_TEXT_MAX,
  MONITOREO_MAX_HUNDREDTHS,
  PSICOLOGIA_RANGES,
  TIPOS_MONITOREO,
  TIPOS_SESION,
  type ExamKindValue,
} from './exam.rules.js';

/** A field of the exam forms: what the trail needs, and what the form's parser and inputs need. */
export interface ExamFieldDef extends FieldDef {
  /** a form refuses it blank */
  readonly required?: true;
  /** a text's most characters, or a decimal's largest value in hundredths */
  readonly max?: number;
  /** a whole number's smallest and largest value */
  readonly range?: readonly [number, number];
  /** a time of day 'HH:MM' (text, blank: null) */
  readonly time?: true;
}

export const EXAM_FIELDS = {
  kind: { label: 'Clase de registro', kind: 'choice', choices: EXAM_KINDS },
  ingreso_id: { label: 'Ciclo', kind: 'reference' },
  fecha: { label: 'Fecha', kind: 'date', required: true },
  hora: { label: 'Hora', kind: 'text', time: true },
  registrado_por: { label: 'Registrado por (usuario)', kind: 'reference' },
  observaciones: { label: 'Observaciones', kind: 'text', max: EXAM_TEXT_MAX.observaciones },
  tipo: { label: 'Tipo', kind: 'choice', choices: TIPOS_MONITOREO, required: true },
  iah: { label: 'IAH', kind: 'decimal', unit: 'eventos/h', max: MONITOREO_MAX_HUNDREDTHS.iah },
  saturacion_minima: { label: 'Saturación mínima', kind: 'decimal', unit: '%', max: MONITOREO_MAX_HUNDREDTHS.saturacion_minima },
  horas_uso_promedio: { label: 'Horas de uso promedio', kind: 'decimal', unit: 'h', unitInLabel: false, max: MONITOREO_MAX_HUNDREDTHS.horas_uso_promedio },
  porcentaje_noches_4h: { label: 'Noches con uso ≥ 4 h', kind: 'decimal', unit: '%', max: MONITOREO_MAX_HUNDREDTHS.porcentaje_noches_4h },
  presion_cmh2o: { label: 'Presión', kind: 'decimal', unit: 'cmH₂O', max: MONITOREO_MAX_HUNDREDTHS.presion_cmh2o },
  fuga_lpm: { label: 'Fuga', kind: 'decimal', unit: 'L/min', max: MONITOREO_MAX_HUNDREDTHS.fuga_lpm },
  tipo_sesion: { label: 'Tipo de sesión', kind: 'choice', choices: TIPOS_SESION, required: true },
  numero_sesion: { label: 'Número de sesión', kind: 'integer', range: PSICOLOGIA_RANGES.numero_sesion },
  isi: { label: 'ISI (índice de severidad del insomnio)', kind: 'integer', range: PSICOLOGIA_RANGES.isi },
  epworth: { label: 'Epworth (somnolencia)', kind: 'integer', range: PSICOLOGIA_RANGES.epworth },
  nombre_examen: { label: 'Nombre del examen', kind: 'text', required: true, max: EXAM_TEXT_MAX.nombre_examen },
  resultado: { label: 'Resultado', kind: 'text', max: EXAM_TEXT_MAX.resultado },
  anulado_at: { label: 'Anulado el', kind: 'instant' },
  anulado_por: { label: 'Anulado por (usuario)', kind: 'reference' },
  motivo_anulacion: { label: 'Motivo de la anulación', kind: 'text', required: true, max: EXAM_TEXT_MAX.motivo_anulacion },
} as const satisfies Record<string, ExamFieldDef>;

export type ExamFieldName = keyof typeof EXAM_FIELDS;

/** The fields each kind's form posts, in form order (its schema, its inputs, the names readForm accepts). */
export const EXAM_KIND_FIELDS = {
  MONITOREO: ['fecha', 'hora', 'tipo', 'iah', 'saturacion_minima', 'horas_uso_promedio', 'porcentaje_noches_4h', 'presion_cmh2o', 'fuga_lpm', 'observaciones'],
  PSICOLOGIA: ['fecha', 'hora', 'tipo_sesion', 'numero_sesion', 'isi', 'epworth', 'observaciones'],
  OTRO: ['fecha', 'hora', 'nombre_examen', 'resultado', 'observaciones'],
} as const satisfies Record<ExamKindValue, readonly ExamFieldName[]>;

/** The columns a new record's `exam.create` entry lists (when not null): every field described here, so not created_at. */
export const EXAM_AUDITED_ON_CREATE: ReadonlySet<string> = new Set(Object.keys(EXAM_FIELDS));

/** The hint an input shows under its label: a number's range as a person writes it ('0 a 200'). */
export function examFieldHint(def: ExamFieldDef): string | undefined {
  if (def.range) return `${def.range[0]} a ${def.range[1]}`;
  if (def.kind === 'decimal' && def.max !== undefined) return `0 a ${def.max / 100}`;
  return undefined;
}
