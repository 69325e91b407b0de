// The reads behind the FHIR export: one patient's record, or every patient's in keyset batches (bulk export).

import { sql, type Compilable, type RawBuilder } from 'kysely';
import { isPostgres, type Executor } from '../db/database.js';
import { precompiled } from '../platform/writes/prepared.js';
import { groupBy } from '../shared/collections.js';
import { EXAM_EXPORT_COLUMNS, type HistoryRow, type PatientRecordData } from './fhir.rules.js';

/** Which patients a read takes, as a condition on a column holding a patient's id. */
type PatientsIn = (column: string) => RawBuilder<boolean>;
// One patient by equality, not as a range of one: PostgreSQL keeps one plan for a named statement only when it costs
// no more than a plan for the values at hand, and a range of unknown width never does (decision 0380).
const onePatient = (id: number): PatientsIn => (column) => sql<boolean>`${sql.ref(column)} = ${id}`;
const patientRange = (fromId: number, toId: number): PatientsIn => (column) => sql<boolean>`${sql.ref(column)} between ${fromId} and ${toId}`;

// The five reads of a patient's record.
const READS = {
  patients: (db: Executor, patients: PatientsIn) => db.selectFrom('patients').selectAll().where(patients('id')).orderBy('id'),
  ingresos: (db: Executor, patients: PatientsIn) => db.selectFrom('ingresos').selectAll().where(patients('paciente_id')).orderBy('id'),
  history: (db: Executor, patients: PatientsIn) =>
    db
      .selectFrom('ingreso_historial as h')
      .innerJoin('ingresos as i', 'i.id', 'h.ingreso_id')
      .select(['h.id', 'h.ingreso_id', 'h.hacia', 'h.fecha', 'h.at'])
      .where(patients('i.paciente_id'))
      .orderBy('h.ingreso_id')
      .orderBy('h.id'),
  exams: (db: Executor, patients: PatientsIn) =>
    db
      .selectFrom('exam_records as e')
      .innerJoin('ingresos as i', 'i.id', 'e.ingreso_id')
      .select([...EXAM_EXPORT_COLUMNS.map((c) => `e.${c}` as const), 'i.paciente_id'])
      .where(patients('i.paciente_id'))
      .where('e.anulado_at', 'is', null)
      .orderBy('e.id'),
  appointments: (db: Executor, patients: PatientsIn) =>
    db
      .selectFrom('citas as c')
      .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
      .select(['c.id', 'c.paciente_id', 'c.ingreso_id', 'c.tipo', 't.nombre as tipo_nombre', 'c.estado', 'c.vence_el', 'c.fecha', 'c.hora', 'c.duracion_min', 'c.motivo', 'c.created_at'])
      .where(patients('c.paciente_id'))
      .orderBy('c.id'),
};
/** The order of each read's rows, by columns it selects (PostgreSQL's json_agg does not promise its subquery's order). */
const ORDER: { [K in keyof typeof READS]: readonly string[] } = { patients: ['id'], ingresos: ['id'], history: ['ingreso_id', 'id'], exams: ['id'], appointments: ['id'] };
type RowsOf<Read> = Read extends (...args: never[]) => Compilable<infer Row> ? Row[] : never;
/** The rows of the records read, as each read returns them. */
export type RecordRows = { [K in keyof typeof READS]: RowsOf<(typeof READS)[K]> };

/**
 * The five reads for the patients `which` picks, each compiled once (`precompiled`): run one after the other
 * (SQLite, in process), or as one statement (PostgreSQL, decision 0380: one round trip instead of five, and one
 * snapshot, so a record is never read half-changed).
 */
function recordReads<Args extends readonly unknown[]>(which: (...args: Args) => PatientsIn) {
  const each = {
    patients: precompiled((db: Executor, ...args: Args) => READS.patients(db, which(...args))),
    ingresos: precompiled((db: Executor, ...args: Args) => READS.ingresos(db, which(...args))),
    history: precompiled((db: Executor, ...args: Args) => READS.history(db, which(...args))),
    exams: precompiled((db: Executor, ...args: Args) => READS.exams(db, which(...args))),
    appointments: precompiled((db: Executor, ...args: Args) => READS.appointments(db, which(...args))),
  };
  // Each read as a JSON array of its rows, the five in one row. Their columns are text and integers only, whose JSON
  // values are what the driver gives; a column of another kind (a timestamp, a numeric) would not be, and the test
  // that compares this with the reads table by table would fail.
  const together = precompiled((db: Executor, ...args: Args) =>
    db.selectNoFrom(
      (Object.keys(READS) as (keyof typeof READS)[]).map((name) => {
        const order = sql.join(ORDER[name].map((c) => sql.ref(`r.${c}`)));
        return sql<unknown>`(select coalesce(json_agg(r order by ${order}), '[]') from (${READS[name](db, which(...args))}) as r)`.as(name);
      }),
    ),
  );
  const tableByTable = async (db: Executor, ...args: Args): Promise<RecordRows> => {
    const patients = await each.patients(db, ...args);
    // No such patient (an unknown id, an empty range): nothing else to read.
    if (patients.length === 0) return { patients, ingresos: [], history: [], exams: [], appointments: [] };
    return {
      patients,
      ingresos: await each.ingresos(db, ...args),
      history: await each.history(db, ...args),
      exams: await each.exams(db, ...args),
      appointments: await each.appointments(db, ...args),
    };
  };
  const read = async (db: Executor, ...args: Args): Promise<RecordRows> =>
    isPostgres(db) ? ((await together(db, ...args))[0] as unknown as RecordRows) : tableByTable(db, ...args);
  return { read, tableByTable };
}

/** A patient's record, and a range of patients' records (the bulk export): `read`, and `tableByTable` for its test. */
export const RECORD_READS = { ofPatient: recordReads(onePatient), ofRange: recordReads(patientRange) };

function recordsOf({ patients, ingresos, history, exams, appointments }: RecordRows): PatientRecordData[] {
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

/**
 * The records of the patients whose id is in [fromId, toId], ascending, each with its Ingresos, their history and
 * unvoided exams. On PostgreSQL one statement, so one snapshot; on SQLite five reads (the bulk export runs them in a
 * read transaction).
 */
export async function loadPatientRecords(db: Executor, { fromId, toId }: { fromId: number; toId: number }): Promise<PatientRecordData[]> {
  return recordsOf(await RECORD_READS.ofRange.read(db, fromId, toId));
}

/** One patient's record, or null when the patient does not exist. */
export async function loadPatientRecord(db: Executor, patientId: number): Promise<PatientRecordData | null> {
  return recordsOf(await RECORD_READS.ofPatient.read(db, patientId))[0] ?? null;
}

/** The id range of the next `limit` patients after `afterId` (keyset pagination for the bulk export), or null at the end. */
export async function nextPatientRange(db: Executor, afterId: number, limit: number): Promise<{ fromId: number; toId: number } | null> {
  const rows = await db.selectFrom('patients').select('id').where('id', '>', afterId).orderBy('id').limit(limit).execute();
  if (rows.length === 0) return null;
  return { fromId: Number(rows[0]!.id), toId: Number(rows[rows.length - 1]!.id) };
}
