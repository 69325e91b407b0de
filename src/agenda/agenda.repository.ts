// The agenda's SQL for its catalogues, plans, a cycle's visits and booking (issue 28). The database or the transaction comes first.
import { sql, type Expression } from 'kysely';
import { isPostgres, type Executor, type Trx } from '../db/database.js';
import { insertRowReturningId, insertRow, precompiled } from '../platform/writes/prepared.js';
import type { PlanLine, PlannedVisit } from './agenda.rules.js';
import type { CitaEstado, CitaRow } from './agenda.table.js';

// ---------------------------------------------------------------------------------------------------------
// Catalogues

export const listTipos = (db: Executor) => db.selectFrom('agenda_tipos').selectAll().orderBy('orden').execute();
export const findTipo = (db: Executor, codigo: string) => db.selectFrom('agenda_tipos').selectAll().where('codigo', '=', codigo).executeTakeFirst();
// The catalogues every agenda page offers, compiled once (decision 0205).
export const listRecursos = precompiled((db: Executor) => db.selectFrom('agenda_recursos').selectAll().where('activo', '=', 1).orderBy('nombre'));
export const findRecurso = (db: Executor, id: number) =>
  db.selectFrom('agenda_recursos').selectAll().where('id', '=', id).where('activo', '=', 1).executeTakeFirst();
/** The professionals a visit may be booked with: the active users. */
export const listProfesionales = precompiled((db: Executor) =>
  db.selectFrom('users').select(['id', 'username']).where('is_active', '=', 1).orderBy('username_key'),
);
export const findProfesional = (db: Executor, id: number) =>
  db.selectFrom('users').select(['id', 'username']).where('id', '=', id).where('is_active', '=', 1).executeTakeFirst();
export const findAjustes = (db: Executor) => db.selectFrom('agenda_ajustes').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();

// ---------------------------------------------------------------------------------------------------------
// Plans

/**
 * The lines of the plan a cycle of the patient starting `fechaInicio` follows: its program's edition in force then,
 * the latest valid from that day or before (none for an unknown patient, or when no edition was in force). One
 * statement, compiled once: every creation of a patient runs it.
 */
export const findPlanLinesOfPatient: (db: Executor, pacienteId: number, fechaInicio: string) => Promise<PlanLine[]> = precompiled(
  (db: Executor, pacienteId: number, fechaInicio: string) => {
    const programa = db.selectFrom('patients').select('programa').where('id', '=', pacienteId).$asScalar();
    const edition = db
      .selectFrom('agenda_planes')
      .select('id')
      .where('programa', '=', programa as Expression<'PROGRAMA AOS'>)
      .where('vigente_desde', '<=', fechaInicio)
      .orderBy('vigente_desde', 'desc')
      .limit(1)
      .$asScalar();
    return db.selectFrom('agenda_plan_visitas').select(['id', 'tipo', 'dia', 'repeticiones', 'intervalo_dias']).where('plan_id', '=', edition).orderBy('id');
  },
);

/** Publishes a plan edition (its lines), in force from `vigente_desde`. */
export async function insertPlanEdition(
  trx: Trx,
  input: { programa: 'PROGRAMA AOS' | 'PROGRAMA INSOMNIO'; vigenteDesde: string; lines: Omit<PlanLine, 'id'>[]; now: string; userId: number | null },
): Promise<number> {
  const id = await insertRowReturningId(trx, 'agenda_planes', { programa: input.programa, vigente_desde: input.vigenteDesde, created_at: input.now, created_by: input.userId });
  if (input.lines.length > 0) await trx.insertInto('agenda_plan_visitas').values(input.lines.map((l) => ({ ...l, plan_id: id }))).execute();
  return id;
}

export const findProgramaOf = async (db: Executor, pacienteId: number): Promise<string | null> =>
  (await db.selectFrom('patients').select('programa').where('id', '=', pacienteId).executeTakeFirst())?.programa ?? null;

// ---------------------------------------------------------------------------------------------------------
// Visits of a cycle

