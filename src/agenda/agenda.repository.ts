// Every SQL statement of the agenda (issue 28). The database or the transaction comes first.
import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { Database, Executor, Trx } from '../db/database.js';
import { insertRowReturningId, insertRow } from '../platform/writes/prepared.js';
import { addDays } from '../shared/dates.js';
import { ADHERENCE, startMinute, type PlanLine, type PlannedVisit } from './agenda.rules.js';
import type { CitaEstado, CitaRow } from './agenda.table.js';

// ---------------------------------------------------------------------------------------------------------
// Catalogues

export const listTipos = (db: Executor) => db.selectFrom('agenda_tipos').selectAll().orderBy('orden').execute();
export const findTipo = (db: Executor, codigo: string) => db.selectFrom('agenda_tipos').selectAll().where('codigo', '=', codigo).executeTakeFirst();
export const listRecursos = (db: Executor) => db.selectFrom('agenda_recursos').selectAll().where('activo', '=', 1).orderBy('nombre').execute();
export const findRecurso = (db: Executor, id: number) =>
  db.selectFrom('agenda_recursos').selectAll().where('id', '=', id).where('activo', '=', 1).executeTakeFirst();
/** The professionals a visit may be booked with: the active users. */
export const listProfesionales = (db: Executor) =>
  db.selectFrom('users').select(['id', 'username']).where('is_active', '=', 1).orderBy('username_key').execute();
export const findProfesional = (db: Executor, id: number) =>
  db.selectFrom('users').select(['id', 'username']).where('id', '=', id).where('is_active', '=', 1).executeTakeFirst();
export const findAjustes = (db: Executor) => db.selectFrom('agenda_ajustes').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();

// ---------------------------------------------------------------------------------------------------------
// Plans

/** The lines of the program's plan edition in force on `fechaInicio` (none when no edition was in force). */
export async function findPlanLines(db: Executor, programa: string, fechaInicio: string): Promise<PlanLine[]> {
  const plan = await db
    .selectFrom('agenda_planes')
    .select('id')
    .where('programa', '=', programa as 'PROGRAMA AOS')
    .where('vigente_desde', '<=', fechaInicio)
    .orderBy('vigente_desde', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!plan) return [];
  return db.selectFrom('agenda_plan_visitas').select(['id', 'tipo', 'dia', 'repeticiones', 'intervalo_dias']).where('plan_id', '=', plan.id).orderBy('id').execute();
}

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

/** The earliest due visit of that kind in the cycle: a booking fills it rather than adding one. */
export const findDueVisit = (db: Executor, ingresoId: number, tipo: string) =>
  db
    .selectFrom('citas')
    .select(['id'])
    .where('ingreso_id', '=', ingresoId)
    .where('tipo', '=', tipo)
    .where('estado', '=', 'PENDIENTE')
    .orderBy('vence_el')
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

// ---------------------------------------------------------------------------------------------------------
// The agenda's views

export interface AgendaFilters {
  desde: string;
  hasta: string;
  profesional: number | null;
  recurso: number | null;
}

