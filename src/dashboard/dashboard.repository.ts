// Every figure of the dashboard, computed by SQL aggregation (no table is loaded into JavaScript), and the
// keyset-paged query behind the capitation report.

import { sql, type Expression, type SqlBool } from 'kysely';
import type { Executor } from '../db/database.js';
import { mesCapitaLowerBounds } from './dashboard.rules.js';

const count = sql<number>`cast(count(*) as integer)`;

export interface StatusCounts {
  activos: number;
  suspendidos: number;
}

/** Patients with an ACTIVO and with a SUSPENDIDO Ingreso (at most one open Ingreso per patient). */
export async function countPatientsByOpenStatus(db: Executor): Promise<StatusCounts> {
  const rows = await db
    .selectFrom('ingresos')
    .select(['estado', sql<number>`cast(count(distinct paciente_id) as integer)`.as('n')])
    .where('estado', 'in', ['ACTIVO', 'SUSPENDIDO'])
    .groupBy('estado')
    .execute();
  const of = (estado: string) => Number(rows.find((r) => r.estado === estado)?.n ?? 0);
  return { activos: of('ACTIVO'), suspendidos: of('SUSPENDIDO') };
}

/** Ingresos started (fecha_inicio) and finished (fecha_fin) within [start, end). */
export async function countCyclesInMonth(db: Executor, start: string, end: string): Promise<{ iniciados: number; finalizados: number }> {
  const row = await db
    .selectFrom('ingresos')
    .select([
      sql<number>`cast(coalesce(sum(case when fecha_inicio >= ${start} and fecha_inicio < ${end} then 1 else 0 end), 0) as integer)`.as('iniciados'),
      sql<number>`cast(coalesce(sum(case when fecha_fin >= ${start} and fecha_fin < ${end} then 1 else 0 end), 0) as integer)`.as('finalizados'),
    ])
    .where((eb) =>
      eb.or([
        eb.and([eb('fecha_inicio', '>=', start), eb('fecha_inicio', '<', end)]),
        eb.and([eb('fecha_fin', '>=', start), eb('fecha_fin', '<', end)]),
      ]),
    )
    .executeTakeFirstOrThrow();
  return { iniciados: Number(row.iniciados), finalizados: Number(row.finalizados) };
}

export interface GroupCount {
  key: string;
  n: number;
}

/** Patients with an open (ACTIVO or SUSPENDIDO) Ingreso, grouped by programa or by entidad_salud. */
export async function countOpenPatientsBy(db: Executor, column: 'programa' | 'entidad_salud'): Promise<GroupCount[]> {
  const rows = await db
    .selectFrom('patients as p')
    .innerJoin('ingresos as i', 'i.paciente_id', 'p.id')
    .where('i.estado', 'in', ['ACTIVO', 'SUSPENDIDO'])
    .select([`p.${column} as key`, sql<number>`cast(count(distinct p.id) as integer)`.as('n')])
    .groupBy(`p.${column}`)
    .orderBy(`p.${column}`)
    .execute();
  return rows.map((r) => ({ key: String(r.key), n: Number(r.n) }));
}

/**
 * ACTIVO Ingresos per mes_capita 1..18 (index 0 is month 1). One CASE over the fecha_inicio bounds buckets
 * the rows in SQL, so at most 18 groups come back.
 */
export async function countActiveByMesCapita(db: Executor, today: string): Promise<number[]> {
  const bounds = mesCapitaLowerBounds(today);
  const bucket = sql<number>`case ${sql.join(
    bounds.map((b, i) => sql`when fecha_inicio >= ${b} then ${sql.lit(i + 1)}`),
    sql` `,
  )} else ${sql.lit(bounds.length + 1)} end`;
  // Bucketed in a subquery so the outer GROUP BY names a column (PostgreSQL will not match two parameterised CASEs).
  const rows = await db
    .selectFrom((qb) => qb.selectFrom('ingresos').select(bucket.as('mes')).where('estado', '=', 'ACTIVO').as('b'))
    .select(['b.mes', count.as('n')])
    .groupBy('b.mes')
    .execute();
  const counts = Array.from({ length: bounds.length + 1 }, () => 0);
  for (const r of rows) counts[Number(r.mes) - 1] = Number(r.n);
  return counts;
}

export interface CapitaByEntidad {
  entidad: string;
  pacientes: number;
  /** hundredths of a peso */
  total: number;
}

