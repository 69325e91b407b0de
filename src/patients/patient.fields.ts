// The patient record's field table: each field described once (decision 0082). Its label and kind (how the form
// labels it and how the audit trail and the exports show its stored value: src/shared/field-defs.ts), its choices
// and limits, its parser (text → stored value, with its Spanish message), whether it is required, audited,
// exported, the import's accepted headings, and where the form places it. The form's zod schema, the posted
// fields, the audited list, the choice lists, the import's columns and the export's columns are derived from it.
// Order: the specification's (the posted form, the import template, the audit entries); the form groups the
// fields by section in this order.

import type { z } from 'zod';
import type { FieldDef } from '../shared/field-defs.js';
import {
  birthDateField,
  choiceField,
  ciudadField,
  decimalField,
  departamentoField,
  documentoField,
  FORM_MSG,
  optionalChoiceField,
  optionalDateField,
  textField,
} from './patient.field-parsers.js';
import {
  DECIMAL_MAX_HUNDREDTHS as MAX,
  DEFAULT_VALOR_CAPITA_HUNDREDTHS,
  DIAGNOSTICOS,
  ENTIDADES_SALUD,
  ESTADOS_CIVILES,
  ESTRATOS,
  GENEROS,
  MAX_LENGTHS as LEN,
  PROGRAMAS,
  TIPOS_DOCUMENTO,
  TIPOS_USUARIO,
  ZONAS,
} from './patient.rules.js';
import type { PatientRow } from './patient.table.js';

/** The fieldsets of the patient form, in the order a person scans them (decisions §4). */
export const PATIENT_FORM_SECTIONS = ['Identificación', 'Contacto', 'Ubicación', 'Medidas', 'Remisión', 'Programa'] as const;
export type PatientFormSection = (typeof PATIENT_FORM_SECTIONS)[number];

/** A field of the patient form whose stored value is a T. */
export interface PatientField<T> extends FieldDef {
  /** the text typed (or a spreadsheet's cell) → the stored value, with its Spanish message; of the day when it depends on it */
  readonly parse: z.ZodType<T, string> | ((today: string) => z.ZodType<T, string>);
  /** the form marks it required, and a file to import must have its column */
  readonly required: boolean;
  /** longest text accepted (the form's maxlength; the parser checks it) */
  readonly maxLength?: number;
  /** a column of `patients` whose changes the audit trail records (false: the first cycle's start, stored elsewhere) */
  readonly audited: boolean;
  /** Spanish headings the import accepts for its column, besides the field's own name */
  readonly importHeadings: readonly string[];
  /** a text cell in the .xlsx template (Excel would drop leading zeros or turn dates into numbers) */
  readonly xlsxText?: true;
  /** its place among the patient columns every list export starts with (1, 2…) */
  readonly exportColumn?: number;
  /** where the form shows it: its fieldset, its input, its hint; `after`: placed after that field of its fieldset */
  readonly form: { section: PatientFormSection; input?: 'tel' | 'date'; hint?: string; after?: string };
}

/** What each posted field is stored as: the patient's column, or (the first cycle's start) a date or nothing. */
type StoredAs<K extends string> = K extends keyof PatientRow ? PatientRow[K] : string | null;

const text = (maxLength: number) => ({ kind: 'text' as const, parse: textField(maxLength), maxLength });
const choice = <V extends string | number>(choices: readonly { value: V; label: string }[], message?: string) => ({
  kind: 'choice' as const,
  choices,
  parse: choiceField(choices, message),
});
const measure = (max: number, unit: string) => ({ kind: 'decimal' as const, unit, parse: decimalField(max, null) });
const yes = { required: true, audited: true } as const;
const optional = { required: false, audited: true } as const;

