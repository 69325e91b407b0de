// The patient pages kept by src/platform/pages/page-cache.ts: each declared once, with the tables it reads.

import { listConsents } from '../agenda/agenda.contact.repository.js';
import { mesCapita } from '../ingresos/ingreso.rules.js';
import type { FieldErrors, FormValues } from '../web/fields.js';
import { declarePage } from '../platform/pages/page-cache.js';
import { LIST_PAGE_BYTES, RECORD_PAGE_BYTES } from '../platform/pages/cached-page.js';
import { searchPatients } from './patient.capita-list.repository.js';
import { countMatchesNotActive } from './patient.list.repository.js';
import { findPatientWithOpenCycle } from './patient.repository.js';
import { findReferralMeasures } from './referral.repository.js';
import { edad, imc } from './patient.rules.js';
import { patientFormValues, type ListQuery } from './patient.schema.js';
import { PatientRecord, patientTitle } from './views/detail.page.js';
import { PatientListContent } from './views/list.page.js';

/** GET /patients/: the active patients, searched, filtered by month, one page. */
export const patientListPage = declarePage<{ filters: ListQuery; today: string }>({
  name: 'patients.list',
  tables: ['patients', 'ingresos'],
  maxBytes: LIST_PAGE_BYTES,
  async render(db, { filters, today }) {
    const result = await searchPatients(db, { query: filters.query, mesFiltro: filters.mesFiltro, onlyActive: true, page: filters.page, today });
    const notActive = await countMatchesNotActive(db, { query: filters.query, found: result, mesFiltro: filters.mesFiltro });
    return { node: <PatientListContent filters={filters} result={result} notActive={notActive} />, title: 'Pacientes', meta: null };
  },
});

/**
 * The patient's record: data, current Ingreso and the edit form, with the stored values (kept after a GET) or
 * with a posted form's values and errors (rendered for that answer only).
 */
export const patientRecordPage = declarePage<{ patientId: number; today: string; form: { values: FormValues; errors: FieldErrors; documentoHolder?: { id: number; name: string } | null } | null }>({
  name: 'patients.record',
  patient: ({ patientId }) => patientId,
  // exam_records: the referral sheet's latest results (printing the record gives it); contacto_consentimientos: the
  // contact consents by channel (issue 28), the patient's own rows.
  tables: ['patients', 'ingresos', 'exam_records', 'contacto_consentimientos'],
  maxBytes: RECORD_PAGE_BYTES,
  async render(db, { patientId, today, form }) {
    const found = await findPatientWithOpenCycle(db, patientId);
    if (!found) return null;
    const { patient, ingreso, openCycle } = found;
    const measures = await findReferralMeasures(db, patient.id);
    const consents = await listConsents(db, patient.id);
    const detail = {
      consents,
      openCycle,
      measures,
      patient,
      today,
      edad: edad(patient.fecha_nacimiento, today),
      imc: imc(patient.peso, patient.altura),
      ingreso,
      mesCapita: ingreso ? mesCapita(ingreso.fecha_inicio, today) : null,
    };
    const values = form?.values ?? patientFormValues(patient, ingreso?.fecha_inicio ?? null);
    return { node: <PatientRecord detail={detail} values={values} errors={form?.errors ?? {}} documentoHolder={form?.documentoHolder ?? null} />, title: patientTitle(patient), meta: null };
  },
});
