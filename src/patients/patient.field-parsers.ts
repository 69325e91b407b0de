// The patient form's field parsers: each from the text a person typed (or a spreadsheet cell) to the stored value,
// with its Spanish message. The field table (patient.fields.ts) gives each field its parser; the exam forms use
// choiceField and decimalField too.

import { z } from 'zod';
import { parseCalendarDate, parseIsoDate } from '../shared/dates.js';
import { parseDecimalHundredths, type DecimalKind } from '../shared/decimal.js';
import { charCount } from '../shared/text.js';
import { fail } from '../web/form.js';
import { DEFAULT_DEPARTAMENTO, matchDepartamento } from './divipola.js';
import { birthDateProblem, documentoKey, matchChoice, type Choice } from './patient.rules.js';

export const FORM_MSG = {
  required: 'Este campo es obligatorio.',
  tooLong: (max: number, length: number): string => `Máximo ${max} caracteres (tiene ${length}).`,
  choice: 'Seleccione una opción de la lista.',
  diagnostico: 'El único diagnóstico permitido es G47.3 (Apnea del Sueño).',
  estrato: 'El estrato debe ser un número del 1 al 6.',
  date: 'Ingrese una fecha válida (AAAA-MM-DD).',
  departamento: 'Seleccione un departamento de Colombia de la lista.',
  ciudad: (departamento: string): string => `Seleccione un municipio de ${departamento}.`,
  ciudadNeedsDepartamento: 'Primero elija un departamento válido.',
  documentoTaken: 'Ya existe un paciente con este documento.',
} as const;

/** A required text field, trimmed, at most `max` characters. */
export const textField = (max: number) =>
  z.string().transform((raw, ctx) => {
    const v = raw.trim();
    if (v === '') return fail(ctx, FORM_MSG.required);
    const length = charCount(v);
    return length <= max ? v : fail(ctx, FORM_MSG.tooLong(max, length));
  });

/**
 * A required choice, matched tolerantly (matchChoice: case, accents, spaces and punctuation ignored) and given in
 * its listed form; `message` when nothing on the list matches. The exam forms use it too.
 */
export const choiceField = <V extends string | number>(choices: readonly Choice<V>[], message: string = FORM_MSG.choice) =>
  z.string().transform((raw, ctx): V => {
    const v = raw.trim();
    if (v === '') return fail(ctx, FORM_MSG.required);
    return matchChoice(choices, v) ?? fail(ctx, message);
  });

/** An optional choice: blank stays '' (not yet asked), otherwise one of the list in its listed form. */
export const optionalChoiceField = <V extends string>(choices: readonly Choice<V>[], message: string = FORM_MSG.choice) =>
  z.string().transform((raw, ctx): V | '' => {
    const v = raw.trim();
    if (v === '') return '';
    return matchChoice(choices, v) ?? fail(ctx, message);
  });

/**
 * A decimal in hundredths ('70,5' → 7050, money '259.783' → 25978300) up to `maxHundredths`, read as a person in
 * Colombia writes it (decision 0069); `blank` when left empty. The exam forms use it too.
 */
export const decimalField = <B extends number | null>(maxHundredths: number, blank: B, kind: DecimalKind = 'measure') =>
  z.string().transform((raw, ctx): number | B => {
    if (raw.trim() === '') return blank;
    const parsed = parseDecimalHundredths(raw, maxHundredths, kind);
    return parsed.ok ? parsed.value : fail(ctx, parsed.error);
  });

/** Stored in its canonical form (decision 0030): what a person sees, without separators or invisible characters. */
export const documentoField = z.string().transform((raw, ctx) => (raw.trim() === '' ? fail(ctx, FORM_MSG.required) : documentoKey(raw)));

/** A real calendar date of any year, so a birth date 200 years ago is told why it is refused (decision 0031). */
export const birthDateField = (today: string) =>
  z.string().transform((raw, ctx) => {
    if (raw.trim() === '') return fail(ctx, FORM_MSG.required);
    const date = parseCalendarDate(raw);
    if (date === null) return fail(ctx, FORM_MSG.date);
    const problem = birthDateProblem(date, today);
    return problem === null ? date : fail(ctx, problem);
  });

/** Blank means the default department; otherwise one of the catalogue's, in its listed form. */
export const departamentoField = z.string().transform((raw, ctx) =>
  raw.trim() === '' ? DEFAULT_DEPARTAMENTO : (matchDepartamento(raw) ?? fail(ctx, FORM_MSG.departamento)),
);

/** Required here; matched within the department by the form's rule across fields. */
export const ciudadField = z.string().transform((raw, ctx) => (raw.trim() === '' ? fail(ctx, FORM_MSG.required) : raw));

/** An optional ISO date (blank: null). */
export const optionalDateField = z.string().transform((raw, ctx) => {
  if (raw.trim() === '') return null;
  return parseIsoDate(raw) ?? fail(ctx, FORM_MSG.date);
});