/** The booked, attended and missed visits of the days from `desde` to `hasta`, by day and time. */
export async function listBookedVisits(db: Executor, f: AgendaFilters) {
  let q = db
    .selectFrom('citas as c')
    .innerJoin('patients as p', 'p.id', 'c.paciente_id')
    .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
    .leftJoin('users as u', 'u.id', 'c.profesional_id')
    .leftJoin('agenda_recursos as r', 'r.id', 'c.recurso_id')
    .select([
      'c.id',
      'c.paciente_id',
      'c.estado',
      'c.fecha',
      'c.hora',
      'c.duracion_min',
      'c.profesional_id',
      'c.recurso_id',
      'c.exam_record_id',
      'p.nombre',
      'p.apellido',
      'p.programa',
      't.nombre as tipo_nombre',
      'u.username as profesional',
      'r.nombre as recurso',
    ])
    .where('c.fecha', '>=', f.desde)
    .where('c.fecha', '<=', f.hasta)
    // The same days as minutes (a booked visit has both): with a professional or a resource, their index's range.
    .where('c.inicio_min', '>=', startMinute(f.desde, '00:00'))
    .where('c.inicio_min', '<', startMinute(addDays(f.hasta, 1), '00:00'))
    // Booked, attended or missed, said as "none of the others": an equality on estado would make SQLite (no
    // statistics) walk every booked visit of the clinic's history by estado instead of the days' range by date.
    .where('c.estado', 'not in', ['PENDIENTE', 'CANCELADA', 'PAUSADA']);
  if (f.profesional !== null) q = q.where('c.profesional_id', '=', f.profesional);
  if (f.recurso !== null) q = q.where('c.recurso_id', '=', f.recurso);
  return q.orderBy('c.fecha').orderBy('c.hora').orderBy('c.id').limit(1000).execute();
}
export type BookedVisit = Awaited<ReturnType<typeof listBookedVisits>>[number];

/** A visit with what its page shows: patient, kind, professional, resource. */
export const findVisitDetail = (db: Executor, id: number) =>
  db
    .selectFrom('citas as c')
    .innerJoin('patients as p', 'p.id', 'c.paciente_id')
    .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
    .leftJoin('users as u', 'u.id', 'c.profesional_id')
    .leftJoin('agenda_recursos as r', 'r.id', 'c.recurso_id')
    .selectAll('c')
    .select(['p.nombre', 'p.apellido', 't.nombre as tipo_nombre', 't.duracion_min as tipo_duracion', 'u.username as profesional', 'r.nombre as recurso'])
    .where('c.id', '=', id)
    .executeTakeFirst();

/** The visits of the patient's open (or latest) cycle, for the booking page. */
export const listCycleVisits = (db: Executor, ingresoId: number) =>
  db
    .selectFrom('citas as c')
    .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
    .select(['c.id', 'c.tipo', 'c.estado', 'c.vence_el', 'c.fecha', 'c.hora', 't.nombre as tipo_nombre'])
    .where('c.ingreso_id', '=', ingresoId)
    .orderBy(sql`coalesce(c.fecha, c.vence_el)`)
    .orderBy('c.id')
    .limit(200)
    .execute();

// ---------------------------------------------------------------------------------------------------------
// Worklists (filtered in SQL: program, insurer, professional who has seen or will see the patient in the cycle)

export type WorklistKind = 'semana' | 'vencidas' | 'inasistencias' | 'sin_proxima' | 'cpap';

export interface WorklistFilters {
  programa: string | null;
  entidad: string | null;
  profesional: number | null;
}

export interface WorklistRow {
  paciente_id: number;
  nombre: string;
  apellido: string;
  programa: string;
  entidad_salud: string;
  celular: string;
  ingreso_id: number;
  cita_id: number | null;
  tipo_nombre: string | null;
  /** The due date, the missed visit's date, the cycle's start or the last CPAP download, by list. */
  fecha: string | null;
  detalle: string | null;
}

export const WORKLIST_LIMIT = 200;

/**
 * The filters. The professional's cycles are read once a statement, a range of citas_profesional_ingreso_idx (17,000
 * visits of one professional at 100,000 patients): SQLite then checks each visit or cycle the list walks against
 * them in memory (a Bloom filter), where a probe per cycle (`exists`) cost 5 to 10 times more (decision 0147).
 * `cycle`: the list's cycle column (the visit's, for the lists of visits: checked before the cycle is read).
 */
