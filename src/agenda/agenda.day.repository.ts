// The agenda's SQL for the day and week views and a visit's page (issue 28).
import { sql, type Compilable } from 'kysely';
import { isPostgres, type Executor } from '../db/database.js';
import { precompiled } from '../platform/writes/prepared.js';
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

/** The states of a visit the day and week do not show (none is booked, attended or missed). */
const NOT_BOOKED = ['PENDIENTE', 'CANCELADA', 'PAUSADA'] as const;

/** Which of the views a request asks for: the statements differ by the filters given. */
type Shape = 'clinica' | 'profesional' | 'recurso' | 'ambos';

/**
 * The filters as a statement's arguments, in its order: the days' bounds (dates for the whole clinic; minutes, then
 * dates, for a professional or a resource), then the professional and the resource given.
 */
function argumentsOf(f: AgendaFilters): { shape: Shape; args: (string | number)[] } {
  if (f.profesional === null && f.recurso === null) return { shape: 'clinica', args: [f.desde, f.hasta] };
  const bounds = [startMinute(f.desde, '00:00'), startMinute(addDays(f.hasta, 1), '00:00'), f.desde, f.hasta];
  if (f.recurso === null) return { shape: 'profesional', args: [...bounds, f.profesional!] };
  if (f.profesional === null) return { shape: 'recurso', args: [...bounds, f.recurso] };
  return { shape: 'ambos', args: [...bounds, f.profesional, f.recurso] };
}

/**
 * The booked, attended and missed visits of the days (the citas alone, aliased c), for a shape: `args` are the
 * statement's arguments as argumentsOf orders them (placeholders when precompiled).
 */
function bookedOn(db: Executor, shape: Shape, args: readonly unknown[]) {
  let q = db.selectFrom('citas as c');
  // Booked, attended or missed, said as "none of the others": an equality on estado would make SQLite (no
  // statistics) walk every booked visit of the clinic's history by estado instead of the days' range by date. Said as
  // inequalities, not `not in`: SQLite tested each index entry against a list it built (a week's count of ~8,000
  // visits 2.1 ms, with inequalities 1.35; decision 0340).
  for (const estado of NOT_BOOKED) q = q.where('c.estado', '<>', estado);
  // The days bounded in the terms of the index that serves the view (a booked visit has both): the whole clinic's
  // by date alone (citas_dia_idx); bounded twice, PostgreSQL took the two ranges as independent, expected one visit
  // instead of a thousand and joined row by row (decision 0240). A professional or a resource: their index by minute.
  if (shape === 'clinica') {
    const [desde, hasta] = args as [string, string];
    return q.where('c.fecha', '>=', desde).where('c.fecha', '<=', hasta);
  }
  const [lo, hi, desde, hasta, first, second] = args as [number, number, string, string, number, number];
  q = q.where('c.inicio_min', '>=', lo).where('c.inicio_min', '<', hi);
  // Someone's days again by date, which the minutes imply: PostgreSQL then expects a visit or so, as many as it
  // plans for the days at hand (a few dozen), and keeps one plan for the statement instead of planning it at every
  // request (decision 0385: a professional's day 1,700 → 11,600 a second in pgbench). A clinic's thousand visits a
  // day are another matter (above). SQLite filters them from the index it walks (`+`: never an index of its own).
  const fecha = isPostgres(db) ? sql.ref('c.fecha') : sql`+c.fecha`;
  q = q.where(fecha, '>=', desde).where(fecha, '<=', hasta);
  if (shape === 'profesional') return q.where('c.profesional_id', '=', first);
  if (shape === 'recurso') return q.where('c.recurso_id', '=', first);
  return q.where('c.profesional_id', '=', first).where('c.recurso_id', '=', second);
}

const SHAPES: readonly Shape[] = ['clinica', 'profesional', 'recurso', 'ambos'];

/**
 * Each shape's statement compiled once (decision 0205): a professional's day is a kept page that mostly misses,
 * and building, compiling and checking the statements with Kysely's builder cost more than SQLite's work for them.
 */
const byShape = <Row>(build: (db: Executor, shape: Shape, args: readonly unknown[]) => Compilable<Row>) =>
  new Map(SHAPES.map((shape) => [shape, precompiled((db: Executor, ...args: unknown[]) => build(db, shape, args))] as const));

const countStatements = byShape((db, shape, args) => bookedOn(db, shape, args).select((eb) => eb.fn.countAll().as('n')));

/** How many visits the days hold (a whole clinic's days are paged by it). */
export async function countBookedVisits(db: Executor, f: AgendaFilters): Promise<number> {
  const { shape, args } = argumentsOf(f);
  const [row] = await countStatements.get(shape)!(db, ...args);
  return Number(row!.n);
}

/**
 * The page's visits with what the agenda shows of each (no more); for the whole clinic, the last two arguments are
 * the page's limit and offset.
 */
const listStatements = byShape((db, shape, args) => {
  const shown = (from: ReturnType<typeof bookedOn>) =>
    from
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
        'p.nombre',
        'p.apellido',
        't.nombre as tipo_nombre',
        'u.username as profesional',
        'r.nombre as recurso',
      ])
      .orderBy('c.fecha')
      .orderBy('c.hora')
      .orderBy('c.id');
  // Someone's or something's days (a few dozen visits, never paged): joined as their index walks them. A visit
  // read again by its id cost as much again (decision 0315). Their first thousand, the limit written in the
  // statement: PostgreSQL takes an offset it cannot see for a tenth of the table, and then plans the statement
  // again at every request rather than keep one plan (decision 0385).
  if (shape !== 'clinica') return shown(bookedOn(db, shape, args)).limit(sql<number>`${sql.lit(AGENDA_WHOLE_LIMIT)}`);
  // The whole clinic's page is cut from citas_dia_idx alone, and only its visits are joined.
  const [limit, offset] = args.slice(-2) as [number, number];
  const ids = bookedOn(db, shape, args.slice(0, -2)).select('c.id').orderBy('c.fecha').orderBy('c.hora').orderBy('c.id').limit(limit).offset(offset);
  return shown(db.selectFrom('citas as c').where('c.id', 'in', ids));
});

/**
 * The visits of the days by day, time and id, with what the agenda shows of each: those of `page` for the whole
 * clinic's days (counted by countBookedVisits; by default the first thousand), the first thousand of someone's (a
 * page is not asked for). The page is cut from the index alone (citas_dia_idx or the professional's or
 * resource's), and only its visits are joined.
 */
export async function listBookedVisits(db: Executor, f: AgendaFilters, page?: { offset: number; limit: number }) {
  const { shape, args } = argumentsOf(f);
  if (shape !== 'clinica') return listStatements.get(shape)!(db, ...args);
  return listStatements.get(shape)!(db, ...args, page?.limit ?? AGENDA_WHOLE_LIMIT, page?.offset ?? 0);
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
