import type { Generated, Selectable } from 'kysely';

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

export type ImportUploadRow = Selectable<PatientImportUploadsTable>;