function filtered<Q extends { where: (...a: any[]) => Q }>(q: Q, f: WorklistFilters, cycle: 'c.ingreso_id' | 'i.id' = 'i.id'): Q {
  let out = q;
  if (f.programa !== null) out = out.where('p.programa', '=', f.programa);
  if (f.entidad !== null) out = out.where('p.entidad_salud', '=', f.entidad);
  if (f.profesional !== null) {
    const prof = f.profesional;
    // `+`: a filter of the list's own walk (in its order, stopping at its 200th row), never the list's driver: led by
    // the professional's 13,000 cycles, SQLite read each and sorted them (30 ms instead of 3 for sin_proxima).
    out = out.where(sql<boolean>`+${sql.ref(cycle)} in (select cp.ingreso_id from citas cp where cp.profesional_id = ${prof})`);
  }
  return out;
}

/** One worklist's rows (at most WORKLIST_LIMIT), for the day `today`. */
export async function listWorklist(db: Executor, kind: WorklistKind, f: WorklistFilters, today: string, week: { desde: string; hasta: string }): Promise<WorklistRow[]> {
  const base = db
    .selectFrom('ingresos as i')
    .innerJoin('patients as p', 'p.id', 'i.paciente_id')
    .select(['p.id as paciente_id', 'p.nombre', 'p.apellido', 'p.programa', 'p.entidad_salud', 'p.celular', 'i.id as ingreso_id']);
  if (kind === 'semana' || kind === 'vencidas' || kind === 'inasistencias') {
    let q = base
      .innerJoin('citas as c', 'c.ingreso_id', 'i.id')
      .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
      .select(['c.id as cita_id', 't.nombre as tipo_nombre']);
    if (kind === 'semana') {
      // From today to Sunday: what fell due earlier this week is overdue (its own list).
      q = q.where('c.estado', '=', 'PENDIENTE').where('c.vence_el', '>=', today > week.desde ? today : week.desde).where('c.vence_el', '<=', week.hasta);
    } else if (kind === 'vencidas') {
      q = q.where('c.estado', '=', 'PENDIENTE').where('c.vence_el', '<', today);
    } else {
      q = q
        // Said as a constant, not a parameter: SQLite uses a partial index only for a condition it can read.
        .where(sql<boolean>`c.estado = 'NO_ASISTIO'`)
        .where('i.estado', '=', 'ACTIVO')
        // No open cycle started before the oldest one: the walk by date (citas_inasistencias_idx, which holds what
        // the next lines ask) skips the no-shows of older, closed cycles.
        .where('c.fecha', '>=', sql<string>`(select min(o.fecha_inicio) from ingresos o where o.estado = 'ACTIVO')`)
        // "On the no-show's day or later" as minutes (the start of its day; booked visits have both): said with the
        // date, SQLite (no statistics) would answer it by walking every later booked visit. One seek into
        // citas_reagendadas_idx, whose condition the estados below repeat word for word (a partial index).
        .where(sql<boolean>`not exists (select 1 from citas c2 where c2.ingreso_id = c.ingreso_id and c2.tipo = c.tipo and c2.id <> c.id
          and c2.estado in ('AGENDADA', 'ATENDIDA') and c2.inicio_min >= c.inicio_min - c.inicio_min % 1440)`);
    }
    const dateCol = kind === 'inasistencias' ? 'c.fecha' : 'c.vence_el';
    const rows = await filtered(q.select([sql<string | null>`${sql.ref(dateCol)}`.as('fecha'), sql<string | null>`null`.as('detalle')]), f, 'c.ingreso_id')
      .orderBy(sql.ref(dateCol))
      .orderBy('c.id')
      .limit(WORKLIST_LIMIT)
      .execute();
    return rows;
  }
  if (kind === 'sin_proxima') {
    return filtered(
      base
        .select([sql<number | null>`null`.as('cita_id'), sql<string | null>`null`.as('tipo_nombre'), 'i.fecha_inicio as fecha', sql<string | null>`null`.as('detalle')])
        .where('i.estado', '=', 'ACTIVO')
        .where(sql<boolean>`not exists (select 1 from citas c where c.ingreso_id = i.id and (c.estado = 'PENDIENTE' or c.estado = 'AGENDADA'))`),
      f,
    )
      .orderBy('i.fecha_inicio')
      .orderBy('i.id')
      .limit(WORKLIST_LIMIT)
      .execute();
  }
  // CPAP: the AOS cycles whose latest CPAP download of the last 30 days shows non-adherence, and those past their
  // first 90 days without any download (decision 0103).
  const since = addDays(today, -ADHERENCE.windowDays);
  const firstDeadline = addDays(today, -ADHERENCE.firstControlDays);
  const latest = sql`(select e.id from exam_records e where e.ingreso_id = i.id and e.kind = 'MONITOREO' and e.tipo = 'DESCARGA_CPAP'
      and e.anulado_at is null order by e.fecha desc, e.id desc limit 1)`;
  return filtered(
    base
      .leftJoin('exam_records as e', (j) => j.on(sql<boolean>`e.id = ${latest}`))
      .select([
        sql<number | null>`null`.as('cita_id'),
        sql<string | null>`null`.as('tipo_nombre'),
        sql<string | null>`coalesce(e.fecha, i.fecha_inicio)`.as('fecha'),
        sql<string | null>`case when e.id is null then 'sin_control' else cast(e.horas_uso_promedio as text) || '/' || cast(e.porcentaje_noches_4h as text) end`.as('detalle'),
      ])
      .where('i.estado', '=', 'ACTIVO')
      .where('p.programa', '=', 'PROGRAMA AOS')
      .where((eb) =>
        eb.or([
          eb.and([eb('e.id', 'is', null), eb('i.fecha_inicio', '<=', firstDeadline)]),
          eb.and([
            eb('e.fecha', '>=', since),
            eb.or([eb('e.horas_uso_promedio', '<', ADHERENCE.minHorasHundredths), eb('e.porcentaje_noches_4h', '<', ADHERENCE.minNochesHundredths), eb('e.horas_uso_promedio', 'is', null), eb('e.porcentaje_noches_4h', 'is', null)]),
          ]),
        ]),
      ),
    f,
  )
    .orderBy('i.fecha_inicio')
    .orderBy('i.id')
    .limit(WORKLIST_LIMIT)
    .execute();
}


