// The exam forms of decisions §7 as zod schemas: each field goes from the posted text to the stored value
// (decimals as integer hundredths, blank optional values as null), with its Spanish error message.

import { charCount } from '../shared/text.js';
import { z } from 'zod';
import { choiceField, decimalField } from '../patients/patient.schema.js';
import { formatDateEs, parseIsoDate } from '../shared/dates.js';
import type { FieldErrors, FormValues } from '../web/fields.js';
import { fail, validateForm, withContext } from '../web/form.js';
import {
  EXAM_TEXT_MAX,
  MONITOREO_MAX_HUNDREDTHS,
  PSICOLOGIA_RANGES,
  TIPOS_MONITOREO,
  TIPOS_SESION,
  type ExamKindValue,
} from './exam.rules.js';

export const MSG = {
  required: 'Este campo es obligatorio.',
  fechaRequired: 'La fecha es obligatoria.',
  fechaInvalid: 'Ingrese una fecha válida (AAAA-MM-DD).',
  fechaFuture: (today: string) => `La fecha no puede ser posterior a hoy (${formatDateEs(today)}).`,
  fechaBeforeCycle: (fechaInicio: string) =>
    `La fecha no puede ser anterior al inicio del ciclo activo (${formatDateEs(fechaInicio)}): un examen se registra en el ciclo en que se hizo.`,
  choice: 'Seleccione una opción de la lista.',
  integer: (min: number, max: number) => `Ingrese un número entero entre ${min} y ${max}.`,
  tooLong: (max: number) => `Máximo ${max} caracteres.`,
} as const;

/**
 * The exam's date lies within the cycle it is filed under (decision 0031): from the cycle's start to today (records
 * go to the ACTIVO cycle, which has no end yet). Without a cycle start (unit tests of other fields) only today bounds it.
 */
type ExamContext = () => { today: string; cycleStart: string | null };

const fecha = (context: ExamContext) =>
  z.string().transform((raw, ctx) => {
    const s = raw.trim();
    if (s === '') return fail(ctx, MSG.fechaRequired);
    const date = parseIsoDate(s);
    if (date === null) return fail(ctx, MSG.fechaInvalid);
    const { today, cycleStart } = context();
    if (date > today) return fail(ctx, MSG.fechaFuture(today));
    if (cycleStart !== null && date < cycleStart) return fail(ctx, MSG.fechaBeforeCycle(cycleStart));
    return date;
  });

const optionalInteger = ([min, max]: readonly [number, number]) =>
  z.string().transform((raw, ctx): number | null => {
    const s = raw.trim();
    if (s === '') return null;
    if (!/^\d{1,4}$/.test(s)) return fail(ctx, MSG.integer(min, max));
    const n = Number(s);
    return n >= min && n <= max ? n : fail(ctx, MSG.integer(min, max));
  });

const optionalText = (max: number) =>
  z.string().transform((raw, ctx): string | null => {
    const s = raw.trim();
    if (s === '') return null;
    return charCount(s) <= max ? s : fail(ctx, MSG.tooLong(max));
  });

const requiredText = (max: number) =>
  z.string().transform((raw, ctx): string => {
    const s = raw.trim();
    if (s === '') return fail(ctx, MSG.required);
    return charCount(s) <= max ? s : fail(ctx, MSG.tooLong(max));
  });

const monitoreo = withContext((context: ExamContext) =>
  z.object({
    fecha: fecha(context),
    tipo: choiceField(TIPOS_MONITOREO),
    iah: decimalField(MONITOREO_MAX_HUNDREDTHS.iah, null),
    saturacion_minima: decimalField(MONITOREO_MAX_HUNDREDTHS.saturacion_minima, null),
    horas_uso_promedio: decimalField(MONITOREO_MAX_HUNDREDTHS.horas_uso_promedio, null),
    porcentaje_noches_4h: decimalField(MONITOREO_MAX_HUNDREDTHS.porcentaje_noches_4h, null),
    presion_cmh2o: decimalField(MONITOREO_MAX_HUNDREDTHS.presion_cmh2o, null),
    fuga_lpm: decimalField(MONITOREO_MAX_HUNDREDTHS.fuga_lpm, null),
    observaciones: optionalText(EXAM_TEXT_MAX.observaciones),
  }),
);

export const monitoreoSchema = (today: string, cycleStart: string | null = null) => monitoreo({ today, cycleStart });

const psicologia = withContext((context: ExamContext) =>
  z.object({
    fecha: fecha(context),
    tipo_sesion: choiceField(TIPOS_SESION),
    numero_sesion: optionalInteger(PSICOLOGIA_RANGES.numero_sesion),
    isi: optionalInteger(PSICOLOGIA_RANGES.isi),
    epworth: optionalInteger(PSICOLOGIA_RANGES.epworth),
    observaciones: optionalText(EXAM_TEXT_MAX.observaciones),
  }),
);

export const psicologiaSchema = (today: string, cycleStart: string | null = null) => psicologia({ today, cycleStart });

const otro = withContext((context: ExamContext) =>
  z.object({
    fecha: fecha(context),
    nombre_examen: requiredText(EXAM_TEXT_MAX.nombre_examen),
    resultado: optionalText(EXAM_TEXT_MAX.resultado),
    observaciones: optionalText(EXAM_TEXT_MAX.observaciones),
  }),
);

export const otroSchema = (today: string, cycleStart: string | null = null) => otro({ today, cycleStart });

export const voidSchema = z.object({ motivo_anulacion: requiredText(EXAM_TEXT_MAX.motivo_anulacion) });

export type MonitoreoInput = z.output<ReturnType<typeof monitoreoSchema>>;
export type PsicologiaInput = z.output<ReturnType<typeof psicologiaSchema>>;
export type OtroInput = z.output<ReturnType<typeof otroSchema>>;

const SCHEMAS = { MONITOREO: monitoreoSchema, PSICOLOGIA: psicologiaSchema, OTRO: otroSchema } as const;

/** The posted field names of each kind's form, in form order (what readForm accepts). */
export const EXAM_FORM_FIELDS: Record<ExamKindValue, readonly string[]> = {
  MONITOREO: Object.keys(monitoreoSchema('2000-01-01').shape),
  PSICOLOGIA: Object.keys(psicologiaSchema('2000-01-01').shape),
  OTRO: Object.keys(otroSchema('2000-01-01').shape),
};

export type ParsedExam =
  | { kind: 'MONITOREO'; data: MonitoreoInput }
  | { kind: 'PSICOLOGIA'; data: PsicologiaInput }
  | { kind: 'OTRO'; data: OtroInput };

/** The schema of one kind's form, against `today` and the start of the cycle the record is filed under. */
export function examSchema(kind: ExamKindValue, today: string, cycleStart: string | null = null) {
  return SCHEMAS[kind](today, cycleStart);
}

/**
 * Validates one kind's form against `today` (the configured zone's date) and the start of the cycle the record is
 * filed under: the values to store, or field errors.
 */
export function parseExamForm(
  kind: ExamKindValue,
  values: FormValues,
  today: string,
  cycleStart: string | null = null,
): { ok: true; parsed: ParsedExam } | { ok: false; errors: FieldErrors } {
  const result = validateForm(values, examSchema(kind, today, cycleStart));
  if (!result.ok) return { ok: false, errors: result.errors };
  return { ok: true, parsed: { kind, data: result.data } as ParsedExam };
}
