// The spreadsheet import's pure rules (decision 0042): which column is which field, and what becomes of each
// row. Every row is validated by the create form's own validatePatientForm; duplicates are judged with the
// create form's documentoKey and similarPeople.

import { PATIENT_FIELDS } from '../patients/patient.fields.js';
import { PATIENT_FORM_FIELDS, validatePatientForm, type PatientFormField, type PatientInput } from '../patients/patient.schema.js';
import { documentoKey } from '../patients/patient.rules.js';
import { normalizeForMatch } from '../shared/text.js';
import { MAX_SIMILAR_GROUP, nameKeyOf, SimilarIndex } from './import.duplicates.js';

/** A file holds at most this many data rows. */
export const MAX_IMPORT_ROWS = 20_000;
/** And weighs at most this much. */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

/** Previews a person keeps at most, and their bytes (decision 0059; migration 0140 holds the same bounds). */
export const UPLOADS_PER_USER = 5;
export const UPLOAD_BYTES_PER_USER = 25 * 1024 * 1024;

/** The longest file name kept and shown. */
export const MAX_FILE_NAME = 200;

/**
 * The name an upload is kept and shown under: without a folder some browsers send, at most MAX_FILE_NAME
 * characters, shortened in its middle so that its extension stays (the extension itself is read from the whole
 * name).
 */
export function shortFileName(name: string, max = MAX_FILE_NAME): string {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1).trim();
  if (base === '') return 'archivo';
  const chars = [...base];
  if (chars.length <= max) return base;
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 && base.length - dot <= 16 ? base.slice(dot) : '';
  return `${chars.slice(0, max - [...ext].length - 1).join('')}…${ext}`;
}

/** The columns of an import: the create form's fields and the first cycle's estado. */
export const IMPORT_FIELDS = [...PATIENT_FORM_FIELDS, 'estado'] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** The first cycle's estado: the one column that is not a field of the patient form. */
const ESTADO_HEADINGS = ['Estado', 'Estado del ciclo'];

/** Spanish headings accepted for each column, besides the field's own name (the field table's, as on the create form). */
export const IMPORT_LABELS: Record<ImportField, readonly string[]> = {
  ...(Object.fromEntries(PATIENT_FORM_FIELDS.map((f) => [f, PATIENT_FIELDS[f].importHeadings as readonly string[]])) as Record<PatientFormField, readonly string[]>),
  estado: ESTADO_HEADINGS,
};

/** The form's required fields: a file without one of these columns cannot be imported. */
export const REQUIRED_COLUMNS: readonly ImportField[] = PATIENT_FORM_FIELDS.filter((f) => PATIENT_FIELDS[f].required);

/** The columns the .xlsx template formats as text. */
export const XLSX_TEXT_COLUMNS: readonly ImportField[] = PATIENT_FORM_FIELDS.filter((f) => 'xlsxText' in PATIENT_FIELDS[f]);

const headingKeys = new Map<string, ImportField>();
for (const field of IMPORT_FIELDS) {
  headingKeys.set(normalizeForMatch(field), field);
  for (const label of IMPORT_LABELS[field]) headingKeys.set(normalizeForMatch(label), field);
}

export type HeaderResult =
  | { ok: true; columns: (ImportField | null)[]; ignored: string[] }
  | { ok: false; error: string };

/**
 * Matches the heading row: by field name or Spanish heading, case, accents, spaces and punctuation ignored
 * ('Fecha de nacimiento', 'FECHA_NACIMIENTO', 'fecha nacimiento'…). Unknown headings are ignored (and listed);
 * a repeated column or a missing required one is an error.
 */