/**
 * How many rows each worklist has (capped at WORKLIST_LIMIT + 1: "more than 200"). `known`: the counts the caller
 * already has (the list it just read), not read again.
 */
export async function countWorklists(
  db: Executor,
  f: WorklistFilters,
  today: string,
  week: { desde: string; hasta: string },
  known: Partial<Record<WorklistKind, number>> = {},
): Promise<Record<WorklistKind, number>> {
  const kinds: WorklistKind[] = ['semana', 'vencidas', 'inasistencias', 'sin_proxima', 'cpap'];
  const out = {} as Record<WorklistKind, number>;
  for (const k of kinds) out[k] = known[k] ?? (await listWorklist(db, k, f, today, week)).length;
  return out;
}

export const listVisitHistoryWithUsers = (db: Executor, citaId: number) =>
  db
    .selectFrom('cita_historial as h')
    .leftJoin('users as u', 'u.id', 'h.user_id')
    .select(['h.at', 'h.desde', 'h.hacia', 'u.username'])
    .where('h.cita_id', '=', citaId)
    .orderBy('h.id')
    .execute();

// ---------------------------------------------------------------------------------------------------------
// Contact consent and reminders

export const listConsents = (db: Executor, pacienteId: number) =>
  db.selectFrom('contacto_consentimientos').selectAll().where('paciente_id', '=', pacienteId).orderBy('canal').orderBy('id').execute();

export const findLiveConsent = (db: Executor, pacienteId: number, canal: string) =>
  db
    .selectFrom('contacto_consentimientos')
    .selectAll()
    .where('paciente_id', '=', pacienteId)
    .where('canal', '=', canal as 'SMS')
    .where('retirado_el', 'is', null)
    .executeTakeFirst();

export const findConsent = (db: Executor, id: number) => db.selectFrom('contacto_consentimientos').selectAll().where('id', '=', id).executeTakeFirst();

