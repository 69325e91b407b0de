// Every figure of the dashboard, read from counters the database keeps in each write's transaction (migration
// 0070), and the queries behind the capitation report. docs/performance.md (items 4 and 5) has the plans and timings.

import { sql, type Expression, type SqlBool } from 'kysely';
import type { Executor } from '../db/database.js';
import { keysetBatches } from '../shared/csv.js';
import { bucketOpenMonths, type OpenGroupRow, type OpenMonthRow } from './dashboard.rules.js';

/** Open Ingresos, as a literal so SQLite can match the partial indexes `where estado in ('ACTIVO', 'SUSPENDIDO')`. */
const isOpen = (ref: string) => sql<SqlBool>`${sql.ref(ref)} in ('ACTIVO', 'SUSPENDIDO')`;

export interface StatusCounts {
  activos: number;
  suspendidos: number;
}

export interface GroupCount {
  key: string;
  n: number;
}

export interface CapitaByEntidad {
  entidad: string;
  pacientes: number;
  /** hundredths of a peso */
  total: number;
}

/** The sum of a counter column over its slots (and keys), as a number on both engines. */
const summed = (column: 'n' | 'total') => sql<number | string>`coalesce(sum(${sql.ref(column)}), 0)`;

/** 'YYYY-MM' of a month's first day; the counters are kept per month, so other bounds cannot be answered from them. */
function monthOfBound(date: string): string {
  if (!/^\d{4}-\d{2}-01$/.test(date)) throw new RangeError(`a month's first day is required: ${date}`);
  return date.slice(0, 7);
}

/**
 * The open Ingresos grouped by programa, entidad_salud, estado and mes_capita as of `today`: at most
 * 2 programas × 2 entidades × 2 estados × 18 months of rows, from which summarizeOpenGroups derives the status
 * counts, the counts by programa and by entidad_salud, the mes_capita chart and the capitation per entidad_salud.
 * Read from dashboard_open_counts (kept by triggers in each write's transaction, migration 0070, decision 0045):
 * a few hundred rows whatever the number of patients, bucketed by bucketOpenMonths. At most one open Ingreso per
 * patient (ingresos_one_open_per_patient), so counting Ingresos counts patients.
 */
export async function countOpenGroups(db: Executor, today: string): Promise<OpenGroupRow[]> {
  const rows = await db
    .selectFrom('dashboard_open_counts')
    .select(['programa', 'entidad_salud', 'estado', 'mes', summed('n').as('n'), summed('total').as('total')])
    .groupBy(['programa', 'entidad_salud', 'estado', 'mes'])
    .execute();
  const months: OpenMonthRow[] = rows.map((r) => ({
    programa: r.programa,
    entidad_salud: r.entidad_salud,
    estado: r.estado as OpenMonthRow['estado'],
    mes: r.mes,
    n: Number(r.n),
    total: Number(r.total),
  }));
  return bucketOpenMonths(months, today);
}

/**
 * Ingresos started (fecha_inicio) and finished (fecha_fin) within the month [start, end) (both a month's first
 * day): from dashboard_cycle_counts, a few rows.
 */
export async function countCyclesInMonth(db: Executor, start: string, end: string): Promise<{ iniciados: number; finalizados: number }> {
  const rows = await db
    .selectFrom('dashboard_cycle_counts')
    .select(['kind', summed('n').as('n')])
    .where('mes', '>=', monthOfBound(start))
    .where('mes', '<', monthOfBound(end))
    .groupBy('kind')
    .execute();
  const of = (kind: 'inicio' | 'fin') => Number(rows.find((r) => r.kind === kind)?.n ?? 0);
  return { iniciados: of('inicio'), finalizados: of('fin') };
}

export interface LimitIngreso {
  ingresoId: number;
  pacienteId: number;
  nombre: string;
  apellido: string;
  documento: string;
  estado: string;
  fechaInicio: string;
}

/**
 * Open Ingresos at mes_capita 18 or beyond (fecha_inicio before `before`, a month's first day), oldest first,
 * with their total: the total from dashboard_open_counts, the rows a range of ingresos_open_fecha_idx.
 */
export async function listIngresosAtLimit(db: Executor, before: string, limit: number): Promise<{ total: number; rows: LimitIngreso[] }> {
  const totalRow = await db
    .selectFrom('dashboard_open_counts')
    .select(summed('n').as('n'))
    .where('mes', '<', monthOfBound(before))
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('ingresos as i')
    .innerJoin('patients as p', 'p.id', 'i.paciente_id')
    .where(isOpen('i.estado'))
    .where('i.fecha_inicio', '<', before)
    .select(['i.id as ingresoId', 'p.id as pacienteId', 'p.nombre', 'p.apellido', 'p.documento', 'i.estado', 'i.fecha_inicio as fechaInicio'])
    .orderBy('i.fecha_inicio')
    .orderBy('i.id')
    .limit(limit)
    .execute();
  return { total: Number(totalRow.n), rows };
}

// ---------------------------------------------------------------------------------------------------------
// Capitation report

