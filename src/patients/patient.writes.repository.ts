// The patient record's writes: insert, update, and the move of the ACTIVO Ingreso's start that the record's form
// edits. A documento another patient holds is the DOCUMENTO_TAKEN domain error.

import type { Executor } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { insertRowReturningId } from '../platform/writes/prepared.js';
import { conflict } from '../shared/domain-error.js';
import type { NewPatientRow, PatientUpdate } from './patient.table.js';

/** Another patient already holds this documento; raised when the unique index refuses a race. */
export const DOCUMENTO_TAKEN = 'patient.documento_taken';

/** Inserts a patient (derived columns included by the caller); the DOCUMENTO_TAKEN domain error on a duplicate key. */
export async function insertPatient(db: Executor, row: NewPatientRow): Promise<number> {
  try {
    return await insertRowReturningId(db, 'patients', row);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(DOCUMENTO_TAKEN);
    throw err;
  }
}

/** Updates a patient; the DOCUMENTO_TAKEN domain error when the new documento_key belongs to someone else. */
export async function updatePatient(db: Executor, id: number, changes: PatientUpdate): Promise<void> {
  try {
    await db.updateTable('patients').set(changes).where('id', '=', id).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(DOCUMENTO_TAKEN);
    throw err;
  }
}

/** Moves the start date of the patient's ACTIVO Ingreso (and its opening history row); returns its id and previous date, or null when none. */
export async function setActiveIngresoFechaInicio(
  db: Executor,
  pacienteId: number,
  fechaInicio: string,
  now: string,
): Promise<{ id: number; before: string } | null> {
  const current = await db
    .selectFrom('ingresos')
    .select(['id', 'fecha_inicio'])
    .where('paciente_id', '=', pacienteId)
    .where('estado', '=', 'ACTIVO')
    .executeTakeFirst();
  if (!current) return null;
  if (current.fecha_inicio !== fechaInicio) {
    await db
      .updateTable('ingresos')
      .set({ fecha_inicio: fechaInicio, updated_at: now })
      .where('id', '=', current.id)
      .where('estado', '=', 'ACTIVO')
      .execute();
    // The opening row of its status history is dated by the start: it moves with it (decision 0063), so that the
    // history, the capitation's months and the FHIR statusHistory begin where the cycle does.
    await db.updateTable('ingreso_historial').set({ fecha: fechaInicio }).where('ingreso_id', '=', current.id).where('desde', 'is', null).execute();
  }
  return { id: current.id, before: current.fecha_inicio };
}
