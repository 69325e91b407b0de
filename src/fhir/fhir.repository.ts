// The reads behind the FHIR export: one patient's record, or every patient's in keyset batches (bulk export).

import type { Executor } from '../db/database.js';
import { precompiled } from '../platform/writes/prepared.js';
import { groupBy } from '../shared/collections.js';
import { EXAM_EXPORT_COLUMNS, type HistoryRow, type PatientRecordData } from './fhir.rules.js';

// The five reads of a range of patients, each compiled once (precompiled): a patient's export runs them all.
const patientsIn = precompiled((db: Executor, fromId: number, toId: number) =>
  db.selectFrom('patients').selectAll().where('id', '>=', fromId).where('id', '<=', toId).orderBy('id'),
);
const ingresosIn = precompiled((db: Executor, fromId: number, toId: number) =>
  db.selectFrom('ingresos').selectAll().where('paciente_id', '>=', fromId).where('paciente_id', '<=', toId).orderBy('id'),
);
const historyIn = precompiled((db: Executor, fromId: number, toId: number) =>
  db
    .selectFrom('ingreso_historial as h')
    .innerJoin('ingresos as i', 'i.id', 'h.ingreso_id')
    .select(['h.ingreso_id', 'h.hacia', 'h.fecha', 'h.at'])
    .where('i.paciente_id', '>=', fromId)
    .where('i.paciente_id', '<=', toId)
    .orderBy('h.ingreso_id')
    .orderBy('h.id'),
);
const examsIn = precompiled((db: Executor, fromId: number, toId: number) =>
  db
    .selectFrom('exam_records as e')
    .innerJoin('ingresos as i', 'i.id', 'e.ingreso_id')
    .select([...EXAM_EXPORT_COLUMNS.map((c) => `e.${c}` as const), 'i.paciente_id'])
    .where('i.paciente_id', '>=', fromId)
    .where('i.paciente_id', '<=', toId)
    .where('e.anulado_at', 'is', null)
    .orderBy('e.id'),
);
const appointmentsIn = precompiled((db: Executor, fromId: number, toId: number) =>
  db
    .selectFrom('citas as c')
    .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
    .select(['c.id', 'c.paciente_id', 'c.ingreso_id', 'c.tipo', 't.nombre as tipo_nombre', 'c.estado', 'c.vence_el', 'c.fecha', 'c.hora', 'c.duracion_min', 'c.motivo', 'c.created_at'])
    .where('c.paciente_id', '>=', fromId)
    .where('c.paciente_id', '<=', toId)
    .orderBy('c.id'),
);

/** The records of the patients whose id is in [fromId, toId], ascending, each with its Ingresos, their history and unvoided exams. */
export async function loadPatientRecords(db: Executor, { fromId, toId }: { fromId: number; toId: number }): Promise<PatientRecordData[]> {
  const patients = await patientsIn(db, fromId, toId);
  if (patients.length === 0) return [];
  const ingresos = await ingresosIn(db, fromId, toId);
  const history = await historyIn(db, fromId, toId);
  const exams = await examsIn(db, fromId, toId);
  const appointments = await appointmentsIn(db, fromId, toId);
  const appointmentsByPatient = groupBy(appointments, (c) => c.paciente_id);
  const ingresosByPatient = groupBy(ingresos, (i) => i.paciente_id);
  const historyByIngreso: Map<number, HistoryRow[]> = groupBy(history, (h) => h.ingreso_id);
  const examsByPatient = groupBy(exams, (e) => e.paciente_id);
  return patients.map((patient) => ({
    patient,
    ingresos: ingresosByPatient.get(patient.id) ?? [],
    history: historyByIngreso,
    exams: examsByPatient.get(patient.id) ?? [],
    appointments: appointmentsByPatient.get(patient.id) ?? [],
  }));
}

/** One patient's record, or null when the patient does not exist. */
export async function loadPatientRecord(db: Executor, patientId: number): Promise<PatientRecordData | null> {
  return (await loadPatientRecords(db, { fromId: patientId, toId: patientId }))[0] ?? null;
}

/** The id range of the next `limit` patients after `afterId` (keyset pagination for the bulk export), or null at the end. */
export async function nextPatientRange(db: Executor, afterId: number, limit: number): Promise<{ fromId: number; toId: number } | null> {
  const rows = await db.selectFrom('patients').select('id').where('id', '>', afterId).orderBy('id').limit(limit).execute();
  if (rows.length === 0) return null;
  return { fromId: Number(rows[0]!.id), toId: Number(rows[rows.length - 1]!.id) };
}
