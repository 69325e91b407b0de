// The agenda's SQL for the worklists of /agenda/pendientes/ and their counts (issue 28, decisions 0103 and 0147).
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
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

export const WORKLIST_LIMIT = 200;

type CycleColumn = 'c.ingreso_id' | 'i.id' | 'n.ingreso_id' | 'k.ingreso_id';

/**
 * The filters. The professional (one who has seen or will see the patient in the cycle: a visit of the cycle with
 * them, in any state) is tested in one of two ways, which select the same rows (decision 0290):
 * - `probe`: one seek per walked row into citas_profesional_ingreso_idx (profesional_id, ingreso_id). The seeks stay
 *   in the professional's range of the index, a few pages read again and again: 0.3 to 1 µs a row. For the lists
 *   whose walk reads its rows from an index (the due visits, the no-shows, the CPAP cycles): a professional of many
 *   cycles finds 200 rows in some 2,200 walked. A professional of few cycles has their lists walked to the end
 *   (vencidas 10 ms, cpap 9 ms for one with no visit), where the set would be small and cheap: not chosen per
 *   professional yet.
 * - `set`: the professional's cycles read once a statement (13,800 entries of that index at 100,000 patients, ~2 ms to
 *   build), then each walked row checked in memory (SQLite builds a Bloom filter): for sin_proxima, whose walk seeks
 *   each cycle's next visit at random in a 2.1 M-entry index, so that a cycle not the professional's must be dropped
 *   before that seek; with `probe` SQLite ran that seek first (7 ms instead of 2, and 19 ms for a professional of
 *   few cycles, whose list is walked to its end).
 * `cycle`: the list's cycle column (the visit's or the kept row's: checked before the cycle is read).
 */
function filtered<Q extends { where: (...a: any[]) => Q }>(q: Q, f: WorklistFilters, cycle: CycleColumn, by: 'probe' | 'set'): Q {
  let out = q;
  if (f.programa !== null) out = out.where('p.programa', '=', f.programa);
  if (f.entidad !== null) out = out.where('p.entidad_salud', '=', f.entidad);
  if (f.profesional !== null) {
    const prof = f.profesional;
    out =
      by === 'probe'
        ? out.where(sql<boolean>`exists (select 1 from citas cp where cp.profesional_id = ${prof} and cp.ingreso_id = ${sql.ref(cycle)})`)
        : // `+`: a filter of the list's own walk (in its order, stopping at its 200th row), never the list's driver: led by
          // the professional's 13,000 cycles, SQLite read each and sorted them (30 ms instead of 3 for sin_proxima).
          out.where(sql<boolean>`+${sql.ref(cycle)} in (select cp.ingreso_id from citas cp where cp.profesional_id = ${prof})`);
  }
  return out;
}

/** One worklist's rows (at most WORKLIST_LIMIT), for the day `today`. */
export async function listWorklist(db: Executor, kind: WorklistKind, f: WorklistFilters, today: string, week: Week): Promise<WorklistRow[]> {
  return (await worklistQuery(db, kind, f, today, week, true).execute()) as WorklistRow[];
}

type Week = { desde: string; hasta: string };

/**
 * One worklist's statement, in list order and cut at its limit (`limit`: WORKLIST_LIMIT, or one more to count).
 * `rows: false` selects the cycle's id alone: a count needs no patient's name, and better-sqlite3 then builds no row
 * of eleven columns for each of the 201 rows counted.
 */
