// The patient form and the list query parameters: raw request input → validated values or field errors.

import { MES_CAPITA_MAX, parseMesFiltro } from '../ingresos/ingreso.rules.js';
import { cycleStartProblem } from '../ingresos/ingreso.rules.js';
import { formatHundredths, formatMoneyInput } from '../shared/decimal.js';
import { z } from 'zod';
import { acrossFields, listUrl, parseForm, queryValue, validateForm, type ParsedForm } from '../web/form.js';
import { onePerKey } from '../shared/collections.js';
import { DEFAULT_DEPARTAMENTO, matchCiudad, matchDepartamento } from './divipola.js';
import { FORM_MSG } from './patient.field-parsers.js';
import { PATIENT_CHOICE_FIELDS, PATIENT_FIELDS, PATIENT_FORM_FIELDS, type PatientFieldName } from './patient.fields.js';
import { documentoProblem, matchChoice, type TipoDocumento } from './patient.rules.js';
import { parseSearchQuery, type SearchQuery } from './patient.search.schema.js';
import type { PatientRow } from './patient.table.js';

export { choiceField, decimalField, FORM_MSG } from './patient.field-parsers.js';
export { PATIENT_FORM_FIELDS };

export interface ListQuery extends SearchQuery {
  /** mes_filtro 1..18, or null when absent, out of range or not a number (decisions §5: ignored). */
  mesFiltro: number | null;
  /** Why a mes_filtro that was sent is ignored (shown beside the filter), or null. */
  mesFiltroError: string | null;
}

/** `?query_search=…&mes_filtro=…&page=…` of the list pages; repeated or odd parameters count as absent. */
export function parseListQuery(query: unknown): ListQuery {
  const { query: q, page } = parseSearchQuery(query);
  const rawMes = (queryValue(query, 'mes_filtro') ?? '').trim();
  const mesFiltro = parseMesFiltro(rawMes);
  const mesFiltroError = rawMes !== '' && mesFiltro === null ? mesFiltroMessage(rawMes) : null;
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

/** The posted fields (the field table's): the specification's names, plus fecha_inicio_programa. */
export type PatientFormField = PatientFieldName;

/**
 * The stored patient fields a valid form yields: the form's fields, so a column the form does not edit (shown on
 * the record, written elsewhere) needs no change here. Derived columns, id and timestamps are added on write.
 */
export type PatientInput = Pick<PatientRow, Exclude<PatientFormField, 'fecha_inicio_programa'>>;

export type PatientFormResult =
  | { ok: true; patient: PatientInput; fechaInicioPrograma: string | null; values: Record<PatientFormField, string> }
  | { ok: false; errors: Record<string, string>; values: Record<PatientFormField, string> };

/** The form's fields and their stored values (the first cycle's start: a date or null). */
type PatientFields = PatientInput & { fecha_inicio_programa: string | null };

/** The field table's parsers (those of the day built for `today`). */
function fieldParsers(today: string): { [K in PatientFormField]: z.ZodType<PatientFields[K], string> } {
  return Object.fromEntries(
    PATIENT_FORM_FIELDS.map((name) => {
      const parse: z.ZodType | ((today: string) => z.ZodType) = PATIENT_FIELDS[name].parse;
      return [name, typeof parse === 'function' ? parse(today) : parse];
    }),
  ) as { [K in PatientFormField]: z.ZodType<PatientFields[K], string> };
}

/**
 * The patient form's schema (create, update, and each row of the spreadsheet import) on `today`: each field from its
 * text to its stored value, then the rules across fields (documento against tipo_documento, ciudad within the
 * departamento, the first cycle's start against today and the birth date), each message beside its field.
 */
function buildPatientSchema(today: string) {
  type Fields = PatientFields;
  return z.object(fieldParsers(today)).check(
    acrossFields<Fields>((valid, failOn) => {
      const settled: Partial<Fields> = {};
      if (valid.documento !== undefined && valid.tipo_documento !== undefined) {
        const problem = documentoProblem(valid.tipo_documento as TipoDocumento, valid.documento); // a value of its choice list
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

/**
 * What the form shows again: the values as typed, except choices, departamento and ciudad that matched, which take
 * their listed form so the selects keep them (a blank departamento shows the default one).
 */
function shownValues(raw: Record<string, string>): Record<PatientFormField, string> {
  const values = Object.fromEntries(PATIENT_FORM_FIELDS.map((f) => [f, raw[f] ?? ''])) as Record<PatientFormField, string>;
  for (const [field, choices] of PATIENT_CHOICE_FIELDS) {
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
  // An optional field a file or caller does not carry (a column added later, such as tipo_usuario) reads as blank.
  const filled = { ...OPTIONAL_BLANK, ...raw };
  return toPatientResult(validateForm(filled, patientSchema(today), readErrors));
}

const OPTIONAL_BLANK: Record<string, string> = Object.fromEntries(PATIENT_FORM_FIELDS.filter((f) => !PATIENT_FIELDS[f].required).map((f) => [f, '']));

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

/** A stored value as the form's text: decimals with a comma, money as the record shows it, blank for none. */
function formText(kind: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (kind === 'decimal') return formatHundredths(value as number);
  if (kind === 'money') return formatMoneyInput(value as number);
  return String(value);
}

/** A stored patient as the form's text values, for the pre-filled edit form. */
export function patientFormValues(p: PatientInput, fechaInicioPrograma: string | null): Record<PatientFormField, string> {
  // A loop over the fields (every record page renders it; entries and a spread of the row cost three times as much).
  const values = {} as Record<PatientFormField, string>;
  for (const f of PATIENT_FORM_FIELDS) values[f] = formText(PATIENT_FIELDS[f].kind, f === 'fecha_inicio_programa' ? fechaInicioPrograma : p[f]);
  return values;
}
