// The work of the import's worker thread (decision 0057), as plain functions: read the file and say which
// documento keys and birth dates the database must be asked about; then, given the answers, analyse every row and
// produce what the preview shows and what the confirm will write. The database stays on the server's thread.

import { documentoKey } from '../patients/patient.rules.js';
import { parseIsoDate } from '../shared/dates.js';
import { SimilarGroupTooLarge, MAX_SIMILAR_GROUP } from './import.duplicates.js';
import { badFile, FILE_MSG } from './import.errors.js';
import { cellRef, readSpreadsheet } from './import.parse.js';
import { reportHeader, type FileColumns } from './import.report.js';
import { PLAN_FIELDS, PlanBuilder, type ImportSummary } from './import.plan.js';
import type { SheetData } from './import.rows.js';
import { dayFirstToIso, forEachAnalysedRow, matchHeader, type ExistingPatient, type ImportField, type RowAnalysis } from './import.rules.js';

/** What the preview shows and the confirm will write. */
export interface AnalysisResult {
  summary: ImportSummary;
  /** The rows shown (those needing attention first, then valid ones, each up to its bound), in file order. */
  shown: RowAnalysis[];
  /** The rows to write, BATCH_ROWS a batch, each a JSON array (import.plan.ts). */
  batches: string[];
  planRows: number;
  /** The report's CSV heading, and its lines for the rows left out and for the possible duplicates. */
  reportHeader: string;
  skippedCsv: string;
  similarCsv: string;
}

export interface ReadFile {
  sheet: SheetData;
  columns: (ImportField | null)[];
  ignored: string[];
  /** The columns read, in order, under the file's headings. */
  read: FileColumns;
  /** Ignored columns holding formulas, by their heading. */
  formulaIgnored: string[];
  /** The documento keys of the file, each once. */
  keys: string[];
  /** Its valid birth dates, each once. */
  dates: string[];
}

export async function readForAnalysis(fileName: string, data: Buffer): Promise<ReadFile> {
  const sheet = await readSpreadsheet(fileName, data);
  const header = matchHeader(sheet.header);
  if (!header.ok) throw badFile(header.error);
  // A formula is refused only where the import would read it; elsewhere its column is ignored like any other.
  const formulaIgnored: string[] = [];
  for (const f of sheet.formulas) {
    if ((header.columns[f.col - 1] ?? null) !== null) throw badFile(FILE_MSG.formula(f.ref));
    formulaIgnored.push((sheet.header[f.col - 1] ?? '').trim() || `columna ${cellRef(1, f.col).replace(/\d+$/, '')}`);
  }
  const read: FileColumns = {
    kind: sheet.kind,
    fields: header.columns.filter((c): c is ImportField => c !== null),
    headings: header.columns.flatMap((c, i) => (c === null ? [] : [(sheet.header[i] ?? '').trim() || c])),
  };
  const docIndex = header.columns.indexOf('documento');
  const birthIndex = header.columns.indexOf('fecha_nacimiento');
  const keys = new Set<string>();
  const dates = new Set<string>();
  for (const r of sheet.rows) {
    const d = (r[docIndex] ?? '').trim();
    if (d !== '') keys.add(documentoKey(d));
    const born = parseIsoDate(dayFirstToIso(r[birthIndex] ?? ''));
    if (born) dates.add(born);
  }
  return { sheet, columns: header.columns, ignored: header.ignored, read, formulaIgnored, keys: [...keys], dates: [...dates] };
}

export function analyseFile(file: ReadFile, today: string, existing: ReadonlyMap<string, { id: number }>, born: readonly ExistingPatient[]): AnalysisResult {
  const plan = new PlanBuilder(documentoKey, file.read);
  let counts;
  try {
    counts = forEachAnalysedRow(file.sheet.rows, file.columns, today, existing, born, (row) => plan.add(row));
  } catch (err) {
    if (err instanceof SimilarGroupTooLarge) throw badFile(FILE_MSG.similarGroup(err.date, err.line, MAX_SIMILAR_GROUP));
    throw err;
  }
  const { shown, batches, planRows, skippedCsv, similarCsv } = plan.finish();
  const summary: ImportSummary = {
    kind: file.sheet.kind,
    columns: [...file.read.fields],
    headings: [...file.read.headings],
    ignored: file.ignored,
    formulaIgnored: file.formulaIgnored,
    counts,
    planFields: [...PLAN_FIELDS],
  };
  return { summary, shown, batches, planRows, reportHeader: reportHeader(file.read), skippedCsv, similarCsv };
}