/** The live consents of these patients, as patient id → channels. */
export async function liveChannelsOf(db: Executor, pacienteIds: readonly number[]): Promise<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>();
  if (pacienteIds.length === 0) return out;
  const rows = await db
    .selectFrom('contacto_consentimientos')
    .select(['paciente_id', 'canal'])
    .where('paciente_id', 'in', pacienteIds)
    .where('retirado_el', 'is', null)
    .execute();
  for (const r of rows) (out.get(r.paciente_id) ?? out.set(r.paciente_id, new Set()).get(r.paciente_id)!).add(r.canal);
  return out;
}

/** The visits booked on a day, with what their reminder says. */
export const listRemindersOn = (db: Executor, fecha: string) =>
  db
    .selectFrom('citas as c')
    .innerJoin('patients as p', 'p.id', 'c.paciente_id')
    .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
    .leftJoin('users as u', 'u.id', 'c.recordado_por')
    .select(['c.id', 'c.paciente_id', 'c.hora', 'c.fecha', 'c.recordado_at', 'p.nombre', 'p.apellido', 'p.celular', 'p.telefono', 't.nombre as tipo_nombre', 't.indicaciones', 'u.username as recordado_por'])
    .where('c.fecha', '=', fecha)
    .where('c.estado', '=', 'AGENDADA')
    .orderBy('c.hora')
    .orderBy('c.id')
    .limit(1000)
    .execute();

// ---------------------------------------------------------------------------------------------------------
// Calendar feeds

export const findLiveFeedByHash = (db: Executor, tokenHash: string) =>
  db.selectFrom('agenda_feeds').select(['id', 'user_id']).where('token_hash', '=', tokenHash).where('revocado_at', 'is', null).executeTakeFirst();

export const listFeedsOf = (db: Executor, userId: number) =>
  db.selectFrom('agenda_feeds').select(['id', 'created_at', 'revocado_at']).where('user_id', '=', userId).orderBy('id', 'desc').limit(20).execute();

/** A professional's booked visits from `desde` to `hasta` (minutes), for the feed: initials and kind only. */
export const listFeedVisits = (db: Executor, userId: number, desde: number, hasta: number) =>
  db
    .selectFrom('citas as c')
    .innerJoin('patients as p', 'p.id', 'c.paciente_id')
    .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
    .leftJoin('agenda_recursos as r', 'r.id', 'c.recurso_id')
    .select(['c.id', 'c.fecha', 'c.hora', 'c.duracion_min', 'c.estado', 'c.updated_at', 'p.nombre', 'p.apellido', 't.nombre as tipo_nombre', 'r.nombre as recurso'])
    .where('c.profesional_id', '=', userId)
    .where('c.inicio_min', '>=', desde)
    .where('c.inicio_min', '<', hasta)
    .where((eb) => eb.or([eb('c.estado', '=', 'AGENDADA'), eb('c.estado', '=', 'ATENDIDA')]))
    .orderBy('c.inicio_min')
    .limit(500)
    .execute();

export const insertConsent = (trx: Trx, row: Insertable<Database['contacto_consentimientos']>) => insertRowReturningId(trx, 'contacto_consentimientos', row);

export const markConsentWithdrawn = (trx: Trx, id: number, retiradoEl: string, now: string) =>
  trx.updateTable('contacto_consentimientos').set({ retirado_el: retiradoEl, updated_at: now }).where('id', '=', id).where('retirado_el', 'is', null).execute();

export const insertFeed = (trx: Trx, row: Insertable<Database['agenda_feeds']>) => insertRowReturningId(trx, 'agenda_feeds', row);

export async function markFeedRevoked(trx: Trx, id: number, userId: number, now: string): Promise<boolean> {
  const r = await trx.updateTable('agenda_feeds').set({ revocado_at: now }).where('id', '=', id).where('user_id', '=', userId).where('revocado_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
