import { sql } from 'kysely';
import type { Executor, Trx } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { insertRow, insertRowReturningId } from '../platform/writes/prepared.js';
import { conflict } from '../shared/domain-error.js';
import type { IngresoRow } from './ingreso.table.js';
import { OPEN_ESTADOS, type Estado } from './ingreso.rules.js';
import type { CycleDateBounds } from './cycle-dates.rules.js';
import { cycleNumberOf } from './cycle-number.js';

/** The patient already has an ACTIVO or SUSPENDIDO Ingreso (also raised when the database refuses a racing insert). */
/** The domain error raised when the patient already has an open cycle (the partial unique index refused it). */
export const CYCLE_ALREADY_OPEN = 'ingreso.cycle_already_open';

/**
 * Opens an ACTIVO Ingreso and writes its history row. Runs inside the caller's transaction; the partial unique
 * index `ingresos_one_open_per_patient` turns a concurrent second opening into the CYCLE_ALREADY_OPEN domain error.
 */
export async function openIngreso(
  trx: Trx,
  input: { pacienteId: number; fechaInicio: string; userId: number | null; now: string },
): Promise<number> {
  let id: number;
  try {
    id = await insertRowReturningId(trx, 'ingresos', {
      paciente_id: input.pacienteId,
      fecha_inicio: input.fechaInicio,
      fecha_fin: null,
      estado: 'ACTIVO',
      motivo: null,
      created_at: input.now,
      updated_at: input.now,
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(CYCLE_ALREADY_OPEN);
    throw err;
  }
  await insertRow(trx, 'ingreso_historial', { ingreso_id: id, at: input.now, user_id: input.userId, desde: null, hacia: 'ACTIVO', motivo: null, fecha: input.fechaInicio });
  return id;
}

/** The patient's open (ACTIVO or SUSPENDIDO) Ingreso, if any. */
export async function findOpenIngreso(db: Executor, pacienteId: number) {
  return db
    .selectFrom('ingresos')
    .selectAll()
    .where('paciente_id', '=', pacienteId)
    .where('estado', 'in', ['ACTIVO', 'SUSPENDIDO'])
    .executeTakeFirst();
}

/** The patient's ACTIVO Ingreso, if any (the spec's ingreso_activo). */
export async function findActiveIngreso(db: Executor, pacienteId: number) {
  return db
    .selectFrom('ingresos')
    .selectAll()
    .where('paciente_id', '=', pacienteId)
    .where('estado', '=', 'ACTIVO')
    .executeTakeFirst();
}

// ---------------------------------------------------------------------------------------------------------
// Lifecycle (decisions §6) and the follow page

/** An Ingreso with its patient's first name, for the status-change endpoint and its message. */
export async function findIngresoForChange(db: Executor, ingresoId: number) {
  return db
    .selectFrom('ingresos')
    .innerJoin('patients', 'patients.id', 'ingresos.paciente_id')
    .select([
      'ingresos.id',
      'ingresos.paciente_id',
      'ingresos.fecha_inicio',
      'ingresos.fecha_fin',
      'ingresos.estado',
      'ingresos.motivo',
      'patients.nombre',
      cycleNumberOf('ingresos').as('numero'),
    ])
    .where('ingresos.id', '=', ingresoId)
    .executeTakeFirst();
}

/**
 * Applies a status change decided by decideStatusChange, only if the Ingreso is still in `from` (a concurrent
 * change makes it a no-op), and writes the history row. Returns false when the row was no longer in `from`.
 */
export async function applyStatusChange(
  trx: Trx,
  input: {
    ingresoId: number;
    from: Estado;
    to: Estado;
    fechaFin: string | null;
    motivo: string | null;
    /** the date the change took effect (fecha_terminacion, or today) */
    fecha: string;
    userId: number | null;
    now: string;
  },
): Promise<boolean> {
  const result = await trx
    .updateTable('ingresos')
    .set({ estado: input.to, fecha_fin: input.fechaFin, motivo: input.motivo, updated_at: input.now })
    .where('id', '=', input.ingresoId)
    .where('estado', '=', input.from)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await insertRow(trx, 'ingreso_historial', {
    ingreso_id: input.ingresoId,
    at: input.now,
    user_id: input.userId,
    desde: input.from,
    hacia: input.to,
    motivo: input.motivo,
    fecha: input.fecha,
  });
  return true;
}

/**
 * What decideNewCycle needs about a patient: its first name, the estados of its open Ingresos and the latest
 * fecha_fin of its finished ones. Null for an unknown patient.
 */
export async function findCycleState(
  db: Executor,
  pacienteId: number,
): Promise<{ nombre: string; fechaNacimiento: string; openEstados: Estado[]; latestFechaFin: string | null } | null> {
  const patient = await db.selectFrom('patients').select(['nombre', 'fecha_nacimiento']).where('id', '=', pacienteId).executeTakeFirst();
  if (!patient) return null;
  const open = await db
    .selectFrom('ingresos')
    .select('estado')
    .where('paciente_id', '=', pacienteId)
    .where('estado', 'in', OPEN_ESTADOS)
    .execute();
  return {
    nombre: patient.nombre,
    fechaNacimiento: patient.fecha_nacimiento,
    openEstados: open.map((r) => r.estado),
    latestFechaFin: await findLatestFechaFin(db, pacienteId),
  };
}

/** The end of the patient's latest finished cycle, or null when none has finished. */
export async function findLatestFechaFin(db: Executor, pacienteId: number): Promise<string | null> {
  const last = await db
    .selectFrom('ingresos')
    .select((eb) => eb.fn.max('fecha_fin').as('latest'))
    .where('paciente_id', '=', pacienteId)
    .where('estado', '=', 'TERMINADO')
    .executeTakeFirst();
  return last?.latest ?? null;
}

/** The dates a cycle's later writes must keep (cycle-dates.rules.ts): its history's and its exams' bounds, one statement. */
export async function findCycleDateBounds(db: Executor, ingresoId: number): Promise<CycleDateBounds> {
  const { rows } = await sql<{ last_change: string | null; first_change: string | null; first_exam: string | null; last_exam: string | null }>`
    select (select max(h.fecha) from ingreso_historial h where h.ingreso_id = ${ingresoId}) as last_change,
      (select min(h.fecha) from ingreso_historial h where h.ingreso_id = ${ingresoId} and h.desde is not null) as first_change,
      (select min(e.fecha) from exam_records e where e.ingreso_id = ${ingresoId}) as first_exam,
      (select max(e.fecha) from exam_records e where e.ingreso_id = ${ingresoId}) as last_exam`.execute(db);
  const r = rows[0]!;
  return { lastChange: r.last_change ?? null, firstChange: r.first_change ?? null, firstExam: r.first_exam ?? null, lastExam: r.last_exam ?? null };
}

/** The earliest start among the patient's cycles, leaving out `exceptIngresoId` (the one whose start is being moved). */
export async function findEarliestCycleStart(db: Executor, pacienteId: number, exceptIngresoId: number | null): Promise<string | null> {
  const row = await db
    .selectFrom('ingresos')
    .select((eb) => eb.fn.min('fecha_inicio').as('earliest'))
    .where('paciente_id', '=', pacienteId)
    .$if(exceptIngresoId !== null, (qb) => qb.where('id', '<>', exceptIngresoId!))
    .executeTakeFirst();
  return row?.earliest ?? null;
}

/** Every Ingreso of the given patients with its cycle number, latest start first per patient: one query for a whole page. */
export async function listIngresosOfPatients(db: Executor, pacienteIds: readonly number[]): Promise<(IngresoRow & { numero: number })[]> {
  if (pacienteIds.length === 0) return [];
  return db
    .selectFrom('ingresos')
    .selectAll()
    .select(cycleNumberOf('ingresos').as('numero'))
    .where('paciente_id', 'in', pacienteIds)
    .orderBy('paciente_id')
    .orderBy('fecha_inicio', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export interface HistoryEntry {
  id: number;
  ingreso_id: number;
  at: string;
  username: string | null;
  desde: string | null;
  hacia: string;
  motivo: string | null;
  fecha: string | null;
}

/** The status history of the given Ingresos, oldest first, with who made each change: one query. */
export async function listHistoryOfIngresos(db: Executor, ingresoIds: readonly number[]): Promise<HistoryEntry[]> {
  if (ingresoIds.length === 0) return [];
  return db
    .selectFrom('ingreso_historial')
    .leftJoin('users', 'users.id', 'ingreso_historial.user_id')
    .select([
      'ingreso_historial.id',
      'ingreso_historial.ingreso_id',
      'ingreso_historial.at',
      'users.username',
      'ingreso_historial.desde',
      'ingreso_historial.hacia',
      'ingreso_historial.motivo',
      'ingreso_historial.fecha',
    ])
    .where('ingreso_historial.ingreso_id', 'in', ingresoIds)
    .orderBy('ingreso_historial.ingreso_id')
    .orderBy('ingreso_historial.id')
    .execute();
}
