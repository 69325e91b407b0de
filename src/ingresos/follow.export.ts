// The follow page's CSV export (/patients/follow.csv), an action that builds the download and has its 'export'
// entry written once its rows are out (decision 0081): the patients as the patient lists export them, each on one
// line per Ingreso.

import { auditedExport } from '../audit/audit.actions.js';
import { patientExportCells, patientExportPages } from '../patients/patient.export.repository.js';
import { PATIENT_EXPORT_COLUMNS } from '../patients/patient.fields.js';
import { todayOf, type ActionContext } from '../platform/writes/action-context.js';
import { groupBy } from '../shared/collections.js';
import type { CsvDownload } from '../shared/csv.js';
import { listIngresosOfPatients } from './ingreso.repository.js';
import { mesCapita } from './ingreso.rules.js';

/** /patients/follow: every matching patient, one line per Ingreso (latest start first), each with its cycle number. */
export function exportFollowList(ctx: ActionContext, filters: { query: string }): CsvDownload {
  const { db } = ctx;
  const day = todayOf(ctx);
  async function* pages() {
    for await (const page of patientExportPages(db, { query: filters.query, onlyActive: false, activeRange: null })) {
      const byPatient = groupBy(await listIngresosOfPatients(db, page.map((p) => p.id)), (i) => i.paciente_id);
      yield page.flatMap((p) =>
        (byPatient.get(p.id) ?? []).map((i) => [...patientExportCells(p), i.numero, i.estado, i.fecha_inicio, i.fecha_fin, mesCapita(i.fecha_inicio, day), i.motivo]),
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
