// The records' field definitions, for the audit trail. Each feature defines its fields (the labels its forms
// show, how its stored values read); the features write to the trail, so the trail may not import them
// (test/import-graph.test.ts). The application composes them here, above the features, and gives them to the
// trail once when it is built (decision 0035).

import { auditFields, registerAuditFields } from '../audit/audit.format.js';
import { EXAM_FIELDS } from '../exams/exam.fields.js';
import { INGRESO_FIELDS } from '../ingresos/ingreso.fields.js';
import { PATIENT_FIELDS } from '../patients/patient.fields.js';
import type { FieldDefs } from '../shared/field-defs.js';

/** entity_type → its fields, with the names an entry of that type also writes (the cycle a patient starts with…). */
export const FIELDS_BY_ENTITY: Readonly<Record<string, FieldDefs>> = {
  patient: { ...PATIENT_FIELDS, fecha_inicio: INGRESO_FIELDS.fecha_inicio },
  ingreso: { ...INGRESO_FIELDS, ingreso_id: EXAM_FIELDS.ingreso_id },
  exam_record: { ...EXAM_FIELDS, estado: INGRESO_FIELDS.estado },
};

/** The definitions as the trail reads them (for tests that format entries without an application). */
export const AUDIT_FIELDS = auditFields(FIELDS_BY_ENTITY);

export const registerTheAuditFields = (): void => registerAuditFields(FIELDS_BY_ENTITY);
