// The patient form and the list query parameters: raw request input → validated values or field errors.

import { MES_CAPITA_MAX, parseMesFiltro } from '../ingresos/ingreso.rules.js';
import { cycleStartProblem } from '../ingresos/ingreso.rules.js';
import { parseCalendarDate, parseIsoDate } from '../shared/dates.js';
import { formatHundredths, parseDecimalHundredths } from '../shared/decimal.js';
import { listUrl, queryValue } from '../web/form.js';
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

/** Characters as the database counts them (code points, not UTF-16 units). */
const charCount = (s: string): number => [...s].length;

/**
 * Validates the posted patient form (already read with readForm, so every field is a single string).
 * `readErrors` are readForm's own (repeated fields, control characters, unknown fields) and are kept.
 * On success, choice values are in their canonical form and decimals in hundredths. `values` is what the
 * form shows again: as typed, except choices that matched, which take their listed form so the select keeps them.
 */
export function validatePatientForm(
  raw: Record<string, string>,
  today: string,
  readErrors: Record<string, string> = {},
): PatientFormResult {
  const errors: Record<string, string> = { ...readErrors };
  const values = Object.fromEntries(PATIENT_FORM_FIELDS.map((f) => [f, raw[f] ?? ''])) as Record<PatientFormField, string>;
  const fail = (field: string, message: string) => {
    if (!errors[field]) errors[field] = message;
  };

  const text = (field: keyof typeof MAX_LENGTHS): string => {
    const v = values[field].trim();
    const max = MAX_LENGTHS[field];
    if (v === '') fail(field, FORM_MSG.required);
    else if (charCount(v) > max) fail(field, FORM_MSG.tooLong(max, charCount(v)));
    return v;
  };
  const choice = <V extends string | number>(field: PatientFormField, choices: readonly Choice<V>[], message: string = FORM_MSG.choice): V | null => {
    const v = values[field].trim();
    if (v === '') {
      fail(field, FORM_MSG.required);
      return null;
    }
    const match = matchChoice(choices, v);
    if (match === null) fail(field, message);
    else values[field] = String(match);
    return match;
  };
  const decimal = (field: keyof typeof DECIMAL_MAX_HUNDREDTHS, blank: number | null): number | null => {
    const v = values[field].trim();
    if (v === '') return blank;
    const r = parseDecimalHundredths(v, DECIMAL_MAX_HUNDREDTHS[field]);
    if (!r.ok) {
      fail(field, r.error);
      return null;
    }
    return r.value;
  };
  const date = (field: PatientFormField, required: boolean): string | null => {
    const v = values[field].trim();
    if (v === '') {
      if (required) fail(field, FORM_MSG.required);
      return null;
    }
    const d = parseIsoDate(v);
    if (d === null) fail(field, FORM_MSG.date);
    return d;
  };

  const nombre = text('nombre');
  const apellido = text('apellido');
  const tipo_documento = choice('tipo_documento', TIPOS_DOCUMENTO);
  // Stored in its canonical form (decision 0030): what a person sees, without separators or invisible characters.
  let documento = '';
  if (values.documento.trim() === '') fail('documento', FORM_MSG.required);
  else {
    documento = documentoKey(values.documento);
    const problem = tipo_documento === null ? null : documentoProblem(tipo_documento, documento);
    if (problem !== null) fail('documento', problem);
  }
  // A real calendar date of any year, so a birth date 200 years ago is told why it is refused (decision 0031).
  let fecha_nacimiento: string | null = null;
  if (values.fecha_nacimiento.trim() === '') fail('fecha_nacimiento', FORM_MSG.required);
  else {
    const d = parseCalendarDate(values.fecha_nacimiento);
    const problem = d === null ? FORM_MSG.date : birthDateProblem(d, today);
    if (problem !== null) fail('fecha_nacimiento', problem);
    else fecha_nacimiento = d;
  }
  const genero = choice('genero', GENEROS);

  let departamento: string | null = DEFAULT_DEPARTAMENTO;
  if (values.departamento.trim() !== '') {
    departamento = matchDepartamento(values.departamento);
    if (departamento === null) fail('departamento', FORM_MSG.departamento);
  }
  if (departamento !== null) values.departamento = departamento;
  let ciudad: string | null = null;
  if (values.ciudad.trim() === '') fail('ciudad', FORM_MSG.required);
  else if (departamento === null) fail('ciudad', FORM_MSG.ciudadNeedsDepartamento);
  else {
    ciudad = matchCiudad(departamento, values.ciudad);
    if (ciudad === null) fail('ciudad', FORM_MSG.ciudad(departamento));
    else values.ciudad = ciudad;
  }

  const zona = choice('zona', ZONAS);
  const telefono = text('telefono');
  const celular = text('celular');
  const estado_civil = choice('estado_civil', ESTADOS_CIVILES);
  const entidad_salud = choice('entidad_salud', ENTIDADES_SALUD);
  const estrato = choice('estrato', ESTRATOS, FORM_MSG.estrato);
  const peso = decimal('peso', null);
  const altura = decimal('altura', null);
  const perimetro_abdominal = decimal('perimetro_abdominal', null);
  const cuello = decimal('cuello', null);
  const medico_remitente = text('medico_remitente');
  const especialidad = text('especialidad');
  const diagnostico_clinico = choice('diagnostico_clinico', DIAGNOSTICOS, FORM_MSG.diagnostico);
  const programa = choice('programa', PROGRAMAS);
  const valor_capita = decimal('valor_capita', DEFAULT_VALOR_CAPITA_HUNDREDTHS);
  const fechaInicioPrograma = date('fecha_inicio_programa', false);
  if (fechaInicioPrograma !== null) {
    const problem = cycleStartProblem(fechaInicioPrograma, today, fecha_nacimiento);
    if (problem !== null) fail('fecha_inicio_programa', problem);
  }

  if (
    Object.keys(errors).length > 0 ||
    tipo_documento === null ||
    fecha_nacimiento === null ||
    genero === null ||
    departamento === null ||
    ciudad === null ||
    zona === null ||
    estado_civil === null ||
    entidad_salud === null ||
    estrato === null ||
    diagnostico_clinico === null ||
    programa === null ||
    valor_capita === null
  ) {
    return { ok: false, errors, values };
  }
  return {
    ok: true,
    values,
    fechaInicioPrograma,
    patient: {
      nombre,
      apellido,
      tipo_documento,
      documento,
      fecha_nacimiento,
      genero,
      departamento,
      ciudad,
      zona,
      telefono,
      celular,
      estado_civil,
      entidad_salud,
      estrato,
      peso,
      altura,
      perimetro_abdominal,
      cuello,
      medico_remitente,
      especialidad,
      diagnostico_clinico,
      programa,
      valor_capita,
    },
  };
}

/** A stored patient as the form's text values (decimals with a comma), for the pre-filled edit form. */
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
    valor_capita: dec(p.valor_capita),
    fecha_inicio_programa: fechaInicioPrograma ?? '',
  };
}
