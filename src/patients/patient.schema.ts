// The patient form and the list query parameters: raw request input → validated values or field errors.

import { charCount } from '../shared/text.js';
import { MES_CAPITA_MAX, parseMesFiltro } from '../ingresos/ingreso.rules.js';
import { cycleStartProblem } from '../ingresos/ingreso.rules.js';
import { parseCalendarDate, parseIsoDate } from '../shared/dates.js';
import { formatHundredths, formatMoneyInput, parseDecimalHundredths, type DecimalKind } from '../shared/decimal.js';
import { z } from 'zod';
import { acrossFields, fail, listUrl, parseForm, queryValue, validateForm, type ParsedForm } from '../web/form.js';
import { onePerKey } from '../shared/collections.js';
import { DEFAULT_DEPARTAMENTO, matchCiudad, matchDepartamento } from './divipola.js';
import {
  DECIMAL_MAX_HUNDREDTHS,
  DEFAULT_VALOR_CAPITA_HUNDREDTHS,
  DIAGNOSTICOS,
  ENTIDADES_SALUD,
  ESTADOS_CIVILES,
  ESTRATOS,
  GENEROS,
  MAX_LENGTHS,
  PROGRAMAS,
  TIPOS_DOCUMENTO,
  ZONAS,
  birthDateProblem,
  documentoKey,
  documentoProblem,
  matchChoice,
  type Choice,
} from './patient.rules.js';
import type { PatientRow } from './patient.table.js';

/** Longest search text kept; anything longer is cut (no name plus documento is this long). */
export const QUERY_SEARCH_MAX = 200;

export interface ListQuery {
  /** query_search as typed (trimmed, cut to QUERY_SEARCH_MAX); '' for none. */
  query: string;
  /** mes_filtro 1..18, or null when absent, out of range or not a number (decisions §5: ignored). */
  mesFiltro: number | null;
  /** Why a mes_filtro that was sent is ignored (shown beside the filter), or null. */
  mesFiltroError: string | null;
  /** The requested page, ≥ 1 (a non-number means 1); searchPatients clamps it to the last page. */
  page: number;
}

/** `?query_search=…&mes_filtro=…&page=…` of the list pages; repeated or odd parameters count as absent. */
export function parseListQuery(query: unknown): ListQuery {
  // Control characters cannot be part of a name or a documento (and PostgreSQL refuses NUL in text): dropped.
  const q = (queryValue(query, 'query_search') ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, QUERY_SEARCH_MAX);
  const rawMes = (queryValue(query, 'mes_filtro') ?? '').trim();
  const mesFiltro = parseMesFiltro(rawMes);
  const mesFiltroError = rawMes !== '' && mesFiltro === null ? mesFiltroMessage(rawMes) : null;
  const rawPage = (queryValue(query, 'page') ?? '').trim();
  const page = /^\d{1,9}$/.test(rawPage) ? Math.max(1, Number(rawPage)) : /^\d+$/.test(rawPage) ? 1e9 : 1;
  return { query: q, mesFiltro, mesFiltroError, page };
}

/** The message beside the month filter when the month sent is not one of the program's (it is ignored). */
export function mesFiltroMessage(raw: string): string {
  const shown = raw.length > 12 ? `${raw.slice(0, 12)}…` : raw;
  return `«${shown}» no es un mes del programa (de 1 a ${MES_CAPITA_MAX}): se muestran todos los meses.`;
}

export { listUrl };

// ---------------------------------------------------------------------------------------------------------
// The patient form (create and update): decisions §4.

/** The posted fields, exactly the specification's names, plus fecha_inicio_programa. */
export const PATIENT_FORM_FIELDS = [
  'nombre',
  'apellido',
  'tipo_documento',
  'documento',
  'fecha_nacimiento',
  'genero',
  'departamento',
  'ciudad',
  'zona',
  'telefono',
  'celular',
  'estado_civil',
  'entidad_salud',
  'estrato',
  'peso',
  'altura',
  'perimetro_abdominal',
  'cuello',
  'medico_remitente',
  'especialidad',
  'diagnostico_clinico',
  'programa',
  'valor_capita',
  'fecha_inicio_programa',
] as const;

export type PatientFormField = (typeof PATIENT_FORM_FIELDS)[number];

/**
 * The stored patient fields a valid form yields: the form's fields, so a column the form does not edit (shown on
 * the record, written elsewhere) needs no change here. Derived columns, id and timestamps are added on write.
 */
export type PatientInput = Pick<PatientRow, Exclude<PatientFormField, 'fecha_inicio_programa'>>;

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

export type PatientFormResult =
  | { ok: true; patient: PatientInput; fechaInicioPrograma: string | null; values: Record<PatientFormField, string> }
  | { ok: false; errors: Record<string, string>; values: Record<PatientFormField, string> };