export function matchHeader(header: readonly string[]): HeaderResult {
  const columns: (ImportField | null)[] = [];
  const ignored: string[] = [];
  const seen = new Set<ImportField>();
  for (const heading of header) {
    const field = headingKeys.get(normalizeForMatch(heading)) ?? null;
    if (field !== null && seen.has(field)) return { ok: false, error: `La columna «${heading.trim()}» está repetida.` };
    if (field !== null) seen.add(field);
    else if (heading.trim() !== '') ignored.push(heading.trim());
    columns.push(field);
  }
  const missing = REQUIRED_COLUMNS.filter((f) => !seen.has(f));
  if (missing.length > 0) {
    return { ok: false, error: `Faltan columnas obligatorias: ${missing.join(', ')}. Descargue la plantilla para ver los nombres de las columnas.` };
  }
  return { ok: true, columns, ignored };
}

export const ESTADO_MSG = 'El estado del primer ciclo debe ser ACTIVO o SUSPENDIDO (vacío: ACTIVO).';

/** The first cycle's estado: blank means ACTIVO; anything but ACTIVO or SUSPENDIDO is an error (null). */
export function parseEstadoInicial(raw: string): 'ACTIVO' | 'SUSPENDIDO' | null {
  const key = normalizeForMatch(raw);
  if (key === '' || key === 'ACTIVO') return 'ACTIVO';
  if (key === 'SUSPENDIDO') return 'SUSPENDIDO';
  return null;
}

export type RowStatus = 'crear' | 'revisar' | 'omitir';

export interface ExistingPatient {
  id: number;
  nombre: string;
  apellido: string;
  documento: string;
  fecha_nacimiento: string;
}

export interface RowAnalysis {
  /** Line of the file (the heading is line 1). */
  line: number;
  /** The cells as read, by field ('' for a column the file lacks). */
  values: Record<ImportField, string>;
  /** The cells of the columns the import reads, in the file's order, exactly as the file had them. */
  raw: string[];
  /** Errors by field, as the create form gives them. */
  errors: Record<string, string>;
  status: RowStatus;
  /** Same documento: an earlier line of the file, or a patient already stored. */
  documentoDuplicate: { line: number } | { patientId: number } | null;
  /** Same birth date and a similar name: earlier lines of the file and stored patients. */
  similar: { lines: number[]; patientIds: number[] };
  /** The validated patient, its first cycle's start and estado (when the row is valid). */
  patient: PatientInput | null;
  fechaInicio: string | null;
  estado: 'ACTIVO' | 'SUSPENDIDO';
}

export interface ImportAnalysis {
  rows: RowAnalysis[];
  counts: { total: number; crear: number; revisar: number; omitir: number; conErrores: number; duplicados: number };
}

