// The agenda's SQL for the day and week views and a visit's page (issue 28).
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { addDays } from '../shared/dates.js';
import { startMinute } from './agenda.rules.js';

// ---------------------------------------------------------------------------------------------------------
// The agenda's views

export interface AgendaFilters {
  desde: string;
  hasta: string;
  profesional: number | null;
  recurso: number | null;
}

/** Visits a page of the whole clinic's days shows (a day is about a thousand at 100,000 patients, a week seven). */
export const AGENDA_PAGE_SIZE = 100;
/** Visits one professional's or one resource's days show at most (a week is a few dozen). */
const AGENDA_WHOLE_LIMIT = 1000;

/** The booked, attended and missed visits of the days from `desde` to `hasta` (the citas alone, aliased c). */
function bookedOn(db: Executor, f: AgendaFilters) {
  let q = db
    .selectFrom('citas as c')
    // Booked, attended or missed, said as "none of the others": an equality on estado would make SQLite (no
    // statistics) walk every booked visit of the clinic's history by estado instead of the days' range by date.
    .where('c.estado', 'not in', ['PENDIENTE', 'CANCELADA', 'PAUSADA']);
  // The days bounded once, in the terms of the index that serves the view (a booked visit has both): bounded twice,
  // PostgreSQL took the two ranges as independent, expected one visit instead of a thousand and joined row by row
  // (decision 0240). The whole clinic: citas_dia_idx by date; a professional or a resource: their index by minute.
  if (f.profesional === null && f.recurso === null) {
    q = q.where('c.fecha', '>=', f.desde).where('c.fecha', '<=', f.hasta);
  } else {
    q = q.where('c.inicio_min', '>=', startMinute(f.desde, '00:00')).where('c.inicio_min', '<', startMinute(addDays(f.hasta, 1), '00:00'));
  }
  if (f.profesional !== null) q = q.where('c.profesional_id', '=', f.profesional);
  if (f.recurso !== null) q = q.where('c.recurso_id', '=', f.recurso);
  return q;
}

/** How many visits the days hold (a whole clinic's days are paged by it). */
export async function countBookedVisits(db: Executor, f: AgendaFilters): Promise<number> {
  const row = await bookedOn(db, f).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The visits of the days by day, time and id, with what the agenda shows of each: those of `page` (a whole
 * clinic's days, counted by countBookedVisits), or the first thousand. The page is cut from the index alone
 * (citas_dia_idx or the professional's or resource's), and only its visits are joined.
 */
export async function listBookedVisits(db: Executor, f: AgendaFilters, page?: { offset: number; limit: number }) {
  const ids = bookedOn(db, f)
    .select('c.id')
    .orderBy('c.fecha')
    .orderBy('c.hora')
    .orderBy('c.id')
    .limit(page?.limit ?? AGENDA_WHOLE_LIMIT)
    .offset(page?.offset ?? 0);
  return db
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
    .where('c.id', 'in', ids)
    .orderBy('c.fecha')
    .orderBy('c.hora')
    .orderBy('c.id')
    .execute();
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


export const listVisitHistoryWithUsers = (db: Executor, citaId: number) =>
  db
    .selectFrom('cita_historial as h')
    .leftJoin('users as u', 'u.id', 'h.user_id')
    .select(['h.at', 'h.desde', 'h.hacia', 'u.username'])
    .where('h.cita_id', '=', citaId)
    .orderBy('h.id')
    .execute();
