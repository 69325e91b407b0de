// How an import explains each row (issue 29, decision 0117), pure: every problem of a row named by the file's own
// heading ("Valor cápita: Ingrese un número válido"), the values as the file had them, and the line of the CSV of
// rows left out (the file's columns, then «motivo»), ready to fix and import again.

import { PATIENT_FIELDS } from '../patients/patient.fields.js';
import { csvRow } from '../shared/csv.js';
import type { ImportField, RowAnalysis } from './import.rules.js';

/** The heading of the CSV of rows left out's reason column. */
export const REASON_HEADING = 'motivo';

const DATE_FIELDS: ReadonlySet<string> = new Set(['fecha_nacimiento', 'fecha_inicio_programa']);
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The columns of a file: the fields it fills, each under the heading the file gave it. */
export interface FileColumns {
  kind: 'csv' | 'xlsx';
  fields: readonly ImportField[];
  headings: readonly string[];
}

/** A field's name in the person's words: the file's heading for it, else the form's label. */
export function headingOf(columns: FileColumns, field: string): string {
  const i = columns.fields.indexOf(field as ImportField);
  const heading = i >= 0 ? columns.headings[i] : undefined;
  if (heading) return heading;
  if (field === 'estado') return 'Estado';
  return (PATIENT_FIELDS as Record<string, { label: string } | undefined>)[field]?.label ?? field;
}

/**
 * A cell as the file showed it. A CSV's text is shown as written; an .xlsx date cell (read as its date) is shown
 * as a Spanish-locale Excel shows it, dd/mm/aaaa.
 */
export function displayCell(columns: FileColumns, index: number, raw: string): string {
  if (columns.kind === 'xlsx' && DATE_FIELDS.has(columns.fields[index]!)) {
    const m = ISO_DATE.exec(raw);
    if (m) return `${m[3]}/${m[2]}/${m[1]}`;
  }
  return raw;
}

export interface RowProblem {
  /** the field it stands beside, or null for the row as a whole */
  field: string | null;
  /** the file's heading of that field, or null */
  heading: string | null;
  text: string;
}

/** Every reason a row is left out or needs a look, in the order of the file's columns, then the row's own. */
export function rowProblems(row: RowAnalysis, columns: FileColumns): RowProblem[] {
  const out: RowProblem[] = [];
  const fieldErrors = Object.entries(row.errors).filter(([f]) => f !== '_form');
  const order = (f: string) => {
    const i = columns.fields.indexOf(f as ImportField);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  fieldErrors.sort(([a], [b]) => order(a) - order(b));
  for (const [field, text] of fieldErrors) out.push({ field, heading: headingOf(columns, field), text });
  if (row.errors._form) out.push({ field: null, heading: null, text: row.errors._form });
  const d = row.documentoDuplicate;
  if (d && 'patientId' in d) out.push({ field: 'documento', heading: headingOf(columns, 'documento'), text: `Ya existe un paciente con este documento (ficha n.º ${d.patientId}).` });
  if (d && 'line' in d) out.push({ field: 'documento', heading: headingOf(columns, 'documento'), text: `El mismo documento ya está en la fila ${d.line}.` });
  if (row.status === 'revisar') {
    const who = [
      ...(row.similar.patientIds.length > 0 ? [`${row.similar.patientIds.length === 1 ? 'la ficha' : 'las fichas'} n.º ${row.similar.patientIds.join(', ')}`] : []),
      ...(row.similar.lines.length > 0 ? [`${row.similar.lines.length === 1 ? 'la fila' : 'las filas'} ${row.similar.lines.join(', ')}`] : []),
    ];
    out.push({ field: null, heading: null, text: `Posible duplicado: misma fecha de nacimiento y nombre parecido que ${who.join(' y ')}.` });
  }
  return out;
}

/** A problem as one phrase: 'Valor cápita: Ingrese un número válido.' */
export const problemText = (p: RowProblem): string => (p.heading ? `${p.heading}: ${p.text}` : p.text);

/** The reasons of a row as the CSV's «motivo» cell. */
export const reasonOf = (problems: readonly RowProblem[]): string => problems.map(problemText).join(' · ');

/** The CSV heading of the rows left out: the file's own headings, then «motivo». */
export const reportHeader = (columns: FileColumns): string => csvRow([...columns.headings, REASON_HEADING]);

/** A row of the CSV of rows left out: its cells as the file had them, then its reasons. */
export function reportLine(row: RowAnalysis, columns: FileColumns): string {
  return csvRow([...row.raw.map((cell, i) => displayCell(columns, i, cell)), reasonOf(rowProblems(row, columns))]);
}
