// The CSV exports of the patient lists (/patients/, /patients/follow, /exams/), each an action that builds the
// download and has its 'export' entry written once its rows are out (decision 0081).

import type { Db } from '../db/database.js';
import { auditedExport } from '../audit/audit.actions.js';
import { mesCapita, mesFiltroRange } from '../ingresos/ingreso.rules.js';
import { todayOf, type ActionContext } from '../platform/writes/action-context.js';
import { groupBy } from '../shared/collections.js';
import { EXPORT_PAGE_SIZE, keysetBatches, type CsvDownload, type CsvValue } from '../shared/csv.js';
import { PATIENT_EXPORT_COLUMNS } from './patient.fields.js';
import { findIngresosOfPatients, findPatientExportPage, type PatientExportQuery, type PatientExportRow } from './patient.export.repository.js';

const patientCells = (r: PatientExportRow): CsvValue[] => PATIENT_EXPORT_COLUMNS.map((c) => r[c]);

const patientPages = (db: Db, q: PatientExportQuery, opts: { lastMonitoring?: boolean } = {}) =>
  keysetBatches<PatientExportRow>((after) => findPatientExportPage(db, q, after, EXPORT_PAGE_SIZE, opts), EXPORT_PAGE_SIZE);

/** /patients/: patients with an ACTIVO Ingreso, query_search and mes_filtro as on the page. */
export function exportPatientList(ctx: ActionContext, filters: { query: string; mesFiltro: number | null }): CsvDownload {
  const { db } = ctx;
  const day = todayOf(ctx);
  async function* pages() {
    const activeRange = filters.mesFiltro !== null ? mesFiltroRange(filters.mesFiltro, day) : null;
    for await (const page of patientPages(db, { query: filters.query, onlyActive: true, activeRange })) {
      yield page.map((r) => [...patientCells(r), r.fecha_inicio, mesCapita(r.fecha_inicio, day)]);
    }
  }
  return auditedExport(ctx, {
    name: 'patients',
    fileName: `pacientes-${day}.csv`,
    filters: { query_search: filters.query, mes_filtro: filters.mesFiltro },
    header: [...PATIENT_EXPORT_COLUMNS, 'fecha_inicio', 'mes_capita'],
    pages: pages(),
  });
}

/** /patients/follow: every matching patient, one line per Ingreso (latest start first), each with its cycle number. */
export function exportFollowList(ctx: ActionContext, filters: { query: string }): CsvDownload {
  const { db } = ctx;
  const day = todayOf(ctx);
  async function* pages() {
    for await (const page of patientPages(db, { query: filters.query, onlyActive: false, activeRange: null })) {
      const byPatient = groupBy(await findIngresosOfPatients(db, page.map((p) => p.id)), (i) => i.paciente_id);
      yield page.flatMap((p) =>
        (byPatient.get(p.id) ?? []).map((i) => [...patientCells(p), i.numero, i.estado, i.fecha_inicio, i.fecha_fin, mesCapita(i.fecha_inicio, day), i.motivo]),
      );
    }
  }
  return auditedExport(ctx, {
    name: 'follow',
    fileName: `seguimiento-${day}.csv`,
    filters: { query_search: filters.query },
    header: [...PATIENT_EXPORT_COLUMNS, 'ciclo', 'estado', 'fecha_inicio', 'fecha_fin', 'mes_capita', 'motivo'],
    pages: pages(),
  });
}

/**
 * /exams/: patients with an ACTIVO Ingreso, with the date of their latest monitoring record. A list of patients,
 * so it is written here (src/exams/ keeps the records themselves).
 */
export function exportExamList(ctx: ActionContext, filters: { query: string }): CsvDownload {
  const { db } = ctx;
  const day = todayOf(ctx);
  async function* pages() {
    for await (const page of patientPages(db, { query: filters.query, onlyActive: true, activeRange: null }, { lastMonitoring: true })) {
      yield page.map((r) => [...patientCells(r), r.fecha_inicio, mesCapita(r.fecha_inicio, day), r.ultimo_monitoreo ?? null]);
    }
  }
  return auditedExport(ctx, {
    name: 'exams',
    fileName: `examenes-${day}.csv`,
    filters: { query_search: filters.query },
    header: [...PATIENT_EXPORT_COLUMNS, 'fecha_inicio', 'mes_capita', 'ultimo_monitoreo'],
    pages: pages(),
  });
}