export const PATIENT_FIELDS = {
  nombre: { label: 'Nombre', ...text(LEN.nombre), ...yes, importHeadings: ['Nombre', 'Nombres'], exportColumn: 3, form: { section: 'Identificación' } },
  apellido: { label: 'Apellido', ...text(LEN.apellido), ...yes, importHeadings: ['Apellido', 'Apellidos'], exportColumn: 4, form: { section: 'Identificación' } },
  tipo_documento: { label: 'Tipo de documento', ...choice(TIPOS_DOCUMENTO), ...yes, importHeadings: ['Tipo de documento', 'Tipo documento'], exportColumn: 2, form: { section: 'Identificación' } },
  documento: {
    label: 'Número de documento', kind: 'text', parse: documentoField, maxLength: LEN.documento, ...yes, xlsxText: true, exportColumn: 1,
    importHeadings: ['Número de documento', 'Documento', 'Número documento', 'N.º de documento'], form: { section: 'Identificación' },
  },
  fecha_nacimiento: { label: 'Fecha de nacimiento', kind: 'date', parse: birthDateField, ...yes, xlsxText: true, importHeadings: ['Fecha de nacimiento'], form: { section: 'Identificación', input: 'date' } },
  genero: { label: 'Género', ...choice(GENEROS), ...yes, importHeadings: ['Género', 'Sexo'], form: { section: 'Identificación' } },
  departamento: {
    label: 'Departamento', kind: 'text', parse: departamentoField, ...optional, exportColumn: 7, importHeadings: ['Departamento'],
    form: { section: 'Ubicación', hint: 'Si lo deja vacío: SANTANDER.' },
  },
  ciudad: {
    label: 'Ciudad o municipio', kind: 'text', parse: ciudadField, ...yes, exportColumn: 8, importHeadings: ['Ciudad o municipio', 'Ciudad', 'Municipio'],
    form: { section: 'Ubicación', hint: 'Municipios del departamento elegido.' },
  },
  zona: { label: 'Zona', ...choice(ZONAS), ...yes, importHeadings: ['Zona'], form: { section: 'Ubicación' } },
  telefono: { label: 'Teléfono', ...text(LEN.telefono), ...yes, xlsxText: true, importHeadings: ['Teléfono'], form: { section: 'Contacto', input: 'tel' } },
  celular: { label: 'Celular', ...text(LEN.celular), ...yes, xlsxText: true, importHeadings: ['Celular'], form: { section: 'Contacto', input: 'tel' } },
  estado_civil: { label: 'Estado civil', ...choice(ESTADOS_CIVILES), ...yes, importHeadings: ['Estado civil'], form: { section: 'Identificación' } },
  entidad_salud: {
    label: 'Entidad de salud', ...choice(ENTIDADES_SALUD), ...yes, exportColumn: 6, importHeadings: ['Entidad de salud', 'EPS'],
    form: { section: 'Programa', after: 'programa' },
  },
  estrato: { label: 'Estrato', ...choice(ESTRATOS, FORM_MSG.estrato), ...yes, importHeadings: ['Estrato'], form: { section: 'Ubicación' } },
  peso: { label: 'Peso', ...measure(MAX.peso, 'kg'), ...optional, importHeadings: ['Peso (kg)', 'Peso'], form: { section: 'Medidas', hint: 'Ej.: 72,5 — hasta 999,99' } },
  altura: { label: 'Altura', ...measure(MAX.altura, 'm'), ...optional, importHeadings: ['Altura (m)', 'Altura', 'Talla'], form: { section: 'Medidas', hint: 'Ej.: 1,75 — hasta 99,99' } },
  perimetro_abdominal: {
    label: 'Perímetro abdominal', ...measure(MAX.perimetro_abdominal, 'cm'), ...optional, importHeadings: ['Perímetro abdominal (cm)', 'Perímetro abdominal'],
    form: { section: 'Medidas', hint: 'Hasta 999,99' },
  },
  cuello: {
    label: 'Perímetro de cuello', ...measure(MAX.cuello, 'cm'), ...optional, importHeadings: ['Perímetro de cuello (cm)', 'Perímetro de cuello', 'Cuello'],
    form: { section: 'Medidas', hint: 'Hasta 999,99' },
  },
  medico_remitente: { label: 'Médico remitente', ...text(LEN.medico_remitente), ...yes, importHeadings: ['Médico remitente'], form: { section: 'Remisión' } },
  especialidad: { label: 'Especialidad', ...text(LEN.especialidad), ...yes, importHeadings: ['Especialidad'], form: { section: 'Remisión' } },
  diagnostico_clinico: {
    label: 'Diagnóstico clínico', ...choice(DIAGNOSTICOS, FORM_MSG.diagnostico), ...yes, importHeadings: ['Diagnóstico clínico', 'Diagnóstico'], form: { section: 'Remisión' },
  },
  programa: { label: 'Programa', ...choice(PROGRAMAS), ...yes, exportColumn: 5, importHeadings: ['Programa'], form: { section: 'Programa' } },
  tipo_usuario: {
    label: 'Tipo de usuario (RIPS)', kind: 'choice', choices: TIPOS_USUARIO, parse: optionalChoiceField(TIPOS_USUARIO), ...optional,
    importHeadings: ['Tipo de usuario', 'Tipo de usuario (RIPS)', 'Régimen'],
    form: { section: 'Programa', after: 'entidad_salud', hint: 'Régimen del paciente para el RIPS (tabla 01–13).' },
  },
  valor_capita: {
    label: 'Valor cápita', kind: 'money', unit: 'COP', parse: decimalField(MAX.valor_capita, DEFAULT_VALOR_CAPITA_HUNDREDTHS, 'money'), ...optional,
    importHeadings: ['Valor cápita (COP)', 'Valor cápita'], form: { section: 'Programa', hint: 'Si lo deja vacío: 259.783.' },
  },
  fecha_inicio_programa: {
    label: 'Fecha de inicio del programa', kind: 'date', parse: optionalDateField, required: false, audited: false, xlsxText: true,
    importHeadings: ['Fecha de inicio del programa', 'Fecha de inicio'],
    form: { section: 'Programa', input: 'date', hint: 'Inicio del ciclo activo. Si lo deja vacío: hoy al crear; sin cambios al editar.' },
  },
} as const satisfies { readonly [K: string]: PatientField<unknown> };

