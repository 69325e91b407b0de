// The agenda's SQL for the worklists of /agenda/pendientes/ and their counts (issue 28, decisions 0103 and 0147).
import { sql, type RawBuilder } from 'kysely';
import { isPostgres, type Executor } from '../db/database.js';
import { precompiled } from '../platform/writes/prepared.js';
import { addDays } from '../shared/dates.js';
import { ADHERENCE } from './agenda.rules.js';

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

/** Where the unfiltered counts stop ("más de 200", the dashboard's): a count walks its list to this row and one more. */
export const WORKLIST_LIMIT = 200;
/** Rows on a page of a worklist (decision 0330). */
export const WORKLIST_PAGE_SIZE = 50;

/**
 * Where a count stops: the unfiltered lists at WORKLIST_LIMIT, a filtered one at a page ("más de 50", decision 0330).
 * A filtered count walks its list until it has found that many rows of the filters, testing each walked row against
 * the patient and the professional: to its 201st row it cost 6–22 ms of a miss at 100,000 patients, to its 51st 1–8.
 */
export const countLimit = (f: WorklistFilters): number => (f.programa === null && f.entidad === null && f.profesional === null ? WORKLIST_LIMIT : WORKLIST_PAGE_SIZE);

type CycleColumn = 'c.ingreso_id' | 'i.id' | 'n.ingreso_id' | 'k.ingreso_id';

/**
 * A list's statement from its walk (`walkOf`): its rows, its filters, its order, its limit. The professional (one who
 * has seen or will see the patient in the cycle: a visit of the cycle with them, in any state) is tested in one of two
 * ways, which select the same rows (decision 0290):
 * - `probe`: one seek per walked row into citas_profesional_ingreso_idx (profesional_id, ingreso_id). The seeks stay
 *   in the professional's range of the index, a few pages read again and again: 0.3 to 1 µs a row. For the lists
 *   whose walk reads its rows from an index (the due visits, the no-shows, the CPAP cycles): a professional of many
 *   cycles finds 200 rows in some 2,200 walked.
 * - `set`: the professional's cycles read once a statement (13,800 entries of that index at 100,000 patients, ~2 ms to
 *   build), then each walked row checked in memory (SQLite builds a Bloom filter): for sin_proxima, whose walk seeks
 *   each cycle's next visit at random in a 2.1 M-entry index, so that a cycle not the professional's must be dropped
 *   before that seek; with `probe` SQLite ran that seek first (7 ms instead of 2, and 19 ms for a professional of
 *   few cycles, whose list is walked to its end).
 * Both walk the list in its order and stop at its last row asked for: a professional of few visits had their lists
 * walked to the end (vencidas 8–10 ms, cpap 7–9 ms for one with none). Such a professional's lists are led by their
 * cycles instead (`led`, decision 0345): each cycle's rows found by its index, the few sorted (`leadOf`).
 * The way is the walk's `by`; the column tested is its `cycle`, the visit's or the kept row's (checked before the cycle
 * is read).
 */
function walked<Q extends { where: (...a: any[]) => Q; orderBy: (...a: any[]) => Q; limit: (...a: any[]) => Q; offset: (...a: any[]) => Q }>(
  q: Q,
  walk: Walk,
  f: WorklistFilters,
  at: Slice,
  led: Lead | null,
): Q {
  const { cycle, by } = walk;
  if (walk.programa !== undefined && f.programa !== null && f.programa !== walk.programa) return q.where(sql<boolean>`1 = 0`);
  let out = q.where(walk.where);
  if (f.programa !== null) out = out.where('p.programa', '=', f.programa);
  if (f.entidad !== null) out = out.where('p.entidad_salud', '=', f.entidad);
  if (f.profesional !== null) {
    const prof = f.profesional;
    out = led
      ? out.where(led(cycle))
      : by === 'probe'
        ? out.where(sql<boolean>`exists (select 1 from citas cp where cp.profesional_id = ${prof} and cp.ingreso_id = ${sql.ref(cycle)})`)
        : // `+`: a filter of the list's own walk (in its order, stopping at its 200th row), never the list's driver: led by
          // the professional's 13,000 cycles, SQLite read each and sorted them (30 ms instead of 3 for sin_proxima).
          out.where(sql<boolean>`+${sql.ref(cycle)} in ${theirCycles(prof)}`);
  }
  const ordered = out.orderBy(sql.ref(walk.order[0])).orderBy(sql.ref(walk.order[1])).limit(at.limit);
  return at.offset > 0 ? ordered.offset(at.offset) : ordered;
}