const DATE_FIELDS: ReadonlySet<ImportField> = new Set(['fecha_nacimiento', 'fecha_inicio_programa']);
const DAY_FIRST = /^\s*(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\s*$/;

/**
 * A date as a Spanish-locale spreadsheet writes it (day first: 14/03/1975, 14-03-1975, 14.03.1975) in the
 * form's YYYY-MM-DD; anything else is left as it is for the form's own check.
 */
export function dayFirstToIso(cell: string): string {
  const m = DAY_FIRST.exec(cell);
  if (!m) return cell;
  return `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
}

/** The cells of one data row as the create form's raw values. */
export function rowValues(cells: readonly string[], columns: readonly (ImportField | null)[]): Record<ImportField, string> {
  const values = Object.fromEntries(IMPORT_FIELDS.map((f) => [f, ''])) as Record<ImportField, string>;
  columns.forEach((field, i) => {
    if (field === null) return;
    const cell = cells[i] ?? '';
    values[field] = DATE_FIELDS.has(field) ? dayFirstToIso(cell) : cell;
  });
  return values;
}

/**
 * What becomes of each row: 'omitir' when it has errors or its documento is taken (in the database or by an
 * earlier line), 'revisar' when someone with the same birth date and a similar name exists (in the database or
 * on an earlier line), 'crear' otherwise. `existingByKey` maps documento keys to stored patients;
 * `bornSameDay` holds the stored patients born on any of the file's birth dates. Linear in the rows: people are
 * compared only within the small groups of import.duplicates.ts; a file with more than MAX_SIMILAR_GROUP rows of
 * one birth date and nearly the same name throws SimilarGroupTooLarge.
 */
export function analyseRows(
  dataRows: readonly (readonly string[])[],
  columns: readonly (ImportField | null)[],
  today: string,
  existingByKey: ReadonlyMap<string, { id: number }>,
  bornSameDay: readonly ExistingPatient[],
): ImportAnalysis {
  const rows: RowAnalysis[] = [];
  const counts = forEachAnalysedRow(dataRows, columns, today, existingByKey, bornSameDay, (row) => rows.push(row));
  return { rows, counts };
}

/**
 * analyseRows, handing each row to `onRow` as it is analysed instead of keeping them all: the worker keeps only
 * what the preview shows and the plan (import.plan.ts), not 20,000 analysed rows at once. Returns the counts.
 */
export function forEachAnalysedRow(
  dataRows: readonly (readonly string[])[],
  columns: readonly (ImportField | null)[],
  today: string,
  existingByKey: ReadonlyMap<string, { id: number }>,
  bornSameDay: readonly ExistingPatient[],
  onRow: (row: RowAnalysis) => void,
): ImportAnalysis['counts'] {
  const firstLineByKey = new Map<string, number>();
  const earlier = new SimilarIndex<number>();
  const stored = new SimilarIndex<number>();
  for (const p of bornSameDay) {
    const name = nameKeyOf(p.nombre, p.apellido);
    if (name !== null) stored.add(p.fecha_nacimiento, name, p.id);
  }
  const counts = { total: 0, crear: 0, revisar: 0, omitir: 0, conErrores: 0, duplicados: 0 };
  dataRows.forEach((cells, i) => {
    const line = i + 2;
    const values = rowValues(cells, columns);
    const raw = columns.flatMap((f, j) => (f === null ? [] : [cells[j] ?? '']));
    const form = validatePatientForm(values, today);
    const errors: Record<string, string> = form.ok ? {} : { ...form.errors };
    // The form's values take the listed form of matched choices ('union libre' → 'UNIÓN LIBRE').
    for (const f of PATIENT_FORM_FIELDS) values[f] = form.values[f];
    const estado = parseEstadoInicial(values.estado);
    if (estado === null) errors.estado = ESTADO_MSG;

    let documentoDuplicate: RowAnalysis['documentoDuplicate'] = null;
    const key = values.documento.trim() === '' ? null : documentoKey(values.documento);
    if (key !== null) {
      const taken = existingByKey.get(key);
      const first = firstLineByKey.get(key);
      if (taken) documentoDuplicate = { patientId: taken.id };
      else if (first !== undefined) documentoDuplicate = { line: first };
      else firstLineByKey.set(key, line);
    }

    const similar = { lines: [] as number[], patientIds: [] as number[] };
    const name = form.ok ? nameKeyOf(form.patient.nombre, form.patient.apellido) : null;
    if (form.ok && name !== null) {
      const born = form.patient.fecha_nacimiento;
      similar.patientIds = stored.find(born, name).sort((a, b) => a - b);
      similar.lines = earlier.find(born, name).sort((a, b) => a - b);
      if (documentoDuplicate === null) earlier.add(born, name, line, { maxGroup: MAX_SIMILAR_GROUP, line });
    }
    const hasErrors = Object.keys(errors).length > 0;
    const status: RowStatus =
      hasErrors || documentoDuplicate !== null ? 'omitir' : similar.lines.length + similar.patientIds.length > 0 ? 'revisar' : 'crear';
    counts.total++;
    counts[status]++;
    if (hasErrors) counts.conErrores++;
    if (documentoDuplicate !== null) counts.duplicados++;
    onRow({
      line,
      values,
      raw,
      errors,
      status,
      documentoDuplicate,
      similar,
      patient: form.ok && !hasErrors ? form.patient : null,
      fechaInicio: form.ok ? form.fechaInicioPrograma : null,
      estado: estado ?? 'ACTIVO',
    });
  });
  return counts;
}
