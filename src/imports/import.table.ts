import type { Generated, Selectable } from 'kysely';
import type { TableEntries } from '../platform/tables.js';

export type UploadState = 'preparando' | 'lista' | 'importando';

/**
 * An analysed spreadsheet between its preview and its confirmation (migrations 0060 and 0140): not the file, but
 * what the preview showed (`summary`) and what the confirm will write (its batches).
 */
export interface PatientImportUploadsTable {
  id: Generated<number>;
  user_id: number;
  file_name: string;
  /** SHA-256 of the file, hex. */
  digest: string;
  created_at: string;
  state: Generated<UploadState>;
  /** The size of its batches (the per-person bound counts it). */
  bytes: number;
  /** The preview's counts and columns (ImportSummary as JSON). */
  summary: string;
  /** 1 when the possible duplicates are imported too; null until the first confirm. */
  include_similar: number | null;
  created: Generated<number>;
  left_out: Generated<number>;
  /** JSON array of the first lines left out. */
  left_out_lines: Generated<string>;
  /** The CSV heading of its report of rows left out: the file's own headings, then «motivo» (migration 0320). */
  report_header: Generated<string>;
  /** CSV lines of the rows the preview leaves out (errors, documento taken), each with its reason. */
  skipped_csv: Generated<string>;
  /** CSV lines of the possible duplicates: left out unless the person imports them too. */
  similar_csv: Generated<string>;
}

/** What a confirmed import left out, one CSV to download, fix and import again (migration 0320; kept a day). */
export interface PatientImportReportsTable {
  id: Generated<number>;
  user_id: number;
  file_name: string;
  created_at: string;
  /** rows in the CSV (the heading left out) */
  filas: number;
  /** the whole CSV, heading included, without its BOM */
  csv: string;
}

/** The rows to write of an upload, a JSON array per batch; a batch is deleted in the transaction that writes it. */
export interface PatientImportBatchesTable {
  upload_id: number;
  seq: number;
  rows_json: string;
}

export interface ImportTables {
  patient_import_uploads: PatientImportUploadsTable;
  patient_import_batches: PatientImportBatchesTable;
  patient_import_reports: PatientImportReportsTable;
}

/** The registry's line of the table (src/platform/tables.ts): uploads between preview and confirm (decision 0042); no kept page shows them. */
export const IMPORT_TABLE_ENTRIES = {
  patient_import_uploads: {},
  patient_import_batches: {},
  patient_import_reports: {},
} as const satisfies TableEntries<keyof ImportTables>;

export type ImportUploadRow = Selectable<PatientImportUploadsTable>;
