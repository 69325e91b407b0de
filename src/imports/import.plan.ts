// What a preview keeps for its confirm (decision 0057): the summary the page showed, and the rows to write in
// batches of JSON arrays (a row is an array, not an object: a 20,000-row plan is ~4 MB, not ~10). The field names
// travel in the summary, so a plan written before a change of the form's fields is still read by name.

import { PATIENT_FORM_FIELDS, type PatientInput } from '../patients/patient.schema.js';
import type { ImportAnalysis, ImportField, RowAnalysis } from './import.rules.js';
import { reportLine, type FileColumns } from './import.report.js';

/** Rows a batch holds: the confirm writes one batch per transaction (decision 0058). */
export const BATCH_ROWS = 5;

/** Rows a preview shows: every row that needs attention up to the first, then valid rows up to the second. */
export const PREVIEW_PROBLEM_ROWS = 500;
export const PREVIEW_VALID_ROWS = 100;

/** The stored patient's fields, in the order a plan row carries them. */
export const PLAN_FIELDS = PATIENT_FORM_FIELDS.filter<keyof PatientInput>((f): f is keyof PatientInput => f !== 'fecha_inicio_programa');

export interface ImportSummary {
  kind: 'csv' | 'xlsx';
  columns: ImportField[];
  /** The file's heading of each of `columns` (absent in a summary written before issue 29). */
  headings?: string[];
  ignored: string[];
  /** Ignored columns that hold formulas (each ignored all the same: the import does not read them). */
  formulaIgnored?: string[];
  counts: ImportAnalysis['counts'];
  /** The patient fields of each plan row, in order. */
  planFields: string[];
}

/** A row the confirm may write: 'crear', or 'revisar' when the person ticks that they are other people. */
export interface PlanRow {
  line: number;
  status: 'crear' | 'revisar';
  patient: PatientInput;
  documentoKey: string;
  fechaInicio: string | null;
  estado: 'ACTIVO' | 'SUSPENDIDO';
  /** Stored patients judged at the preview as possibly the same person (the person saw them). */
  similarIds: number[];
  /** The documento keys of the earlier lines judged so: once written, those patients are this file's own. */
  similarKeys: string[];
}

type Encoded = [number, 'c' | 'r', string, string | null, 'A' | 'S', number[], string[], ...(string | number | null)[]];

function encode(row: PlanRow): Encoded {
  const p = row.patient as unknown as Record<string, string | number | null>;
  return [
    row.line,
    row.status === 'crear' ? 'c' : 'r',
    row.documentoKey,
    row.fechaInicio,
    row.estado === 'ACTIVO' ? 'A' : 'S',
    row.similarIds,
    row.similarKeys,
    ...PLAN_FIELDS.map((f) => p[f] ?? null),
  ];
}

/** A batch as stored, back into rows, the patient's fields named by the summary's list. */
export function decodeBatch(json: string, planFields: readonly string[]): PlanRow[] {
  return (JSON.parse(json) as Encoded[]).map((e) => {
    const [line, status, documentoKey, fechaInicio, estado, similarIds, similarKeys, ...values] = e;
    const patient = Object.fromEntries(planFields.map((f, i) => [f, values[i] ?? null])) as unknown as PatientInput;
    return { line, status: status === 'c' ? 'crear' : 'revisar', patient, documentoKey, fechaInicio, estado: estado === 'A' ? 'ACTIVO' : 'SUSPENDIDO', similarIds, similarKeys };
  });
}

/** Stored similar lists are cut at this length (the preview shows them whole; the confirm only checks them). */
const SIMILAR_KEPT = 50;

/** The analysed rows, taken one at a time, as the preview shows them and as the confirm will write them. */
export class PlanBuilder {
  private readonly keyByLine = new Map<number, string>();
  private readonly batches: string[] = [];
  private batch: Encoded[] = [];
  private planRows = 0;
  private problems = 0;
  private valid = 0;
  private readonly shown: RowAnalysis[] = [];
  /** The CSV lines of the rows left out (omitir) and of the possible duplicates (revisar), for the report. */
  private readonly skipped: string[] = [];
  private readonly similar: string[] = [];

  constructor(
    private readonly documentoKeyOf: (documento: string) => string,
    private readonly columns: FileColumns | null = null,
  ) {}

  add(row: RowAnalysis): void {
    if (row.status === 'crear' ? this.valid++ < PREVIEW_VALID_ROWS : this.problems++ < PREVIEW_PROBLEM_ROWS) this.shown.push(row);
    if (this.columns !== null && row.status !== 'crear') (row.status === 'omitir' ? this.skipped : this.similar).push(reportLine(row, this.columns));
    if (row.patient === null || row.status === 'omitir') return;
    const key = this.documentoKeyOf(row.patient.documento);
    this.keyByLine.set(row.line, key);
    this.batch.push(
      encode({
        line: row.line,
        status: row.status,
        patient: row.patient,
        documentoKey: key,
        fechaInicio: row.fechaInicio,
        estado: row.estado,
        similarIds: row.similar.patientIds.slice(0, SIMILAR_KEPT),
        // Earlier lines that are themselves written are 'crear' or 'revisar' rows, hence in keyByLine already.
        similarKeys: row.similar.lines.slice(0, SIMILAR_KEPT).flatMap((l) => this.keyByLine.get(l) ?? []),
      }),
    );
    this.planRows++;
    if (this.batch.length === BATCH_ROWS) {
      this.batches.push(JSON.stringify(this.batch));
      this.batch = [];
    }
  }

  finish(): { shown: RowAnalysis[]; batches: string[]; planRows: number; skippedCsv: string; similarCsv: string } {
    if (this.batch.length > 0) this.batches.push(JSON.stringify(this.batch));
    this.batch = [];
    return { shown: this.shown, batches: this.batches, planRows: this.planRows, skippedCsv: this.skipped.join(''), similarCsv: this.similar.join('') };
  }
}
