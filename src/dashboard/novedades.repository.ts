// Every SQL statement of the month's enrolment report per insurer (GET /dashboard/novedades/, decision 0130).
// The enrolled patients are the capitation list, read through the very builders capita.csv uses
// (currentCapitaPatients, pastCapitaPatients); the novedades are the month's changes of estado (ingreso_historial,
// dated as the capitation report dates them) and the patients' changes of insurer, read from the
// audit trail's patient.update entries.

import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { isPostgres, type Executor } from '../db/database.js';
import { pageOf } from '../shared/paging.js';
import {
  CAPITA_PATIENT_COLUMNS,
  currentCapitaPatients,
  findCapitaRowsOfIngresos,
  pastCapitaPatients,
  type CapitaQuery,
  type CapitaRow,
} from './dashboard.repository.js';
import type { NovedadTipo } from './novedades.rules.js';

export interface CapitaTotals {
  pacientes: number;
  /** hundredths of a peso */
  total: number;
}

/** How many patients the month's capitation list holds and the sum of their valor_capita: one aggregate in SQL. */
export async function capitaTotals(db: Executor, q: CapitaQuery): Promise<CapitaTotals> {
  const pacientes = sql<number | string>`cast(count(*) as integer)`.as('pacientes');
  const total = sql<number | string>`coalesce(sum(p.valor_capita), 0)`.as('total');
  const row =
    q.kind === 'current'
      ? await currentCapitaPatients(db, q.entidad, q.end).select([pacientes, total]).executeTakeFirstOrThrow()
      : await pastCapitaPatients(db, q).select([pacientes, total]).executeTakeFirstOrThrow();
  return { pacientes: Number(row.pacientes), total: Number(row.total) };
}

/**
 * One page of the capitation list, in capita.csv's order (entidad_salud, apellido, nombre, id), with the list's
 * totals; a page past the last is the last (decisions §5). This month: the count and sum are one aggregate over a
 * range of patients_active_capita_idx, the page a further range of it. A past month, as capita.csv reads it: the
 * billable Ingresos in report order, computed from the history once (with the list's totals as a window over it;
 * a LIMIT there would let PostgreSQL walk the patients in order and rescan the billable set for each), then the
 * page's rows by their ids.
 */
export async function findCapitaPage(
  db: Executor,
  q: CapitaQuery,
  requestedPage: number,
  pageSize: number,
): Promise<{ rows: CapitaRow[]; totals: CapitaTotals; page: number; pageCount: number }> {
  if (q.kind === 'current') {
    const totals = await capitaTotals(db, q);
    const { page, pageCount, offset } = pageOf(requestedPage, totals.pacientes, pageSize);
    const rows = await currentCapitaPatients(db, q.entidad, q.end)
      .select([...CAPITA_PATIENT_COLUMNS, sql<string>`p.activo_desde`.as('fecha_inicio')])
      .orderBy('p.entidad_salud')
      .orderBy('p.apellido_norm')
      .orderBy('p.nombre_norm')
      .orderBy('p.id')
      .limit(pageSize)
      .offset(offset)
      .execute();
    return { rows, totals, page, pageCount };
  }
  const ordered = await pastCapitaPatients(db, q)
    .select(['l.id', sql<number | string>`count(*) over ()`.as('list_count'), sql<number | string>`sum(p.valor_capita) over ()`.as('list_total')])
    .orderBy('p.entidad_salud')
    .orderBy('p.apellido_norm')
    .orderBy('p.nombre_norm')
    .orderBy('p.id')
    .execute();
  const first = ordered[0];
  const totals = first ? { pacientes: Number(first.list_count), total: Number(first.list_total) } : { pacientes: 0, total: 0 };
  const { page, pageCount, offset } = pageOf(requestedPage, totals.pacientes, pageSize);
  const ids = ordered.slice(offset, offset + pageSize).map((r) => Number(r.id));
  return { rows: await findCapitaRowsOfIngresos(db, ids), totals, page, pageCount };
}

/** One novedad: a change of estado of an Ingreso (origen 0) or of a patient's insurer (origen 1). */
export interface NovedadRow {
  origen: number;
  /** the history row's or the trail entry's id */
  id: number;
  tipo: NovedadTipo;
  /** the date the change took effect ('YYYY-MM-DD'), or the instant it was recorded when it has no date */
  orden: string;
  motivo: string | null;
  entidad_anterior: string | null;
  entidad_nueva: string | null;
  paciente_id: number;
  documento: string;
  tipo_documento: string;
  nombre: string;
  apellido: string;
  entidad_salud: string;
  programa: string;
}

/** The month of one insurer. */
export type NovedadesQuery = CapitaQuery & { entidad: string };

/** The patient's columns every novedad carries, the same in each branch of the union. */
const PATIENT_COLUMNS = [
  'p.id as paciente_id',
  'p.documento as documento',
  'p.tipo_documento as tipo_documento',
  'p.nombre as nombre',
  'p.apellido as apellido',
  'p.entidad_salud as entidad_salud',
  'p.programa as programa',
] as const;

/** The trail entries that changed a patient's entidad_salud carry this in their changes (diffFields' JSON). */
const ENTIDAD_CHANGED = '%"entidad_salud":[%';

