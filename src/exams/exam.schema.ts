// The exam forms of decisions §7 as zod schemas: each field goes from the posted text to the stored value
// (decimals as integer hundredths, blank optional values as null), with its Spanish error message.

import { charCount } from '../shared/text.js';
import { z } from 'zod';
import { choiceField, decimalField } from '../patients/patient.schema.js';
import { formatDateEs, parseIsoDate } from '../shared/dates.js';
import type { FieldErrors, FormValues } from '../web/fields.js';
import { fail, validateForm, withContext } from '../web/form.js';
import { EXAM_FIELDS, EXAM_KIND_FIELDS, type ExamFieldDef, type ExamFieldName } from './exam.fields.js';
import type { ExamKindValue } from './exam.rules.js';

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
  hora: 'Ingrese la hora como HH:MM (24 horas), por ejemplo 07:30.',
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

/** The time of day RIPS reports (AAAA-MM-DD HH:MM), 24-hour 'HH:MM'; '7:30' is read as 07:30; blank: null. */
const optionalTime = z.string().transform((raw, ctx): string | null => {
  const s = raw.trim();
  if (s === '') return null;
  const m = /^(\d{1,2}):(\d{2})$/.exec(s);
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) return fail(ctx, MSG.hora);
  return `${m[1]!.padStart(2, '0')}:${m[2]}`;
});

const requiredText = (max: number) =>
  z.string().transform((raw, ctx): string => {
    const s = raw.trim();
    if (s === '') return fail(ctx, MSG.required);
    return charCount(s) <= max ? s : fail(ctx, MSG.tooLong(max));
  });

/** A stored value's type, from its definition: what its parser gives. */
type ValueOf<D> = D extends { kind: 'date' }
  ? string
  : D extends { kind: 'choice'; choices: readonly { value: infer V }[] }
    ? V
    : D extends { kind: 'decimal' | 'integer' }
      ? number | null
      : D extends { required: true }
        ? string
        : string | null;

type Parser<N extends ExamFieldName> = z.ZodType<ValueOf<(typeof EXAM_FIELDS)[N]>, string>;
type ShapeOf<K extends ExamKindValue> = { [N in (typeof EXAM_KIND_FIELDS)[K][number]]: Parser<N> };

/** A field's parser, from its definition: from the posted text to the stored value, with its Spanish message. */
function parserOf<N extends ExamFieldName>(name: N, context: ExamContext): Parser<N> {
  const def: ExamFieldDef = EXAM_FIELDS[name];
  const parser = (() => {
    switch (def.kind) {
      case 'date':
        return fecha(context);
      case 'choice':
        return choiceField(def.choices!);
      case 'decimal':
        return decimalField(def.max!, null);
      case 'integer':
        return optionalInteger(def.range!);
      case 'text':
        if (def.time) return optionalTime;
        return def.required ? requiredText(def.max!) : optionalText(def.max!);
      default:
        throw new Error(`the exam field ${name} is not posted by a form`);
    }
  })();
  return parser as unknown as Parser<N>;
}

/** A kind's form schema, built once from the field table (decision 0047: bound per request with its context). */
const kindSchema = <K extends ExamKindValue>(kind: K) =>
  withContext((context: ExamContext) => {
    const names: readonly ExamFieldName[] = EXAM_KIND_FIELDS[kind];
    return z.object(Object.fromEntries(names.map((name) => [name, parserOf(name, context)])) as ShapeOf<K>);
  });

const monitoreo = kindSchema('MONITOREO');
export const monitoreoSchema = (today: string, cycleStart: string | null = null) => monitoreo({ today, cycleStart });

const psicologia = kindSchema('PSICOLOGIA');
export const psicologiaSchema = (today: string, cycleStart: string | null = null) => psicologia({ today, cycleStart });

const otro = kindSchema('OTRO');
export const otroSchema = (today: string, cycleStart: string | null = null) => otro({ today, cycleStart });

export const voidSchema = z.object({ motivo_anulacion: requiredText(EXAM_FIELDS.motivo_anulacion.max) });

export type MonitoreoInput = z.output<ReturnType<typeof monitoreoSchema>>;
export type PsicologiaInput = z.output<ReturnType<typeof psicologiaSchema>>;
export type OtroInput = z.output<ReturnType<typeof otroSchema>>;

const SCHEMAS = { MONITOREO: monitoreoSchema, PSICOLOGIA: psicologiaSchema, OTRO: otroSchema } as const;

/** The posted field names of each kind's form, in form order (what readForm accepts). */
export const EXAM_FORM_FIELDS: Record<ExamKindValue, readonly string[]> = EXAM_KIND_FIELDS;

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
  // hora came later (issue 27) and is optional: values that do not carry it read it as blank.
  const result = validateForm({ hora: '', ...values }, examSchema(kind, today, cycleStart));
  if (!result.ok) return { ok: false, errors: result.errors };
  return { ok: true, parsed: { kind, data: result.data } as ParsedExam };
}
