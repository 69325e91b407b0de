import type { Executor, Trx } from '../db/database.js';
import { insertRowReturningId, precompiled } from '../platform/writes/prepared.js';
import type { IngresoRow } from '../ingresos/ingreso.table.js';
import { cycleNumberOf } from '../ingresos/cycle-number.js';
import type { ExamRecordRow, NewExamRecordRow } from './exam.table.js';

/** An exam record with the user names of who registered it and, if voided, who voided it. */
export interface ExamRecordView extends ExamRecordRow {
  registrado_por_username: string;
  anulado_por_username: string | null;
}

/**
 * The patient's ACTIVO Ingreso, read inside the caller's transaction. On PostgreSQL the row is locked FOR SHARE
 * until the transaction ends: a concurrent status change waits for it (or, if it committed first, this read
 * sees the new estado and finds nothing), so a record is never left on a cycle that is no longer ACTIVO. On
 * SQLite the write transaction is serialised by the engine itself.
 */
export async function lockActiveIngreso(trx: Trx, pacienteId: number, engine: 'sqlite' | 'postgres'): Promise<IngresoRow | undefined> {
  return trx
    .selectFrom('ingresos')
    .selectAll()
    .where('paciente_id', '=', pacienteId)
    .where('estado', '=', 'ACTIVO')
    .$if(engine === 'postgres', (qb) => qb.forShare())
    .executeTakeFirst();
}

/** Adds a record (the insert trigger also refuses any Ingreso that is not ACTIVO). */
export async function insertExamRecord(trx: Trx, row: NewExamRecordRow): Promise<number> {
  return insertRowReturningId(trx, 'exam_records', row);
}

/** One cycle's records, newest first (descending id); voided ones only when asked (the archive view). */
export async function listCycleRecords(
  db: Executor,
  ingresoId: number,
  options: { includeVoided: boolean },
): Promise<ExamRecordView[]> {
  return (options.includeVoided ? selectCycleRecords.all : selectCycleRecords.standing)(db, ingresoId);
}

// The clinical view's reads, compiled once (issue 30: it reads them on every render).
const cycleRecords = (db: Executor, ingresoId: number) =>
  db
    .selectFrom('exam_records as e')
    .innerJoin('users as r', 'r.id', 'e.registrado_por')
    .leftJoin('users as a', 'a.id', 'e.anulado_por')
    .selectAll('e')
    .select(['r.username as registrado_por_username', 'a.username as anulado_por_username'])
    .where('e.ingreso_id', '=', ingresoId)
    .orderBy('e.id', 'desc');
const selectCycleRecords = {
  all: precompiled(cycleRecords),
  standing: precompiled((db: Executor, ingresoId: number) => cycleRecords(db, ingresoId).where('e.anulado_at', 'is', null)),
};

export interface CycleSummary {
  id: number;
  fecha_inicio: string;
  fecha_fin: string | null;
  estado: string;
  motivo: string | null;
  registros: number;
  /** its cycle number among the patient's (1, 2, 3 by start) */
  numero: number;
}

/** All of the patient's Ingresos, latest start first, each with its cycle number and its number of records (voided included). */
export async function listPatientCycles(db: Executor, pacienteId: number): Promise<CycleSummary[]> {
  return selectPatientCycles(db, pacienteId) as Promise<CycleSummary[]>;
}

const selectPatientCycles = precompiled((db: Executor, pacienteId: number) =>
  db
    .selectFrom('ingresos as i')
    .select((eb) => [
      'i.id',
      'i.fecha_inicio',
      'i.fecha_fin',
      'i.estado',
      'i.motivo',
      eb
        .selectFrom('exam_records as e')
        .select(eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
        .whereRef('e.ingreso_id', '=', 'i.id')
        .as('registros'),
      cycleNumberOf('i').as('numero'),
    ])
    .where('i.paciente_id', '=', pacienteId)
    .orderBy('i.fecha_inicio', 'desc')
    .orderBy('i.id', 'desc'),
);

/** One Ingreso with its cycle number, only if it is the patient's. */
export async function findIngresoOfPatient(db: Executor, pacienteId: number, ingresoId: number): Promise<(IngresoRow & { numero: number }) | undefined> {
  return db
    .selectFrom('ingresos')
    .selectAll()
    .select(cycleNumberOf('ingresos').as('numero'))
    .where('id', '=', ingresoId)
    .where('paciente_id', '=', pacienteId)
    .executeTakeFirst();
}

/** A record with its Ingreso's estado, only if it belongs to one of the patient's Ingresos. */
export async function findRecordOfPatient(db: Executor, pacienteId: number, recordId: number) {
  return db
    .selectFrom('exam_records as e')
    .innerJoin('ingresos as i', 'i.id', 'e.ingreso_id')
    .select(['e.id', 'e.kind', 'e.ingreso_id', 'e.anulado_at', 'i.estado'])
    .where('e.id', '=', recordId)
    .where('i.paciente_id', '=', pacienteId)
    .executeTakeFirst();
}

/** Voids a record once; false when it was already voided (e.g. by a concurrent request). */
export async function voidExamRecord(
  trx: Trx,
  input: { id: number; by: number; at: string; motivo: string },
): Promise<boolean> {
  const result = await trx
    .updateTable('exam_records')
    .set({ anulado_at: input.at, anulado_por: input.by, motivo_anulacion: input.motivo })
    .where('id', '=', input.id)
    .where('anulado_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