/** Each field's parser yields what its column stores: a line whose parser does not, does not compile. */
export type PatientFieldTable = { readonly [K in keyof typeof PATIENT_FIELDS]: PatientField<StoredAs<K>> };
const checked: PatientFieldTable = PATIENT_FIELDS;

export type PatientFieldName = keyof typeof PATIENT_FIELDS;

const names = Object.keys(checked) as PatientFieldName[];
type Audited = { [K in PatientFieldName]: (typeof PATIENT_FIELDS)[K]['audited'] extends true ? K : never }[PatientFieldName];

/** The posted fields of the patient form, in the table's order. */
export const PATIENT_FORM_FIELDS = names;

/** The stored fields a patient audit entry compares (derived columns and timestamps left out). */
export const AUDITED_PATIENT_FIELDS = names.filter((n) => PATIENT_FIELDS[n].audited) as Audited[];

/** The choice fields and their lists (what the form shows again takes their listed form). */
export const PATIENT_CHOICE_FIELDS = names.flatMap((n) => {
  const def: FieldDef = PATIENT_FIELDS[n];
  return def.kind === 'choice' && def.choices ? [[n, def.choices] as const] : [];
});

type Exported = { [K in PatientFieldName]: (typeof PATIENT_FIELDS)[K] extends { exportColumn: number } ? K : never }[PatientFieldName];

/** The patient's columns every list export starts with, in their export order. */
export const PATIENT_EXPORT_COLUMNS: readonly Exported[] = names
  .flatMap((n) => {
    const at = (checked[n] as PatientField<unknown>).exportColumn;
    return at === undefined ? [] : [[at, n as Exported] as const];
  })
  .sort((a, b) => a[0] - b[0])
  .map(([, n]) => n);