/** Which of a list's rows, in its order: `limit` rows after the first `offset`. */
export interface Slice {
  offset: number;
  limit: number;
}

/**
 * A professional with fewer visits than this (in any state) has their lists led by their cycles (decision 0345). At
 * 100,000 patients on SQLite, four lists' counts for one of 300 visits: 2.1 ms led against 23 ms walked; of 1,000,
 * 15.5 against 14.8; of 13,600 (the benchmark's professionals), 122 against 1.7.
 */
export const FEW_VISITS = 500;

/** The professional's visits, counted to `cap` (a walk of their range of citas_profesional_ingreso_idx). */
const visitsCountedTo = precompiled((db: Executor, profesional: number, cap: number) =>
  db
    .selectFrom((eb) => eb.selectFrom('citas').select(sql<number>`1`.as('one')).where('profesional_id', '=', profesional).limit(cap).as('v'))
    .select(sql<number | string>`count(*)`.as('n')),
);

/** The professional's cycles (from the same index). */
const cyclesOfProfessional = precompiled((db: Executor, profesional: number) =>
  db.selectFrom('citas').select('ingreso_id').distinct().where('profesional_id', '=', profesional),
);

const theirCycles = (profesional: number) => sql`(select cp.ingreso_id from citas cp where cp.profesional_id = ${profesional})`;

/** A list's condition that leads it by the professional's cycles, for the list's cycle column. */
type Lead = (cycle: CycleColumn) => RawBuilder<boolean>;

/**
 * How the professional's cycles lead the lists under `f` when they have fewer than `few` visits; null otherwise (no
 * professional, or one of many visits: the lists are walked). SQLite reads the set first when it is not marked `+`
 * (2.2 times faster than naming the cycles, at 300 visits). PostgreSQL's statistics give every professional the same
 * 13,800 visits, so it walked the lists for one with none as for any other (and, given the set, hashed all 2.1 M
 * visits: 1.4 s for the five lists): the cycles are read first and passed as an array, whose length it sees.
 */
async function leadOf(db: Executor, f: WorklistFilters, few: number): Promise<Lead | null> {
  if (f.profesional === null || few <= 0) return null;
  const prof = f.profesional;
  const [counted] = await visitsCountedTo(db, prof, few);
  if (Number(counted?.n ?? 0) >= few) return null;
  if (!isPostgres(db)) return (cycle) => sql<boolean>`${sql.ref(cycle)} in ${theirCycles(prof)}`;
  const cycles = (await cyclesOfProfessional(db, prof)).map((r) => Number(r.ingreso_id));
  return (cycle) => sql<boolean>`${sql.ref(cycle)} = any(${cycles})`;
}

/**
 * One worklist's rows for the day `today`, in list order: its first WORKLIST_LIMIT, or the slice asked for. `few`: the
 * visits below which a professional's lists are led by their cycles (FEW_VISITS; the tests compare both ways).
 */
export async function listWorklist(
  db: Executor,
  kind: WorklistKind,
  f: WorklistFilters,
  today: string,
  week: Week,
  at: Slice = { offset: 0, limit: WORKLIST_LIMIT },
  few = FEW_VISITS,
): Promise<WorklistRow[]> {
  const led = await leadOf(db, f, few);
  return (await worklistQuery(db, kind, f, today, week, true, at, led).execute()) as WorklistRow[];
}

type Week = { desde: string; hasta: string };

/**
 * Which rows a list walks and in which order: the same for its rows and for its count, so that the count is always
 * its list's length. `cycle`: the walked row's cycle column; `by`: how a professional is tested (`walked`). A `set`
 * list walks the cycles (`ingresos as i`): its count under a professional walks the professional's cycles instead
 * (`professionalsCycles`), with the same conditions.
 */
interface Walk {
  where: RawBuilder<boolean>;
  order: readonly [string, string];
  cycle: CycleColumn;
  by: 'probe' | 'set';
  /** The one program whose cycles the list can hold: filtered by another, it is empty without a walk. */
  programa?: string;
}