export interface CapitaRow {
  id: number;
  documento: string;
  tipo_documento: string;
  nombre: string;
  apellido: string;
  entidad_salud: string;
  programa: string;
  valor_capita: number;
  fecha_inicio: string;
  apellido_norm: string;
  nombre_norm: string;
}

export interface CapitaQuery {
  kind: 'current' | 'past';
  /** month bounds (dates) */
  start: string;
  end: string;
  /** the same bounds as UTC instants in TIME_ZONE, for history rows dated only by their timestamp */
  startInstant: string;
  endInstant: string;
  entidad: string | null;
}

/**
 * Every patient billable in the month, ordered by entidad_salud, apellido, nombre, id, read `pageSize` rows at a
 * time. This month: the patients with an ACTIVO Ingreso (patients.activo_desde, its fecha_inicio), each page a
 * range of patients_active_capita_idx after the previous page's last key. A past month: the patients with an
 * Ingreso that was ACTIVO at some time in that month according to ingreso_historial (see billableIngresos),
 * each with the fecha_inicio of the latest such Ingreso; the billable set is computed and ordered once (a list
 * of ids), then read a page of ids at a time.
 */
export async function* capitaPages(db: Executor, q: CapitaQuery, pageSize: number): AsyncGenerator<CapitaRow[]> {
  if (q.kind === 'current') {
    yield* keysetBatches<CapitaRow>((after) => findCurrentCapitaPage(db, q.entidad, q.end, after, pageSize), pageSize);
    return;
  }
  const ingresoIds = await findPastCapitaOrder(db, q);
  for (let k = 0; k < ingresoIds.length; k += pageSize) {
    yield await findCapitaRowsOfIngresos(db, Array.from(ingresoIds.subarray(k, k + pageSize)));
  }
}

export const CAPITA_PATIENT_COLUMNS = [
  'p.id',
  'p.documento',
  'p.tipo_documento',
  'p.nombre',
  'p.apellido',
  'p.entidad_salud',
  'p.programa',
  'p.valor_capita',
  'p.apellido_norm',
  'p.nombre_norm',
] as const;

/**
 * One page of this month's report: the active patients after the keyset `after`, whose ACTIVO cycle started before
 * the month's `end` (a cycle is billed for a month only when it was ACTIVO on a day of it: decision 0031).
 */
export async function findCurrentCapitaPage(
  db: Executor,
  entidad: string | null,
  end: string,
  after: CapitaRow | null,
  pageSize: number,
): Promise<CapitaRow[]> {
  let query = currentCapitaPatients(db, entidad, end).select([...CAPITA_PATIENT_COLUMNS, sql<string>`p.activo_desde`.as('fecha_inicio')]);
  if (after !== null) {
    query = query.where((eb) =>
      eb(
        eb.refTuple('p.entidad_salud', 'p.apellido_norm', 'p.nombre_norm', 'p.id'),
        '>',
        eb.tuple(after.entidad_salud, after.apellido_norm, after.nombre_norm, after.id),
      ),
    );
  }
  return query.orderBy('p.entidad_salud').orderBy('p.apellido_norm').orderBy('p.nombre_norm').orderBy('p.id').limit(pageSize).execute();
}

/**
 * This month's billable patients (`p`), nothing selected: the active patients whose ACTIVO cycle started before
 * the month's `end` (a cycle is billed for a month only when it was ACTIVO on a day of it: decision 0031). The one
 * rule behind capita.csv and the novedades report's list and totals (decision 0130).
 */
export function currentCapitaPatients(db: Executor, entidad: string | null, end: string) {
  let query = db
    .selectFrom('patients as p')
    .where('p.activo_desde', 'is not', null)
    // An expression, not the column, so SQLite keeps walking patients_active_capita_idx in report order instead
    // of ranging over activo_desde and sorting; only rows stored before decision 0031 can start after the month.
    .where(sql<SqlBool>`coalesce(p.activo_desde, '') < ${end}`);
  if (entidad !== null) query = query.where('p.entidad_salud', '=', entidad);
  return query;
}

/** A past month's billable Ingresos (the latest of each patient), in the report's order: computed once. */
export async function findPastCapitaOrder(db: Executor, q: CapitaQuery): Promise<Int32Array> {
  const rows = await pastCapitaPatients(db, q).select('l.id').orderBy('p.entidad_salud').orderBy('p.apellido_norm').orderBy('p.nombre_norm').orderBy('p.id').execute();
  return Int32Array.from(rows, (r) => Number(r.id));
}

/**
 * A past month's billable patients (`p`) joined to their latest billable Ingreso (`l.id`), nothing selected: the
 * one rule behind capita.csv and the novedades report's list and totals (decision 0130).
 */
export function pastCapitaPatients(db: Executor, q: CapitaQuery) {
  let query = db
    .with('billable', () => billableIngresos(db, q))
    // The latest billable Ingreso of each patient, so a patient appears once.
    .with('latest', (qc) => qc.selectFrom('billable').select((eb) => ['paciente_id', eb.fn.max('id').as('id')]).groupBy('paciente_id'))
    .selectFrom('patients as p')
    .innerJoin('latest as l', 'l.paciente_id', 'p.id');
  if (q.entidad !== null) query = query.where('p.entidad_salud', '=', q.entidad);
  return query;
}