/** This month's capitation: valor_capita summed over patients with an ACTIVO Ingreso, per entidad_salud. */
export async function sumCapitaByEntidad(db: Executor): Promise<CapitaByEntidad[]> {
  const rows = await db
    .selectFrom('patients as p')
    .where((eb) => eb.exists(eb.selectFrom('ingresos as i').select('i.id').whereRef('i.paciente_id', '=', 'p.id').where('i.estado', '=', 'ACTIVO')))
    .select(['p.entidad_salud', count.as('pacientes'), sql<number>`cast(coalesce(sum(p.valor_capita), 0) as bigint)`.as('total')])
    .groupBy('p.entidad_salud')
    .orderBy('p.entidad_salud')
    .execute();
  return rows.map((r) => ({ entidad: r.entidad_salud, pacientes: Number(r.pacientes), total: Number(r.total) }));
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

/** Open Ingresos at mes_capita 18 or beyond (fecha_inicio before `before`), oldest first, with their total. */
export async function listIngresosAtLimit(db: Executor, before: string, limit: number): Promise<{ total: number; rows: LimitIngreso[] }> {
  const base = db
    .selectFrom('ingresos as i')
    .innerJoin('patients as p', 'p.id', 'i.paciente_id')
    .where('i.estado', 'in', ['ACTIVO', 'SUSPENDIDO'])
    .where('i.fecha_inicio', '<', before);
  const [totalRow, rows] = await Promise.all([
    base.select(count.as('n')).executeTakeFirstOrThrow(),
    base
      .select(['i.id as ingresoId', 'p.id as pacienteId', 'p.nombre', 'p.apellido', 'p.documento', 'i.estado', 'i.fecha_inicio as fechaInicio'])
      .orderBy('i.fecha_inicio')
      .orderBy('i.id')
      .limit(limit)
      .execute(),
  ]);
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
 * One page of the patients billable in a month, ordered by entidad_salud, apellido, nombre, id, after the
 * keyset `after`. This month: patients with an ACTIVO Ingreso. A past month: patients with an Ingreso that
 * was ACTIVO at some time in that month according to ingreso_historial (see billableIngresos); the row
 * carries the fecha_inicio of the latest such Ingreso.
 */
export async function findCapitaPage(db: Executor, q: CapitaQuery, after: CapitaRow | null, pageSize: number): Promise<CapitaRow[]> {
  let query = db
    .with('billable', () =>
      q.kind === 'current' ? db.selectFrom('ingresos as i').select(['i.id', 'i.paciente_id']).where('i.estado', '=', 'ACTIVO') : billableIngresos(db, q),
    )
    // The latest billable Ingreso of each patient, so a patient appears once.
    .with('latest', (qc) => qc.selectFrom('billable').select((eb) => ['paciente_id', eb.fn.max('id').as('id')]).groupBy('paciente_id'))
    .selectFrom('patients as p')
    .innerJoin('latest as l', 'l.paciente_id', 'p.id')
    .innerJoin('ingresos as i', 'i.id', 'l.id')
    .select([
      'p.id',
      'p.documento',
      'p.tipo_documento',
      'p.nombre',
      'p.apellido',
      'p.entidad_salud',
      'p.programa',
      'p.valor_capita',
      'i.fecha_inicio',
      'p.apellido_norm',
      'p.nombre_norm',
    ]);
  if (q.entidad !== null) query = query.where('p.entidad_salud', '=', q.entidad);
  if (after !== null) {
    query = query.where((eb) =>
      eb(
        eb.refTuple('p.entidad_salud', 'p.apellido_norm', 'p.nombre_norm', 'p.id'),
        '>',
        eb.tuple(after.entidad_salud, after.apellido_norm, after.nombre_norm, after.id),
      ),
    );
  }
  return query
    .orderBy('p.entidad_salud')
    .orderBy('p.apellido_norm')
    .orderBy('p.nombre_norm')
    .orderBy('p.id')
    .limit(pageSize)
    .execute();
}

/**
 * The Ingresos (id, paciente_id) that were ACTIVO at some time in the month [start, end), read from ingreso_historial.
 * A history row takes effect on: the Ingreso's fecha_inicio when it opened it (desde null); else its `fecha`
 * (fecha_terminacion for a termination); else, for suspension and reactivation, its timestamp `at`, compared
 * with the month's bounds as instants in TIME_ZONE. An Ingreso qualifies when a change to ACTIVO took effect
 * within the month, or when the last change that took effect before the month left it ACTIVO. An Ingreso
 * without any history row (loaded by other means) counts from fecha_inicio to fecha_fin unless SUSPENDIDO.
 */
function billableIngresos(db: Executor, q: CapitaQuery) {
  const effectiveBefore = (h: 'h' | 'h2', date: string, instant: string): Expression<SqlBool> =>
    sql<SqlBool>`((${sql.ref(`${h}.desde`)} is null and i.fecha_inicio < ${date})
      or (${sql.ref(`${h}.desde`)} is not null and ${sql.ref(`${h}.fecha`)} is not null and ${sql.ref(`${h}.fecha`)} < ${date})
      or (${sql.ref(`${h}.desde`)} is not null and ${sql.ref(`${h}.fecha`)} is null and ${sql.ref(`${h}.at`)} < ${instant}))`;
  return db
    .selectFrom('ingresos as i')
    .select(['i.id', 'i.paciente_id'])
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
            .where(sql<SqlBool>`not ${effectiveBefore('h', q.start, q.startInstant)}`),
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