function walkOf(kind: WorklistKind, today: string, week: Week): Walk {
  switch (kind) {
    case 'semana':
    case 'vencidas': {
      // The PENDIENTE visits walked by due date in citas_pendientes_idx, which holds their cycle and kind (decision
      // 0290): the state a constant, so that SQLite selects that partial index. semana runs from today to Sunday: what
      // fell due earlier this week is overdue (its own list).
      const due =
        kind === 'semana'
          ? sql<boolean>`${sql.ref('c.vence_el')} >= ${today > week.desde ? today : week.desde} and ${sql.ref('c.vence_el')} <= ${week.hasta}`
          : sql<boolean>`${sql.ref('c.vence_el')} < ${today}`;
      return { where: sql<boolean>`c.estado = 'PENDIENTE' and ${due}`, order: ['c.vence_el', 'c.id'], cycle: 'c.ingreso_id', by: 'probe' };
    }
    case 'inasistencias':
      // The no-shows still to re-book, kept by triggers (agenda_por_reagendar, decision 0260): each row walked, by date,
      // is on the list, unless a filter leaves it out.
      return { where: sql<boolean>`true`, order: ['n.fecha', 'n.cita_id'], cycle: 'n.ingreso_id', by: 'probe' };
    case 'sin_proxima':
      return {
        where: sql<boolean>`${sql.ref('i.estado')} = ${'ACTIVO'} and not exists (select 1 from citas c where c.ingreso_id = i.id and (c.estado = 'PENDIENTE' or c.estado = 'AGENDADA'))`,
        order: ['i.fecha_inicio', 'i.id'],
        cycle: 'i.id',
        by: 'set',
      };
    case 'cpap': {
      // The AOS cycles whose latest CPAP download of the last 30 days shows non-adherence, and those past their first
      // 90 days without any download (decision 0103). The AOS program's ACTIVO cycles and their latest download are
      // kept by triggers (agenda_cpap_ciclos, decision 0260): the walk, in the list's order, tests the dates and
      // figures in its index.
      const since = addDays(today, -ADHERENCE.windowDays);
      const firstDeadline = addDays(today, -ADHERENCE.firstControlDays);
      const k = (column: string) => sql.ref(`k.${column}`);
      return {
        where: sql<boolean>`((${k('ultima_descarga')} is null and ${k('fecha_inicio')} <= ${firstDeadline}) or (${k('ultima_descarga')} >= ${since} and (${k('horas_uso_promedio')} < ${ADHERENCE.minHorasHundredths} or ${k('porcentaje_noches_4h')} < ${ADHERENCE.minNochesHundredths} or ${k('horas_uso_promedio')} is null or ${k('porcentaje_noches_4h')} is null)))`,
        order: ['k.fecha_inicio', 'k.ingreso_id'],
        cycle: 'k.ingreso_id',
        by: 'probe',
        // agenda_cpap_ciclos holds the AOS program's cycles only: another program's filter walked all 60,000 of them
        // at 100,000 patients to find none (50 ms).
        programa: 'PROGRAMA AOS',
      };
    }
  }
}

/**
 * One worklist's statement, in list order, the slice `at` of it (a page of rows; to count, the first countLimit + 1).
 * `rows: false` selects the cycle's id alone: a count needs no patient's name, and better-sqlite3 then builds no row
 * of eleven columns for each of the 201 rows counted. When no filter reads the patient either, a count walks its
 * table alone, without the cycle, the patient and the visit kind each row would join (decision 0305): every one of
 * those joins finds its row (citas.ingreso_id, citas.tipo and ingresos.paciente_id are foreign keys; the kept tables'
 * rows follow their visits and cycles by trigger, decision 0260), so the count is still the list's.
 */
function worklistQuery(db: Executor, kind: WorklistKind, f: WorklistFilters, today: string, week: Week, rows: boolean, at: Slice, led: Lead | null) {
  const walk = walkOf(kind, today, week);
  if (!rows && walk.by === 'set' && f.profesional !== null && led === null) return professionalsCycles(db, walk, f, at.limit);
  const joined = rows || f.programa !== null || f.entidad !== null;
  const source = joined ? joinedSource(db, kind, rows) : walkedTable(db, kind);
  return walked(source, walk, f, at, led);
}

/**
 * A cycles list's count under a professional (decision 0335), driven from the professional's visits: each of their
 * cycles once, in citas_profesional_ingreso_idx's order, tested against the list's conditions (and the patient's), to
 * the count's limit. A count needs no order, so it need not walk the clinic's open cycles by start and build the set of
 * the professional's (2–6 ms at 100,000 patients, whatever the professional): 0.2–0.6 ms for one of 13,000 cycles,
 * nothing for one with none. The list's rows keep the walk in their order (`walked`).
 */
function professionalsCycles(db: Executor, walk: Walk, f: WorklistFilters, limit: number) {
  const cycles = db
    .selectFrom('citas as cp')
    .innerJoin('ingresos as i', 'i.id', 'cp.ingreso_id')
    .select('cp.ingreso_id')
    .distinct()
    .where('cp.profesional_id', '=', f.profesional!)
    .where(walk.where)
    .limit(limit);
  if (f.programa === null && f.entidad === null) return cycles;
  let theirs = cycles.innerJoin('patients as p', 'p.id', 'i.paciente_id');
  if (f.programa !== null) theirs = theirs.where('p.programa', '=', f.programa);
  if (f.entidad !== null) theirs = theirs.where('p.entidad_salud', '=', f.entidad);
  return theirs;
}