function worklistQuery(db: Executor, kind: WorklistKind, f: WorklistFilters, today: string, week: Week, rows: boolean, limit = WORKLIST_LIMIT) {
  const base = db.selectFrom('ingresos as i').innerJoin('patients as p', 'p.id', 'i.paciente_id');
  const patientColumns = ['p.id as paciente_id', 'p.nombre', 'p.apellido', 'p.programa', 'p.entidad_salud', 'p.celular', 'i.id as ingreso_id'] as const;
  if (kind === 'inasistencias') {
    // The no-shows still to re-book, kept by triggers (agenda_por_reagendar, decision 0260): each row walked, by date,
    // is on the list, unless a filter leaves it out. Its cycle and patient are read for the rows kept only.
    const q = db
      .selectFrom('agenda_por_reagendar as n')
      .innerJoin('ingresos as i', 'i.id', 'n.ingreso_id')
      .innerJoin('patients as p', 'p.id', 'i.paciente_id')
      .innerJoin('agenda_tipos as t', 't.codigo', 'n.tipo');
    const selected = rows
      ? q.select([...patientColumns, 'n.cita_id as cita_id', 't.nombre as tipo_nombre', sql<string | null>`n.fecha`.as('fecha'), sql<string | null>`null`.as('detalle')])
      : q.select('n.ingreso_id');
    return filtered(selected, f, 'n.ingreso_id', 'probe').orderBy('n.fecha').orderBy('n.cita_id').limit(limit);
  }
  if (kind === 'semana' || kind === 'vencidas') {
    let q = base.innerJoin('citas as c', 'c.ingreso_id', 'i.id').innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo');
    // The PENDIENTE visits walked by due date in citas_pendientes_idx, which holds their cycle and kind (decision 0290):
    // the state a constant, so that SQLite selects that partial index.
    q = q.where(sql<boolean>`c.estado = 'PENDIENTE'`);
    if (kind === 'semana') {
      // From today to Sunday: what fell due earlier this week is overdue (its own list).
      q = q.where('c.vence_el', '>=', today > week.desde ? today : week.desde).where('c.vence_el', '<=', week.hasta);
    } else {
      q = q.where('c.vence_el', '<', today);
    }
    const selected = rows
      ? q.select([...patientColumns, 'c.id as cita_id', 't.nombre as tipo_nombre', sql<string | null>`c.vence_el`.as('fecha'), sql<string | null>`null`.as('detalle')])
      : q.select('i.id as ingreso_id');
    return filtered(selected, f, 'c.ingreso_id', 'probe').orderBy('c.vence_el').orderBy('c.id').limit(limit);
  }
  if (kind === 'sin_proxima') {
    const q = base
      .where('i.estado', '=', 'ACTIVO')
      .where(sql<boolean>`not exists (select 1 from citas c where c.ingreso_id = i.id and (c.estado = 'PENDIENTE' or c.estado = 'AGENDADA'))`);
    const selected = rows
      ? q.select([...patientColumns, sql<number | null>`null`.as('cita_id'), sql<string | null>`null`.as('tipo_nombre'), 'i.fecha_inicio as fecha', sql<string | null>`null`.as('detalle')])
      : q.select('i.id as ingreso_id');
    return filtered(selected, f, 'i.id', 'set').orderBy('i.fecha_inicio').orderBy('i.id').limit(limit);
  }
  // CPAP: the AOS cycles whose latest CPAP download of the last 30 days shows non-adherence, and those past their
  // first 90 days without any download (decision 0103). The AOS program's ACTIVO cycles and their latest download are
  // kept by triggers (agenda_cpap_ciclos, decision 0260): the walk, in the list's order, tests the dates and figures in
  // its index and reads the cycle and the patient of the rows kept only.
  const since = addDays(today, -ADHERENCE.windowDays);
  const firstDeadline = addDays(today, -ADHERENCE.firstControlDays);
  const q = db
    .selectFrom('agenda_cpap_ciclos as k')
    .innerJoin('ingresos as i', 'i.id', 'k.ingreso_id')
    .innerJoin('patients as p', 'p.id', 'i.paciente_id')
    .where((eb) =>
      eb.or([
        eb.and([eb('k.ultima_descarga', 'is', null), eb('k.fecha_inicio', '<=', firstDeadline)]),
        eb.and([
          eb('k.ultima_descarga', '>=', since),
          eb.or([
            eb('k.horas_uso_promedio', '<', ADHERENCE.minHorasHundredths),
            eb('k.porcentaje_noches_4h', '<', ADHERENCE.minNochesHundredths),
            eb('k.horas_uso_promedio', 'is', null),
            eb('k.porcentaje_noches_4h', 'is', null),
          ]),
        ]),
      ]),
    );
  const selected = rows
    ? q.select([
        ...patientColumns,
        sql<number | null>`null`.as('cita_id'),
        sql<string | null>`null`.as('tipo_nombre'),
        sql<string | null>`coalesce(k.ultima_descarga, k.fecha_inicio)`.as('fecha'),
        sql<string | null>`case when k.ultima_descarga is null then 'sin_control' else cast(k.horas_uso_promedio as text) || '/' || cast(k.porcentaje_noches_4h as text) end`.as('detalle'),
      ])
    : q.select('k.ingreso_id');
  return filtered(selected, f, 'k.ingreso_id', 'probe').orderBy('k.fecha_inicio').orderBy('k.ingreso_id').limit(limit);
}

export const WORKLIST_KINDS: readonly WorklistKind[] = ['semana', 'vencidas', 'inasistencias', 'sin_proxima', 'cpap'];

/**
 * How many rows each worklist has, capped at WORKLIST_LIMIT + 1 ("more than 200"): the five lists' walks, each cut at
 * its 201st row, counted in one statement.
 */
export async function countWorklists(db: Executor, f: WorklistFilters, today: string, week: Week): Promise<Record<WorklistKind, number>> {
  const counted = WORKLIST_KINDS.map((k) => sql`(select count(*) from (${worklistQuery(db, k, f, today, week, false, WORKLIST_LIMIT + 1)}) as ${sql.id(`w_${k}`)}) as ${sql.id(k)}`);
  const { rows } = await sql<Record<WorklistKind, number | string>>`select ${sql.join(counted)}`.execute(db);
  const row = rows[0]!;
  return Object.fromEntries(WORKLIST_KINDS.map((k) => [k, Number(row[k])])) as Record<WorklistKind, number>;
}