/** The report's rows of the given Ingresos, in the order given. */
export async function findCapitaRowsOfIngresos(db: Executor, ingresoIds: readonly number[]): Promise<CapitaRow[]> {
  if (ingresoIds.length === 0) return [];
  const rows = await db
    .selectFrom('ingresos as i')
    .innerJoin('patients as p', 'p.id', 'i.paciente_id')
    .select([...CAPITA_PATIENT_COLUMNS, 'i.fecha_inicio', 'i.id as ingreso_id'])
    .where('i.id', 'in', ingresoIds)
    .execute();
  const byIngreso = new Map(rows.map(({ ingreso_id, ...row }) => [ingreso_id, row]));
  return ingresoIds.map((id) => byIngreso.get(id)!);
}

/**
 * Whether the history row `h` of the Ingreso `i` took effect before the day `date` (`instant`, its start in
 * TIME_ZONE): on the Ingreso's fecha_inicio when it opened it (desde null); else on its `fecha`
 * (fecha_terminacion for a termination); else, for suspension and reactivation, at its timestamp `at`. The
 * capitation report dates a change by it; the novedades report reads the same dates as three exclusive ranges
 * (novedades.repository.ts, decision 0130).
 */
const effectiveBefore = (h: 'h' | 'h2', date: string, instant: string): Expression<SqlBool> =>
  sql<SqlBool>`((${sql.ref(`${h}.desde`)} is null and i.fecha_inicio < ${date})
    or (${sql.ref(`${h}.desde`)} is not null and ${sql.ref(`${h}.fecha`)} is not null and ${sql.ref(`${h}.fecha`)} < ${date})
    or (${sql.ref(`${h}.desde`)} is not null and ${sql.ref(`${h}.fecha`)} is null and ${sql.ref(`${h}.at`)} < ${instant}))`;

/**
 * The Ingresos (id, paciente_id) that were ACTIVO at some time in the month [start, end), read from ingreso_historial.
 * A history row takes effect on: the Ingreso's fecha_inicio when it opened it (desde null); else its `fecha`
 * (fecha_terminacion for a termination); else, for suspension and reactivation, its timestamp `at`, compared
 * with the month's bounds as instants in TIME_ZONE. An Ingreso qualifies when a change to ACTIVO took effect
 * within the month, or when the last change that took effect before the month left it ACTIVO. An Ingreso
 * without any history row (loaded by other means) counts from fecha_inicio to fecha_fin unless SUSPENDIDO. An
 * Ingreso that starts on or after the month's end is never billed for it, nor one created already SUSPENDIDO
 * until it is reactivated (decision 0113).
 */
function billableIngresos(db: Executor, q: CapitaQuery) {
  return db
    .selectFrom('ingresos as i')
    .select(['i.id', 'i.paciente_id'])
    // Never ACTIVO on a day of the month if it started after it, whatever its status changes say (decision 0031).
    .where('i.fecha_inicio', '<', q.end)
    .where((eb) =>
      eb.or([
        // became ACTIVO (opened or reactivated) within the month
        eb.exists(
          eb
            .selectFrom('ingreso_historial as h')
            .select('h.id')
            .whereRef('h.ingreso_id', '=', 'i.id')
            .where('h.hacia', '=', 'ACTIVO')
            .where(effectiveBefore('h', q.end, q.endInstant))
            .where(sql<SqlBool>`not ${effectiveBefore('h', q.start, q.startInstant)}`)
            // A cycle created already SUSPENDIDO (an imported row with estado SUSPENDIDO: opened and suspended in
            // the same write, so at the same instant) was never ACTIVO in the program: its opening bills nothing
            // (decision 0113); a reactivation later does.
            .where((h) =>
              h.not(
                h.and([
                  h('h.desde', 'is', null),
                  h.exists(
                    h
                      .selectFrom('ingreso_historial as hs')
                      .select('hs.id')
                      .whereRef('hs.ingreso_id', '=', 'i.id')
                      .where('hs.desde', '=', 'ACTIVO')
                      .where('hs.hacia', '=', 'SUSPENDIDO')
                      .whereRef('hs.at', '=', 'h.at'),
                  ),
                ]),
              ),
            ),
        ),
        // ACTIVO when the month began
        eb(
          eb
            .selectFrom('ingreso_historial as h2')
            .select('h2.hacia')
            .whereRef('h2.ingreso_id', '=', 'i.id')
            .where(effectiveBefore('h2', q.start, q.startInstant))
            .orderBy('h2.id', 'desc')
            .limit(1),
          '=',
          'ACTIVO',
        ),
        // no history at all: from fecha_inicio to fecha_fin
        eb.and([
          eb.not(eb.exists(eb.selectFrom('ingreso_historial as h3').select('h3.id').whereRef('h3.ingreso_id', '=', 'i.id'))),
          eb('i.estado', '!=', 'SUSPENDIDO'),
          eb('i.fecha_inicio', '<', q.end),
          eb.or([eb('i.fecha_fin', 'is', null), eb('i.fecha_fin', '>=', q.start)]),
        ]),
      ]),
    );
}
