// The CSV exports of the patient lists (/patients/, /exams/), each an action that builds the download and has its
// 'export' entry written once its rows are out (decision 0081). The follow page's is ingresos/follow.export.ts.

import { auditedExport } from '../audit/audit.actions.js';
import { mesCapita, mesFiltroRange } from '../ingresos/ingreso.rules.js';
import { todayOf, type ActionContext } from '../platform/writes/action-context.js';
import type { CsvDownload } from '../shared/csv.js';
import { PATIENT_EXPORT_COLUMNS } from './patient.fields.js';
import { patientExportCells, patientExportPages } from './patient.export.repository.js';

/** /patients/: patients with an ACTIVO Ingreso, query_search and mes_filtro as on the page. */
export function exportPatientList(ctx: ActionContext, filters: { query: string; mesFiltro: number | null }): CsvDownload {
  const { db } = ctx;
  const day = todayOf(ctx);
  async function* pages() {
    const activeRange = filters.mesFiltro !== null ? mesFiltroRange(filters.mesFiltro, day) : null;
    for await (const page of patientExportPages(db, { query: filters.query, onlyActive: true, activeRange })) {
      yield page.map((r) => [...patientExportCells(r), r.fecha_inicio, mesCapita(r.fecha_inicio, day)]);
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

/**
 * /exams/: patients with an ACTIVO Ingreso, with the date of their latest monitoring record. A list of patients,
 * so it is written here (src/exams/ keeps the records themselves).
 */
export function exportExamList(ctx: ActionContext, filters: { query: string }): CsvDownload {
  const { db } = ctx;
  const day = todayOf(ctx);
  async function* pages() {
    for await (const page of patientExportPages(db, { query: filters.query, onlyActive: true, activeRange: null }, { lastMonitoring: true })) {
      yield page.map((r) => [...patientExportCells(r), r.fecha_inicio, mesCapita(r.fecha_inicio, day), r.ultimo_monitoreo ?? null]);
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
