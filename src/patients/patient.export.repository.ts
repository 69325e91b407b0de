// Keyset-paged queries behind the CSV exports of the list pages. The patient filter is the list pages' own
// (patientListFilter in patient.search.repository.ts), read in pages of
// EXPORT_PAGE_SIZE in the lists' order (apellido, nombre, id) instead of pages of ten. The follow page's export
// (ingresos/) reads them too: nothing here imports ingresos/.

import type { Db, Executor } from '../db/database.js';
import { EXPORT_PAGE_SIZE, keysetBatches, type CsvValue } from '../shared/csv.js';
import { PATIENT_EXPORT_COLUMNS } from './patient.fields.js';
import { patientListFilter, type ActiveRange } from './patient.search.repository.js';

export interface PatientExportQuery {
  query: string;
  onlyActive: boolean;
  activeRange: ActiveRange | null;
}

export interface PatientExportRow {
  id: number;
  documento: string;
  tipo_documento: string;
  nombre: string;
  apellido: string;
  programa: string;
  entidad_salud: string;
  departamento: string;
  ciudad: string;
  apellido_norm: string;
  nombre_norm: string;
  /** the ACTIVO Ingreso's fecha_inicio, or null */
  fecha_inicio: string | null;
  /** date of the latest monitoring record of the ACTIVO Ingreso (voided ones aside), when asked for */
  ultimo_monitoreo?: string | null;
}

/** One page of the patients of a list page, after the keyset `after`. */
export async function findPatientExportPage(
  db: Executor,
  q: PatientExportQuery,
  after: PatientExportRow | null,
  limit: number,
  opts: { lastMonitoring?: boolean } = {},
): Promise<PatientExportRow[]> {
  let query = db
    .selectFrom('patients as p')
    .leftJoin('ingresos as a', (join) => join.onRef('a.paciente_id', '=', 'p.id').on('a.estado', '=', 'ACTIVO'))
    .select([
      'p.id',
      'p.documento',
      'p.tipo_documento',
      'p.nombre',
      'p.apellido',
      'p.programa',
      'p.entidad_salud',
      'p.departamento',
      'p.ciudad',
      'p.apellido_norm',
      'p.nombre_norm',
      'a.fecha_inicio',
    ])
    .$if(opts.lastMonitoring === true, (qb) =>
      qb.select((eb) =>
        eb
          .selectFrom('exam_records as e')
          .select((e) => e.fn.max('e.fecha').as('f'))
          .whereRef('e.ingreso_id', '=', 'a.id')
          .where('e.kind', '=', 'MONITOREO')
          .where('e.anulado_at', 'is', null)
          .as('ultimo_monitoreo'),
      ),
    );
  query = query.where(patientListFilter(db, q));
  if (after !== null) {
    query = query.where((eb) =>
      eb(eb.refTuple('p.apellido_norm', 'p.nombre_norm', 'p.id'), '>', eb.tuple(after.apellido_norm, after.nombre_norm, after.id)),
    );
  }
  const rows = await query.orderBy('p.apellido_norm').orderBy('p.nombre_norm').orderBy('p.id').limit(limit).execute();
  return rows;
}

/** The patients of a list page in batches of EXPORT_PAGE_SIZE, in list order. */
export const patientExportPages = (db: Db, q: PatientExportQuery, opts: { lastMonitoring?: boolean } = {}) =>
  keysetBatches<PatientExportRow>((after) => findPatientExportPage(db, q, after, EXPORT_PAGE_SIZE, opts), EXPORT_PAGE_SIZE);

/** The patient's columns every list export starts its line with (PATIENT_EXPORT_COLUMNS). */
export const patientExportCells = (r: PatientExportRow): CsvValue[] => PATIENT_EXPORT_COLUMNS.map((c) => r[c]);