/** A required text field, trimmed, at most `max` characters. */
const textField = (max: number) =>
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
const documentoField = z.string().transform((raw, ctx) => (raw.trim() === '' ? fail(ctx, FORM_MSG.required) : documentoKey(raw)));

/** A real calendar date of any year, so a birth date 200 years ago is told why it is refused (decision 0031). */
const birthDateField = (today: string) =>
  z.string().transform((raw, ctx) => {
    if (raw.trim() === '') return fail(ctx, FORM_MSG.required);
    const date = parseCalendarDate(raw);
    if (date === null) return fail(ctx, FORM_MSG.date);
    const problem = birthDateProblem(date, today);
    return problem === null ? date : fail(ctx, problem);
  });

/** Blank means the default department; otherwise one of the catalogue's, in its listed form. */
const departamentoField = z.string().transform((raw, ctx) =>
  raw.trim() === '' ? DEFAULT_DEPARTAMENTO : (matchDepartamento(raw) ?? fail(ctx, FORM_MSG.departamento)),
);

/** Required here; matched within the department by the form's rule across fields. */
const ciudadField = z.string().transform((raw, ctx) => (raw.trim() === '' ? fail(ctx, FORM_MSG.required) : raw));

/** An optional ISO date (blank: null). */
const optionalDateField = z.string().transform((raw, ctx) => {
  if (raw.trim() === '') return null;
  return parseIsoDate(raw) ?? fail(ctx, FORM_MSG.date);
});

// The fields that do not depend on the day, built once.
const PATIENT_FIELDS = {
  nombre: textField(MAX_LENGTHS.nombre),
  apellido: textField(MAX_LENGTHS.apellido),
  tipo_documento: choiceField(TIPOS_DOCUMENTO),
  documento: documentoField,
  genero: choiceField(GENEROS),
  departamento: departamentoField,
  ciudad: ciudadField,
  zona: choiceField(ZONAS),
  telefono: textField(MAX_LENGTHS.telefono),
  celular: textField(MAX_LENGTHS.celular),
  estado_civil: choiceField(ESTADOS_CIVILES),
  entidad_salud: choiceField(ENTIDADES_SALUD),
  estrato: choiceField(ESTRATOS, FORM_MSG.estrato),
  peso: decimalField(DECIMAL_MAX_HUNDREDTHS.peso, null),
  altura: decimalField(DECIMAL_MAX_HUNDREDTHS.altura, null),
  perimetro_abdominal: decimalField(DECIMAL_MAX_HUNDREDTHS.perimetro_abdominal, null),
  cuello: decimalField(DECIMAL_MAX_HUNDREDTHS.cuello, null),
  medico_remitente: textField(MAX_LENGTHS.medico_remitente),
  especialidad: textField(MAX_LENGTHS.especialidad),
  diagnostico_clinico: choiceField(DIAGNOSTICOS, FORM_MSG.diagnostico),
  programa: choiceField(PROGRAMAS),
  valor_capita: decimalField(DECIMAL_MAX_HUNDREDTHS.valor_capita, DEFAULT_VALOR_CAPITA_HUNDREDTHS, 'money'),
  fecha_inicio_programa: optionalDateField,
};

/**
 * The patient form's schema (create, update, and each row of the spreadsheet import) on `today`: each field from its
 * text to its stored value, then the rules across fields (documento against tipo_documento, ciudad within the
 * departamento, the first cycle's start against today and the birth date), each message beside its field.
 */
function buildPatientSchema(today: string) {
  const { fecha_inicio_programa, ...fields } = PATIENT_FIELDS;
  const shape = { ...fields, fecha_nacimiento: birthDateField(today), fecha_inicio_programa };
  type Fields = z.output<z.ZodObject<typeof shape>>;
  return z.object(shape).check(
    acrossFields<Fields>((valid, failOn) => {
      const settled: Partial<Fields> = {};
      if (valid.documento !== undefined && valid.tipo_documento !== undefined) {
        const problem = documentoProblem(valid.tipo_documento, valid.documento);
        if (problem !== null) failOn('documento', problem);
      }
      if (valid.ciudad !== undefined) {
        if (valid.departamento === undefined) failOn('ciudad', FORM_MSG.ciudadNeedsDepartamento);
        else {
          const ciudad = matchCiudad(valid.departamento, valid.ciudad);
          if (ciudad === null) failOn('ciudad', FORM_MSG.ciudad(valid.departamento));
          else settled.ciudad = ciudad;
        }
      }
      if (valid.fecha_inicio_programa !== undefined && valid.fecha_inicio_programa !== null) {
        const problem = cycleStartProblem(valid.fecha_inicio_programa, today, valid.fecha_nacimiento ?? null);
        if (problem !== null) failOn('fecha_inicio_programa', problem);
      }
      return settled;
    }),
  );
}

/** The patient form's schema on `today`: built once a day (every request of a day, and a whole import, share it). */
export const patientSchema = onePerKey(buildPatientSchema);