/**
 * The month's changes of estado of the Ingresos of the insurer's patients (the patient's entidad_salud as it is,
 * as capita.csv selects them), each in the month it took effect as the capitation report dates it
 * (effectiveBefore): an opening on its Ingreso's fecha_inicio, a change on its `fecha`, an undated change at its
 * timestamp. Those three are exclusive, so the month's changes are the union of three ranges, each over an index
 * (ingresos_fecha_inicio_idx, ingreso_historial_fecha_idx, ingreso_historial_at_idx) instead of a scan of the
 * whole history. The CASE is novedadOfChange.
 */
function estadoChanges(db: Executor, q: NovedadesQuery) {
  const columns = (orden: RawBuilder<string>) =>
    [
      sql<number>`0`.as('origen'),
      'h.id as id',
      sql<NovedadTipo>`case when h.desde is null then 'APERTURA' when h.hacia = 'SUSPENDIDO' then 'SUSPENSION'
        when h.hacia = 'TERMINADO' then 'TERMINACION' else 'REACTIVACION' end`.as('tipo'),
      orden.as('orden'),
      'h.motivo as motivo',
      sql<string | null>`cast(null as text)`.as('entidad_anterior'),
      sql<string | null>`cast(null as text)`.as('entidad_nueva'),
      ...PATIENT_COLUMNS,
    ] as const;
  const base = () =>
    db
      .selectFrom('ingreso_historial as h')
      .innerJoin('ingresos as i', 'i.id', 'h.ingreso_id')
      .innerJoin('patients as p', 'p.id', 'i.paciente_id')
      .where('p.entidad_salud', '=', q.entidad)
      .where('i.fecha_inicio', '<', q.end);
  const opened = base()
    .where('h.desde', 'is', null)
    .where('i.fecha_inicio', '>=', q.start)
    .select(columns(sql<string>`i.fecha_inicio`));
  const dated = base()
    .where('h.desde', 'is not', null)
    .where('h.fecha', '>=', q.start)
    .where('h.fecha', '<', q.end)
    .select(columns(sql<string>`h.fecha`));
  const undated = base()
    .where('h.desde', 'is not', null)
    .where('h.fecha', 'is', null)
    .where('h.at', '>=', q.startInstant)
    .where('h.at', '<', q.endInstant)
    .select(columns(sql<string>`h.at`));
  return opened.unionAll(dated).unionAll(undated);
}

/**
 * The month's changes of insurer that left or reached `entidad`: the trail's patient.update entries recorded in
 * the month (bounds as instants in TIME_ZONE) whose changes name entidad_salud. No write of the application
 * changes a patient's insurer without such an entry, in the same transaction (decision 0130).
 */
function entidadChanges(db: Executor, q: NovedadesQuery) {
  const pg = isPostgres(db);
  const side = (n: 0 | 1) =>
    pg ? sql<string | null>`(a.changes::jsonb -> 'entidad_salud' ->> ${sql.lit(n)})` : sql<string | null>`json_extract(a.changes, ${sql.lit(`$.entidad_salud[${n}]`)})`;
  return db
    .selectFrom('audit_log as a')
    .innerJoin('patients as p', 'p.id', 'a.patient_id')
    .where('a.at', '>=', q.startInstant)
    .where('a.at', '<', q.endInstant)
    .where('a.action', '=', 'patient.update')
    .where(sql<SqlBool>`a.changes like ${sql.lit(ENTIDAD_CHANGED)}`)
    .where((eb) => eb.or([eb(side(0), '=', q.entidad), eb(side(1), '=', q.entidad)]))
    .select([
      sql<number>`1`.as('origen'),
      'a.id as id',
      sql<NovedadTipo>`'CAMBIO_ENTIDAD'`.as('tipo'),
      'a.at as orden',
      sql<string | null>`cast(null as text)`.as('motivo'),
      side(0).as('entidad_anterior'),
      side(1).as('entidad_nueva'),
      ...PATIENT_COLUMNS,
    ]);
}

/** Both kinds of novedad as one subquery `n`. */
const allNovedades = (db: Executor, q: NovedadesQuery) => estadoChanges(db, q).unionAll(entidadChanges(db, q)).as('n');

/** How many novedades of each kind the month holds (kinds without any are absent). */
export async function countNovedades(db: Executor, q: NovedadesQuery): Promise<Map<NovedadTipo, number>> {
  const rows = await db
    .selectFrom(allNovedades(db, q))
    .select(['n.tipo', sql<number | string>`cast(count(*) as integer)`.as('n')])
    .groupBy('n.tipo')
    .execute();
  return new Map(rows.map((r) => [r.tipo, Number(r.n)]));
}

/** The novedades in date order (then history before trail, then id), after the keyset `after`, `limit` of them. */
export async function findNovedadesPage(
  db: Executor,
  q: NovedadesQuery,
  page: { after?: NovedadRow | null; offset?: number; limit: number },
): Promise<NovedadRow[]> {
  let query = db.selectFrom(allNovedades(db, q)).selectAll('n');
  const after = page.after ?? null;
  if (after !== null) {
    query = query.where((eb) => eb(eb.refTuple('n.orden', 'n.origen', 'n.id'), '>', eb.tuple(after.orden, after.origen, after.id)));
  }
  const rows = await query
    .orderBy('n.orden')
    .orderBy('n.origen')
    .orderBy('n.id')
    .limit(page.limit)
    .offset(page.offset ?? 0)
    .execute();
  return rows.map((r) => ({ ...r, origen: Number(r.origen), id: Number(r.id), paciente_id: Number(r.paciente_id) }));
}