/** Inserts the cycle's due visits and their first history rows. */
export async function insertPlannedVisits(
  trx: Trx,
  input: { pacienteId: number; ingresoId: number; visits: readonly PlannedVisit[]; now: string; userId: number | null },
): Promise<void> {
  if (input.visits.length === 0) return;
  await trx
    .insertInto('citas')
    .values(
      input.visits.map((v) => ({
        paciente_id: input.pacienteId,
        ingreso_id: input.ingresoId,
        tipo: v.tipo,
        estado: 'PENDIENTE' as const,
        plan_visita_id: v.plan_visita_id,
        vence_el: v.vence_el,
        created_at: input.now,
        updated_at: input.now,
      })),
    )
    .execute();
  await sql`insert into cita_historial (cita_id, at, user_id, desde, hacia, detalle)
    select id, ${input.now}, ${input.userId}, null, estado, null from citas where ingreso_id = ${input.ingresoId} and estado = 'PENDIENTE'`.execute(trx);
}

/**
 * Moves the cycle's visits in the estados `from` to `to`, keeping the change in each visit's history. A paused
 * visit that comes back is due again: its booking is let go (its slot may be someone else's by then).
 */
export async function moveCycleVisits(
  trx: Trx,
  input: { ingresoId: number; from: readonly CitaEstado[]; to: CitaEstado; motivo: string; now: string; userId: number | null },
): Promise<number> {
  const detalle = JSON.stringify({ motivo: input.motivo });
  await trx
    .insertInto('cita_historial')
    .columns(['cita_id', 'at', 'user_id', 'desde', 'hacia', 'detalle'])
    .expression((eb) =>
      eb
        .selectFrom('citas')
        .select((s) => [
          'id',
          s.val(input.now).as('at'),
          s.val(input.userId).as('user_id'),
          'estado',
          s.val(input.to).as('hacia'),
          s.val(detalle).as('detalle'),
        ])
        .where('ingreso_id', '=', input.ingresoId)
        .where('estado', 'in', input.from),
    )
    .execute();
  const release = input.to === 'PENDIENTE' || input.to === 'PAUSADA';
  const result = await trx
    .updateTable('citas')
    .set({
      estado: input.to,
      updated_at: input.now,
      ...(input.to === 'CANCELADA' ? { motivo: input.motivo } : {}),
      ...(release ? { fecha: null, hora: null, duracion_min: null, inicio_min: null, fin_min: null, profesional_id: null, recurso_id: null } : {}),
    })
    .where('ingreso_id', '=', input.ingresoId)
    .where('estado', 'in', input.from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

// ---------------------------------------------------------------------------------------------------------
// Booking

/** The patient a booking is for: names, and the latest cycle (open if any) with its estado. */
export async function findBookingPatient(db: Executor, pacienteId: number) {
  const patient = await db.selectFrom('patients').select(['id', 'nombre', 'apellido', 'programa']).where('id', '=', pacienteId).executeTakeFirst();
  if (!patient) return null;
  const cycle = await db
    .selectFrom('ingresos')
    .select(['id', 'estado', 'fecha_inicio'])
    .where('paciente_id', '=', pacienteId)
    .orderBy(sql`case when estado = 'TERMINADO' then 1 else 0 end`)
    .orderBy('fecha_inicio', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return { ...patient, cycle: cycle ?? null };
}

/**
 * The earliest due visit of that kind in the cycle: a booking fills it rather than adding one. Read from the cycle's
 * visits (citas_ingreso_idx, a few dozen) and sorted. On SQLite the order is written `+vence_el`: SQLite (no
 * statistics) otherwise took an index of the due dates for its order (citas_estado_vence_idx then, dropped by
 * migration 0570) and walked every due visit of the clinic (181,000 at 100,000 patients, ~330 ms) until one of the
 * cycle's, every booking (decision 0295). PostgreSQL plans it from its statistics, and has no unary plus for text.
 */
export const findDueVisit = (db: Executor, ingresoId: number, tipo: string) =>
  db
    .selectFrom('citas')
    .select(['id'])
    .where('ingreso_id', '=', ingresoId)
    .where('tipo', '=', tipo)
    .where('estado', '=', 'PENDIENTE')
    .orderBy(isPostgres(db) ? sql.ref('vence_el') : sql`+vence_el`)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();

export const findCita = (db: Executor, id: number): Promise<CitaRow | undefined> => db.selectFrom('citas').selectAll().where('id', '=', id).executeTakeFirst();

export interface Booking {
  fecha: string;
  hora: string;
  duracion_min: number;
  inicio_min: number;
  fin_min: number;
  profesional_id: number;
  recurso_id: number | null;
}

export async function insertBookedVisit(
  trx: Trx,
  input: { pacienteId: number; ingresoId: number; tipo: string; booking: Booking; now: string },
): Promise<number> {
  return insertRowReturningId(trx, 'citas', {
    paciente_id: input.pacienteId,
    ingreso_id: input.ingresoId,
    tipo: input.tipo,
    estado: 'AGENDADA',
    plan_visita_id: null,
    vence_el: null,
    ...input.booking,
    exam_record_id: null,
    motivo: null,
    recordado_at: null,
    recordado_por: null,
    created_at: input.now,
    updated_at: input.now,
  });
}

/** Changes a visit only if it is still in `from` (a concurrent change makes it a no-op: false). */
export async function updateVisit(
  trx: Trx,
  input: { id: number; from: CitaEstado; set: Partial<Omit<CitaRow, 'id' | 'paciente_id' | 'ingreso_id' | 'created_at'>>; now: string },
): Promise<boolean> {
  const result = await trx
    .updateTable('citas')
    .set({ ...input.set, updated_at: input.now })
    .where('id', '=', input.id)
    .where('estado', '=', input.from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const insertVisitHistory = (
  trx: Trx,
  row: { cita_id: number; at: string; user_id: number | null; desde: CitaEstado | null; hacia: CitaEstado; detalle: Record<string, unknown> | null },
) => insertRow(trx, 'cita_historial', { ...row, detalle: row.detalle === null ? null : JSON.stringify(row.detalle) });

export const listVisitHistory = (db: Executor, citaId: number) =>
  db.selectFrom('cita_historial').selectAll().where('cita_id', '=', citaId).orderBy('id').execute();

/** An exam record of the cycle, not voided (what an attended visit links to). */
export const findCycleExam = (db: Executor, ingresoId: number, examId: number) =>
  db
    .selectFrom('exam_records')
    .select(['id', 'fecha', 'kind'])
    .where('id', '=', examId)
    .where('ingreso_id', '=', ingresoId)
    .where('anulado_at', 'is', null)
    .executeTakeFirst();

/** The exam records of the cycle on a day, for the attended form to offer. */
export const listCycleExamsOn = (db: Executor, ingresoId: number, fecha: string) =>
  db
    .selectFrom('exam_records')
    .select(['id', 'fecha', 'kind', 'tipo', 'tipo_sesion', 'nombre_examen'])
    .where('ingreso_id', '=', ingresoId)
    .where('fecha', '=', fecha)
    .where('anulado_at', 'is', null)
    .orderBy('id')
    .execute();

/** Which guard refused an overlapping booking: the professional's or the resource's; null for any other error. */
export function overlapRefused(err: unknown): 'profesional' | 'recurso' | null {
  const e = err as { code?: unknown; message?: unknown; constraint?: unknown } | null;
  if (e?.code === '23P01') return e.constraint === 'citas_sin_solape_recurso' ? 'recurso' : 'profesional';
  if (e?.code === 'SQLITE_CONSTRAINT_TRIGGER' && typeof e.message === 'string') {
    const m = /cita_solapada: (profesional|recurso)/.exec(e.message);
    if (m) return m[1] as 'profesional' | 'recurso';
  }
  return null;
}