/** The checkbox of the create form that confirms a new patient is not one of the similar people shown (decision 0043). */
export const OTHER_PERSON_FIELD = 'es_otra_persona';

/** The create form: the patient form and that confirmation. */
const createPatientSchema = onePerKey((today: string) =>
  patientSchema(today).safeExtend({ [OTHER_PERSON_FIELD]: z.string().transform((v) => v === '1') }),
);

type PatientFields = z.output<ReturnType<typeof buildPatientSchema>>;

/** The choice fields and their lists, for what the form shows again. */
const CHOICE_FIELDS = [
  ['tipo_documento', TIPOS_DOCUMENTO],
  ['genero', GENEROS],
  ['zona', ZONAS],
  ['estado_civil', ESTADOS_CIVILES],
  ['entidad_salud', ENTIDADES_SALUD],
  ['estrato', ESTRATOS],
  ['diagnostico_clinico', DIAGNOSTICOS],
  ['programa', PROGRAMAS],
] as const satisfies readonly (readonly [PatientFormField, readonly Choice<string | number>[]])[];

/**
 * What the form shows again: the values as typed, except choices, departamento and ciudad that matched, which take
 * their listed form so the selects keep them (a blank departamento shows the default one).
 */
function shownValues(raw: Record<string, string>): Record<PatientFormField, string> {
  const values = Object.fromEntries(PATIENT_FORM_FIELDS.map((f) => [f, raw[f] ?? ''])) as Record<PatientFormField, string>;
  for (const [field, choices] of CHOICE_FIELDS) {
    const match = matchChoice<string | number>(choices, values[field].trim());
    if (match !== null) values[field] = String(match);
  }
  const departamento = values.departamento.trim() === '' ? DEFAULT_DEPARTAMENTO : matchDepartamento(values.departamento);
  if (departamento !== null) {
    values.departamento = departamento;
    values.ciudad = matchCiudad(departamento, values.ciudad) ?? values.ciudad;
  }
  return values;
}

/** The schema's result as the routes and the import use it: the patient, the first cycle's start, the values shown. */
function toPatientResult(form: ParsedForm<PatientFields>): PatientFormResult {
  const values = shownValues(form.values);
  if (!form.ok) return { ok: false, errors: form.errors, values };
  const { fecha_inicio_programa, ...patient } = form.data;
  return { ok: true, values, fechaInicioPrograma: fecha_inicio_programa, patient };
}

/**
 * Validates the patient form already read (every field a single string, as readForm gives them; the import's rows).
 * `readErrors` are readForm's own (repeated fields, control characters, unknown fields) and are kept. On success,
 * choice values are in their canonical form and decimals in hundredths. `values` is what the form shows again.
 */
export function validatePatientForm(
  raw: Record<string, string>,
  today: string,
  readErrors: Record<string, string> = {},
): PatientFormResult {
  return toPatientResult(validateForm(raw, patientSchema(today), readErrors));
}

/** Reads and validates the posted update form, as validatePatientForm. */
export function parsePatientForm(body: unknown, today: string): PatientFormResult {
  return toPatientResult(parseForm(body, patientSchema(today)));
}

/** Reads and validates the posted create form: the patient form, and whether the person was confirmed as another. */
export function parseCreatePatientForm(body: unknown, today: string): { form: PatientFormResult; otherPerson: boolean } {
  const form = parseForm(body, createPatientSchema(today));
  if (!form.ok) return { form: toPatientResult(form), otherPerson: false };
  const { [OTHER_PERSON_FIELD]: otherPerson, ...fields } = form.data;
  return { form: toPatientResult({ ...form, data: fields }), otherPerson };
}

/** A stored patient as the form's text values (decimals with a comma, money as the record shows it), for the pre-filled edit form. */
export function patientFormValues(p: PatientInput, fechaInicioPrograma: string | null): Record<PatientFormField, string> {
  const dec = (n: number | null) => (n === null ? '' : formatHundredths(n));
  return {
    nombre: p.nombre,
    apellido: p.apellido,
    tipo_documento: p.tipo_documento,
    documento: p.documento,
    fecha_nacimiento: p.fecha_nacimiento,
    genero: p.genero,
    departamento: p.departamento,
    ciudad: p.ciudad,
    zona: p.zona,
    telefono: p.telefono,
    celular: p.celular,
    estado_civil: p.estado_civil,
    entidad_salud: p.entidad_salud,
    estrato: String(p.estrato),
    peso: dec(p.peso),
    altura: dec(p.altura),
    perimetro_abdominal: dec(p.perimetro_abdominal),
    cuello: dec(p.cuello),
    medico_remitente: p.medico_remitente,
    especialidad: p.especialidad,
    diagnostico_clinico: p.diagnostico_clinico,
    programa: p.programa,
    valor_capita: formatMoneyInput(p.valor_capita),
    fecha_inicio_programa: fechaInicioPrograma ?? '',
  };
}