/** The walked table alone, its rows' cycle selected. */
function walkedTable(db: Executor, kind: WorklistKind) {
  switch (kind) {
    case 'semana':
    case 'vencidas':
      return db.selectFrom('citas as c').select('c.ingreso_id');
    case 'inasistencias':
      return db.selectFrom('agenda_por_reagendar as n').select('n.ingreso_id');
    case 'sin_proxima':
      return db.selectFrom('ingresos as i').select('i.id as ingreso_id');
    case 'cpap':
      return db.selectFrom('agenda_cpap_ciclos as k').select('k.ingreso_id');
  }
}

/** The walked table with the cycle and the patient (and the visit kind) of each row: the list's columns, or its cycle. */
function joinedSource(db: Executor, kind: WorklistKind, rows: boolean) {
  const patientColumns = ['p.id as paciente_id', 'p.nombre', 'p.apellido', 'p.programa', 'p.entidad_salud', 'p.celular', 'i.id as ingreso_id'] as const;
  const none = sql<null>`null`;
  if (kind === 'inasistencias') {
    const q = db
      .selectFrom('agenda_por_reagendar as n')
      .innerJoin('ingresos as i', 'i.id', 'n.ingreso_id')
      .innerJoin('patients as p', 'p.id', 'i.paciente_id')
      .innerJoin('agenda_tipos as t', 't.codigo', 'n.tipo');
    return rows ? q.select([...patientColumns, 'n.cita_id as cita_id', 't.nombre as tipo_nombre', sql<string | null>`n.fecha`.as('fecha'), none.as('detalle')]) : q.select('n.ingreso_id');
  }
  const base = db.selectFrom('ingresos as i').innerJoin('patients as p', 'p.id', 'i.paciente_id');
  if (kind === 'semana' || kind === 'vencidas') {
    const q = base.innerJoin('citas as c', 'c.ingreso_id', 'i.id').innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo');
    return rows ? q.select([...patientColumns, 'c.id as cita_id', 't.nombre as tipo_nombre', sql<string | null>`c.vence_el`.as('fecha'), none.as('detalle')]) : q.select('i.id as ingreso_id');
  }
  if (kind === 'sin_proxima') {
    return rows ? base.select([...patientColumns, none.as('cita_id'), none.as('tipo_nombre'), 'i.fecha_inicio as fecha', none.as('detalle')]) : base.select('i.id as ingreso_id');
  }
  const q = db.selectFrom('agenda_cpap_ciclos as k').innerJoin('ingresos as i', 'i.id', 'k.ingreso_id').innerJoin('patients as p', 'p.id', 'i.paciente_id');
  return rows
    ? q.select([
        ...patientColumns,
        none.as('cita_id'),
        none.as('tipo_nombre'),
        sql<string | null>`coalesce(k.ultima_descarga, k.fecha_inicio)`.as('fecha'),
        sql<string | null>`case when k.ultima_descarga is null then 'sin_control' else cast(k.horas_uso_promedio as text) || '/' || cast(k.porcentaje_noches_4h as text) end`.as('detalle'),
      ])
    : q.select('k.ingreso_id');
}

export const WORKLIST_KINDS: readonly WorklistKind[] = ['semana', 'vencidas', 'inasistencias', 'sin_proxima', 'cpap'];

/**
 * How many rows each worklist has, capped at countLimit + 1 ("more than 200", or 50 under filters): the five lists'
 * walks, each cut at that row, counted in one statement.
 */
export async function countWorklists(db: Executor, f: WorklistFilters, today: string, week: Week, few = FEW_VISITS): Promise<Record<WorklistKind, number>> {
  const led = await leadOf(db, f, few);
  const counted = WORKLIST_KINDS.map((k) => sql`(select count(*) from (${worklistQuery(db, k, f, today, week, false, { offset: 0, limit: countLimit(f) + 1 }, led)}) as ${sql.id(`w_${k}`)}) as ${sql.id(k)}`);
  const { rows } = await sql<Record<WorklistKind, number | string>>`select ${sql.join(counted)}`.execute(db);
  const row = rows[0]!;
  return Object.fromEntries(WORKLIST_KINDS.map((k) => [k, Number(row[k])])) as Record<WorklistKind, number>;
}
