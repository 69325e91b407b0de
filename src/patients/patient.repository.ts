// One patient's reads: by id, and with their ACTIVO Ingreso or open cycle for the record page and the clinical view.
// The writes are in patient.writes.repository.ts; the lists' search in patient.search.repository.ts,
// patient.list.repository.ts and patient.capita-list.repository.ts; the checks against other people in
// identity.repository.ts.

import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { cycleNumberOf } from '../ingresos/cycle-number.js';
import type { IngresoRow } from '../ingresos/ingreso.table.js';
import type { ReferralCycle } from './referral.repository.js';
import type { PatientRow } from './patient.table.js';

export async function findPatientById(db: Executor, id: number): Promise<PatientRow | undefined> {
  return db.selectFrom('patients').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The columns of an Ingreso, read beside its patient's (findPatientWithActiveIngreso). */
const INGRESO_COLUMNS = ['id', 'paciente_id', 'fecha_inicio', 'fecha_fin', 'estado', 'motivo', 'created_at', 'updated_at'] as const satisfies readonly (keyof IngresoRow)[];
const INGRESO_SELECT = sql.raw(INGRESO_COLUMNS.map((c) => `i.${c} as ingreso__${c}`).join(', '));

/**
 * The patient and their ACTIVO Ingreso (null when none) in one statement: the record page and the clinical view
 * read both first, and one round trip fewer is what an uncached page of one patient saves most on PostgreSQL
 * (issue 30, decision 0123).
 */
export async function findPatientWithActiveIngreso(db: Executor, id: number): Promise<{ patient: PatientRow; ingreso: IngresoRow | null } | undefined> {
  // Raw SQL: the builder's tree for a join with eight aliased columns costs more to build and compile than the
  // second statement it saves. 'ACTIVO' written in the statement: bound as a parameter, SQLite takes 64 µs instead
  // of 22 for this read at 100,000 patients (the two reads apart: 34).
  const { rows } = await sql<Record<string, unknown>>`select p.*, ${INGRESO_SELECT} from patients as p
    left join ingresos as i on i.paciente_id = p.id and i.estado = 'ACTIVO' where p.id = ${id}`.execute(db);
  const row = rows[0];
  if (row === undefined) return undefined;
  const ingreso: Record<string, unknown> = {};
  for (const c of INGRESO_COLUMNS) {
    ingreso[c] = row[`ingreso__${c}`];
    delete row[`ingreso__${c}`];
  }
  return { patient: row as PatientRow, ingreso: ingreso.id === null || ingreso.id === undefined ? null : (ingreso as IngresoRow) };
}

/**
 * The record page's first read: the patient, their ACTIVO Ingreso and their open cycle (ACTIVO or SUSPENDIDO, one at
 * most: ingresos_one_open_per_patient) with its number, in one statement (the open cycle was a statement of its own,
 * decision 0232). The open row is the ACTIVO Ingreso when it is ACTIVO.
 */
export async function findPatientWithOpenCycle(
  db: Executor,
  id: number,
): Promise<{ patient: PatientRow; ingreso: IngresoRow | null; openCycle: ReferralCycle | null } | undefined> {
  const { rows } = await sql<Record<string, unknown>>`select p.*, ${INGRESO_SELECT}, ${cycleNumberOf('i')} as ingreso__numero from patients as p
    left join ingresos as i on i.paciente_id = p.id and i.estado in ('ACTIVO', 'SUSPENDIDO') where p.id = ${id}`.execute(db);
  const row = rows[0];
  if (row === undefined) return undefined;
  const numero = row.ingreso__numero;
  delete row.ingreso__numero;
  const open: Record<string, unknown> = {};
  for (const c of INGRESO_COLUMNS) {
    open[c] = row[`ingreso__${c}`];
    delete row[`ingreso__${c}`];
  }
  if (open.id === null || open.id === undefined) return { patient: row as PatientRow, ingreso: null, openCycle: null };
  const cycle = open as IngresoRow;
  return {
    patient: row as PatientRow,
    ingreso: cycle.estado === 'ACTIVO' ? cycle : null,
    openCycle: { numero: Number(numero), estado: cycle.estado, fecha_inicio: cycle.fecha_inicio },
  };
}
