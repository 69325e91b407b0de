// The exam pages kept by src/platform/pages/page-cache.ts.

import { listBookedVisitsOn } from '../agenda/agenda.visits.repository.js';
import { searchPatients } from '../patients/patient.capita-list.repository.js';
import { countMatchesNotActive } from '../patients/patient.list.repository.js';
import { findPatientWithActiveIngreso } from '../patients/patient.repository.js';
import { parseIsoDate } from '../shared/dates.js';
import { LIST_PAGE_BYTES, RECORD_PAGE_BYTES } from '../platform/pages/cached-page.js';
import { declarePage } from '../platform/pages/page-cache.js';
import { listCycleRecords, listPatientCycles } from './exam.repository.js';
import { cycleSeries } from './exam.rules.js';
import { ClinicalContent, clinicalTitle } from './views/clinical.page.js';
import type { PostedForm } from './views/forms.js';
import { ExamListContent } from './views/list.page.js';

/** GET /exams/: the active patients (searched), each with a link to its clinical view. */
export const examListPage = declarePage<{ query: string; page: number; today: string }>({
  name: 'exams.list',
  tables: ['patients', 'ingresos'],
  maxBytes: LIST_PAGE_BYTES,
  async render(db, { query, page, today }) {
    const result = await searchPatients(db, { query, onlyActive: true, page, today });
    const notActive = await countMatchesNotActive(db, { query, found: result });
    return { node: <ExamListContent query={query} result={result} notActive={notActive} />, title: 'Exámenes', meta: null };
  },
});

/**
 * The clinical view of a patient: the ACTIVO cycle's records, trends and forms (each offering the patient's visits
 * booked on the exam's date, today unless a posted form says another), and the cycles. Kept after a GET;
 * with a posted form's values and errors after a failed POST (the same render, not kept). `meta` is what the
 * view's audit entry records.
 */
export const clinicalPage = declarePage<
  { patientId: number; today: string; timeZone: string; posted: PostedForm | null },
  { ingresoId: number | null; registros: number }
>({
  name: 'exams.clinical',
  patient: ({ patientId }) => patientId,
  tables: ['patients', 'ingresos', 'exam_records', 'users', 'citas', 'agenda_tipos'],
  maxBytes: RECORD_PAGE_BYTES,
  async render(db, { patientId, today, timeZone, posted }) {
    const visitDay = (posted && parseIsoDate(posted.values.fecha ?? '')) || today;
    const found = await findPatientWithActiveIngreso(db, patientId);
    if (!found) return null;
    const { patient, ingreso: active } = found;
    const [records, cycles, visits] = await Promise.all([
      active ? listCycleRecords(db, active.id, { includeVoided: false }) : [],
      listPatientCycles(db, patient.id),
      active ? listBookedVisitsOn(db, patient.id, visitDay) : [],
    ]);
    const series = cycleSeries(records);
    const data = { patient, today, timeZone, active, records, series, cycles, visits, ...(posted ? { posted } : {}) };
    return {
      node: <ClinicalContent data={data} />,
      title: clinicalTitle(patient),
      meta: { ingresoId: active?.id ?? null, registros: records.length },
    };
  },
});
