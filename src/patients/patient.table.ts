import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { TableEntries } from '../platform/tables.js';

export interface PatientsTable {
  id: Generated<number>;
  nombre: string;
  apellido: string;
  tipo_documento: string;
  documento: string;
  /**
   * documentoKey(documento), the uniqueness key (decision 0030); '<key>#<id>' for a patient whose documento
   * collided with an older patient's when keys became canonical, until staff resolve it (documento_collisions).
   */
  documento_key: string;
  fecha_nacimiento: string;
  genero: string;
  departamento: string;
  ciudad: string;
  zona: string;
  telefono: string;
  celular: string;
  estado_civil: string;
  entidad_salud: string;
  estrato: number;
  /** Hundredths of a kilogram. */
  peso: number | null;
  /** Hundredths of a meter. */
  altura: number | null;
  /** Hundredths of a centimeter. */
  perimetro_abdominal: number | null;
  /** Hundredths of a centimeter. */
  cuello: number | null;
  medico_remitente: string;
  especialidad: string;
  diagnostico_clinico: string;
  programa: string;
  /** RIPS table RIPSTipoUsuarioVersion2 ('01'..'13'); '' until staff ask it (migration 0200, never guessed). */
  tipo_usuario: Generated<string>;
  /** Hundredths of a peso. */
  valor_capita: Generated<number>;
  /** normalizeForSearch(`${nombre} ${apellido} ${documento}`), then the documento's key when it differs (patientDerivedColumns). */
  search_text: string;
  apellido_norm: string;
  nombre_norm: string;
  created_at: string;
  updated_at: string;
  /**
   * fecha_inicio of the patient's ACTIVO Ingreso, null when none. Kept by database triggers on ingresos
   * (migrations 0010, 0591), never updated by the application; it drives the indexed patient lists. A creation may
   * give the start of the cycle it opens, so that the row is written once (decision 0300): the trigger of that
   * cycle's insert sets any other value right in the same statement.
   */
  activo_desde: ColumnType<string | null, string | undefined, never>;
}

/** Patients with an ACTIVO Ingreso per month of its start (mes = 'YYYY-MM'); kept by triggers (migration 0020). */
export interface PatientActiveCountsTable {
  mes: ColumnType<string, never, never>;
  n: ColumnType<number, never, never>;
}

/** The patients whose documentos collided when keys became canonical (migration 0040), by their shared key. */
export interface DocumentoCollisionsTable {
  patient_id: number;
  documento_key: string;
}

/** How many patients there are, in slots (migration 0340): the total is the sum of n. */
export interface PatientTotalTable {
  slot: number;
  n: number;
}

/**
 * The list order in blocks of consecutive apellido_norm values (migration 0441): a block starts at start_key and
 * ends before the next; its patients, and its active patients, counted by triggers.
 */
export interface PatientListBlocksTable {
  start_key: string;
  n_all: number;
  n_active: number;
}

export interface PatientTables {
  patients: PatientsTable;
  documento_collisions: DocumentoCollisionsTable;
  patient_active_counts: PatientActiveCountsTable;
  patient_total: PatientTotalTable;
  patient_list_blocks: PatientListBlocksTable;
}

/** The registry's lines of these tables (src/platform/tables.ts). */
export const PATIENT_TABLE_ENTRIES = {
  patients: { versioned: true, patient: { column: 'id' } },
  // SQLite's full-text index of the patients' search text (migration 0002), kept by triggers on patients.
  patients_fts: { derivedFrom: 'patients', onlyOn: 'sqlite' },
  patient_active_counts: { derivedFrom: 'patients' },
  patient_total: { derivedFrom: 'patients' },
  patient_list_blocks: { derivedFrom: 'patients' },
  // Read only by the administrators' page of repeated documentos, rendered per request (decision 0030).
  documento_collisions: {},
} as const satisfies TableEntries<keyof PatientTables | 'patients_fts'>;

export type PatientRow = Selectable<PatientsTable>;
export type NewPatientRow = Insertable<PatientsTable>;
export type PatientUpdate = Updateable<PatientsTable>;
