import type { Generated, Selectable } from 'kysely';
import type { TableEntries } from '../platform/tables.js';

/** An uploaded spreadsheet between its preview and its confirmation (migration 0060). */
export interface PatientImportUploadsTable {
  id: Generated<number>;
  user_id: number;
  file_name: string;
  /** SHA-256 of the file, hex. */
  digest: string;
  content: Buffer;
  created_at: string;
}

export interface ImportTables {
  patient_import_uploads: PatientImportUploadsTable;
}

/** The registry's line of the table (src/platform/tables.ts): uploads between preview and confirm (decision 0042); no kept page shows them. */
export const IMPORT_TABLE_ENTRIES = {
  patient_import_uploads: {},
} as const satisfies TableEntries<keyof ImportTables>;

export type ImportUploadRow = Selectable<PatientImportUploadsTable>;
