// The follow page kept by src/platform/pages/page-cache.ts: the patients with their Ingresos (the lifecycle's forms).

import { findListPage } from '../patients/patient.list.repository.js';
import { LIST_PAGE_BYTES } from '../platform/pages/cached-page.js';
import { declarePage } from '../platform/pages/page-cache.js';
import { groupBy } from '../shared/collections.js';
import { listHistoryOfIngresos, listIngresosOfPatients, type HistoryEntry } from './ingreso.repository.js';
import type { IngresoRow } from './ingreso.table.js';
import { FollowContent, type FollowPatient } from './views/follow.page.js';

/** GET /patients/follow: every patient (searched), each with all its Ingresos and their status history. */
export const followPage = declarePage<{ query: string; page: number; today: string; timeZone: string }>({
  name: 'ingresos.follow',
  tables: ['patients', 'ingresos', 'ingreso_historial', 'users'],
  maxBytes: LIST_PAGE_BYTES,
  async render(db, { query, page, today, timeZone }) {
    const result = await findListPage(db, { query, onlyActive: false, page });
    // One query for the page's Ingresos and one for their history, never one per patient.
    const ingresos = await listIngresosOfPatients(db, result.rows.map((r) => r.id));
    const history = groupBy(await listHistoryOfIngresos(db, ingresos.map((i) => i.id)), (h: HistoryEntry) => h.ingreso_id);
    const byPatient = groupBy(ingresos, (i: IngresoRow & { numero: number }) => i.paciente_id);
    const patients: FollowPatient[] = result.rows.map((patient) => ({ patient, ingresos: byPatient.get(patient.id) ?? [] }));
    return {
      node: <FollowContent query={query} result={result} patients={patients} history={history} today={today} timeZone={timeZone} />,
      title: 'Seguimiento de ingresos',
      meta: null,
    };
  },
});
