// The stored rows that break a date rule (decision 0063): written before the database held the rule on every write
// (migrations 0041 and 0160 check new writes only), or by a writer that got around it. Listed for the
// administrators (/users/fechas/), never rewritten: a person decides what the right date was. The benchmark's
// generator checks its fast load with the same queries (bench/generate.ts).

import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';

/** The rules a stored row can be found breaking (each the rule of one or two of the database's guards). */
export const LISTED_DATE_RULES = [
  'exam_outside_cycle',
  'start_before_birth',
  'end_before_start',
  'start_after_status_change',
  'end_before_status_change',
  'history_out_of_order',
] as const;
export type ListedDateRule = (typeof LISTED_DATE_RULES)[number];

export interface DateViolationRow {
  rule: ListedDateRule;
  patient_id: number;
  nombre: string;
  apellido: string;
  ingreso_id: number;
  /** The exam record or the history row at fault, when the rule is about one. */
  record_id: number | null;
  /** The date that breaks the rule… */
  fecha: string;
  /** …and the date it conflicts with. */
  against: string;
}

type Row = Omit<DateViolationRow, 'rule'>;

/**
 * One query per rule: the rows that break it, with their patient, the date at fault and the one it conflicts with.
 * Null dates (history rows from before `fecha` was written) break nothing.
 */
const QUERIES: Record<ListedDateRule, RawBuilder<Row>> = {
  exam_outside_cycle: sql<Row>`
    select p.id as patient_id, p.nombre, p.apellido, i.id as ingreso_id, e.id as record_id, e.fecha,
      case when e.fecha < i.fecha_inicio then i.fecha_inicio else i.fecha_fin end as against
    from exam_records e join ingresos i on i.id = e.ingreso_id join patients p on p.id = i.paciente_id
    where e.fecha < i.fecha_inicio or e.fecha > i.fecha_fin`,
  start_before_birth: sql<Row>`
    select p.id as patient_id, p.nombre, p.apellido, i.id as ingreso_id, null as record_id, i.fecha_inicio as fecha,
      p.fecha_nacimiento as against
    from ingresos i join patients p on p.id = i.paciente_id
    where i.fecha_inicio < p.fecha_nacimiento`,
  end_before_start: sql<Row>`
    select p.id as patient_id, p.nombre, p.apellido, i.id as ingreso_id, null as record_id, i.fecha_fin as fecha,
      i.fecha_inicio as against
    from ingresos i join patients p on p.id = i.paciente_id
    where i.fecha_fin < i.fecha_inicio`,
  start_after_status_change: sql<Row>`
    select p.id as patient_id, p.nombre, p.apellido, i.id as ingreso_id, null as record_id, i.fecha_inicio as fecha,
      (select min(h.fecha) from ingreso_historial h where h.ingreso_id = i.id and h.desde is not null) as against
    from ingresos i join patients p on p.id = i.paciente_id
    where exists (select 1 from ingreso_historial h where h.ingreso_id = i.id and h.desde is not null and h.fecha < i.fecha_inicio)`,
  end_before_status_change: sql<Row>`
    select p.id as patient_id, p.nombre, p.apellido, i.id as ingreso_id, null as record_id, i.fecha_fin as fecha,
      (select max(h.fecha) from ingreso_historial h where h.ingreso_id = i.id) as against
    from ingresos i join patients p on p.id = i.paciente_id
    where i.fecha_fin is not null and exists (select 1 from ingreso_historial h where h.ingreso_id = i.id and h.fecha > i.fecha_fin)`,
  history_out_of_order: sql<Row>`
    select p.id as patient_id, p.nombre, p.apellido, i.id as ingreso_id, h.id as record_id, h.fecha,
      (select max(b.fecha) from ingreso_historial b where b.ingreso_id = h.ingreso_id and b.id < h.id) as against
    from ingreso_historial h join ingresos i on i.id = h.ingreso_id join patients p on p.id = i.paciente_id
    where exists (select 1 from ingreso_historial b where b.ingreso_id = h.ingreso_id and b.id < h.id and b.fecha > h.fecha)`,
};

/** The rows breaking each rule, at most `limit` per rule (by patient, cycle and row), and whether there were more. */
export async function listDateViolations(db: Executor, limit = 200): Promise<{ rows: DateViolationRow[]; truncated: ListedDateRule[] }> {
  const rows: DateViolationRow[] = [];
  const truncated: ListedDateRule[] = [];
  for (const rule of LISTED_DATE_RULES) {
    const found = await sql<Row>`select * from (${QUERIES[rule]}) as v order by v.patient_id, v.ingreso_id, v.record_id limit ${limit + 1}`.execute(db);
    if (found.rows.length > limit) truncated.push(rule);
    for (const r of found.rows.slice(0, limit)) {
      rows.push({ ...r, rule, patient_id: Number(r.patient_id), ingreso_id: Number(r.ingreso_id), record_id: r.record_id === null ? null : Number(r.record_id) });
    }
  }
  return { rows, truncated };
}

/** How many stored rows break each rule (the benchmark's check after a load; 0 everywhere on a sound database). */
export async function countDateViolations(db: Executor): Promise<Record<ListedDateRule, number>> {
  const counts = {} as Record<ListedDateRule, number>;
  for (const rule of LISTED_DATE_RULES) {
    const { rows } = await sql<{ n: number | string }>`select cast(count(*) as integer) as n from (${QUERIES[rule]}) as v`.execute(db);
    counts[rule] = Number(rows[0]!.n);
  }
  return counts;
}
