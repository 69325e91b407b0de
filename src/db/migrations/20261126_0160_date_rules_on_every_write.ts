import { sql, type Kysely } from 'kysely';
import * as datesWithinTheirCycle from './20261125_0041_dates_within_their_cycle.js';
import { isPostgres } from './util.js';

// Every date rule of the records held by the database on UPDATE as on INSERT (issue 25, decision 0063). Migration
// 0041 checked an exam's date and a cycle's start when they were written; an update could still terminate a cycle
// before its exams, move its start past them, move the birth date past a start, or date a status change before
// the previous one (a status history that runs backwards). The rules, each a guard that only refuses:
//  - an exam record lies within its Ingreso (fecha_inicio ≤ fecha ≤ fecha_fin);
//  - an Ingreso starts on or after its patient's birth, ends on or after its start, starts no later than any of
//    its exams and status changes, and ends no earlier than any of them;
//  - a status history row is not dated before an earlier row of its Ingreso (nor after a later one, when a row is
//    changed), and a new status change is not dated before the cycle's exams.
// Each check runs only when the value it is about changes: rows stored before stay readable, and changeable in
// their other columns (the administrators' page /users/fechas/ lists those that break a rule). Nothing existing
// is checked or rewritten here, so the migration never fails on old data.
//
// Each refusal says `date rule <code>: …` (RAISE(ABORT) on SQLite; on PostgreSQL SQLSTATE 23514,
// check_violation), which the application maps back to the field the rule is about (src/db/errors.ts). On
// PostgreSQL a guard that reads another table first locks the row its answer depends on, so that two writers
// cannot each pass their check against the other's state: an exam record shares its Ingreso's row (the exam route
// already holds that lock), a history row and a new or moved Ingreso take the row the application's own writes
// take next anyway (the Ingreso for a status change, the patient, whose activo_desde the Ingreso's triggers
// rewrite). SQLite has one writer at a time.

/** The codes of the refusals: the application recognises them (src/db/errors.ts, DATE_RULE_CODES). */
export const DATE_RULE_MESSAGES = {
  exam_outside_cycle: 'exam_records fecha outside its Ingreso',
  start_before_birth: "ingresos fecha_inicio before the patient's birth",
  end_before_start: 'ingresos fecha_fin before its fecha_inicio',
  start_after_exam: 'ingresos fecha_inicio after one of its exam records',
  end_before_exam: 'ingresos fecha_fin before one of its exam records',
  start_after_status_change: 'ingresos fecha_inicio after one of its status changes',
  end_before_status_change: 'ingresos fecha_fin before one of its status changes',
  birth_after_start: 'patients fecha_nacimiento after the start of one of their Ingresos',
  history_out_of_order: 'ingreso_historial fecha out of order with the other changes of its Ingreso',
  status_change_before_exam: 'ingreso_historial status change dated before an exam record of its Ingreso',
} as const;
export type DateRuleCode = keyof typeof DATE_RULE_MESSAGES;

type Engine = 'sqlite' | 'postgres';

interface Guard {
  name: string;
  table: 'exam_records' | 'ingresos' | 'patients' | 'ingreso_historial';
  event: 'insert' | 'update';
  /** For an update: the columns whose change (in the SET clause, and actually different) fires the check. */
  columns?: readonly string[];
  /** An extra condition on the new row alone (no subquery: PostgreSQL's WHEN allows none). */
  when?: string;
  code: DateRuleCode;
  /** True when the new row breaks the rule (the same SQL on both engines). */
  breaks: string;
  /** PostgreSQL: the row locked before the check. */
  lock?: string;
}

const examOutside = `exists (select 1 from ingresos i where i.id = new.ingreso_id
  and (new.fecha < i.fecha_inicio or new.fecha > i.fecha_fin))`;
const shareIngreso = 'perform 1 from ingresos where id = new.ingreso_id for share;';
const lockIngreso = 'perform 1 from ingresos where id = new.ingreso_id for no key update;';
const lockPatient = 'perform 1 from patients where id = new.paciente_id for no key update;';
const startBeforeBirth = `exists (select 1 from patients p where p.id = new.paciente_id and new.fecha_inicio < p.fecha_nacimiento)`;

const GUARDS: readonly Guard[] = [
  { name: 'exam_records_fecha_in_cycle', table: 'exam_records', event: 'insert', code: 'exam_outside_cycle', breaks: examOutside, lock: shareIngreso },
  { name: 'exam_records_fecha_in_cycle_update', table: 'exam_records', event: 'update', columns: ['fecha', 'ingreso_id'], code: 'exam_outside_cycle', breaks: examOutside, lock: shareIngreso },
  { name: 'ingresos_start_after_birth_insert', table: 'ingresos', event: 'insert', code: 'start_before_birth', breaks: startBeforeBirth, lock: lockPatient },
  { name: 'ingresos_start_after_birth_update', table: 'ingresos', event: 'update', columns: ['fecha_inicio', 'paciente_id'], code: 'start_before_birth', breaks: startBeforeBirth, lock: lockPatient },
  { name: 'ingresos_end_after_start_insert', table: 'ingresos', event: 'insert', code: 'end_before_start', breaks: 'new.fecha_fin < new.fecha_inicio' },
  { name: 'ingresos_end_after_start_update', table: 'ingresos', event: 'update', columns: ['fecha_inicio', 'fecha_fin'], code: 'end_before_start', breaks: 'new.fecha_fin < new.fecha_inicio' },
  {
    name: 'ingresos_start_not_after_exams',
    table: 'ingresos',
    event: 'update',
    columns: ['fecha_inicio'],
    code: 'start_after_exam',
    breaks: 'exists (select 1 from exam_records e where e.ingreso_id = new.id and e.fecha < new.fecha_inicio)',
  },
  {
    name: 'ingresos_end_not_before_exams',
    table: 'ingresos',
    event: 'update',
    columns: ['fecha_fin'],
    when: 'new.fecha_fin is not null',
    code: 'end_before_exam',
    breaks: 'exists (select 1 from exam_records e where e.ingreso_id = new.id and e.fecha > new.fecha_fin)',
  },
  {
    name: 'ingresos_start_not_after_changes',
    table: 'ingresos',
    event: 'update',
    columns: ['fecha_inicio'],
    code: 'start_after_status_change',
    breaks: 'exists (select 1 from ingreso_historial h where h.ingreso_id = new.id and h.desde is not null and h.fecha < new.fecha_inicio)',
  },
  {
    name: 'ingresos_end_not_before_changes',
    table: 'ingresos',
    event: 'update',
    columns: ['fecha_fin'],
    when: 'new.fecha_fin is not null',
    code: 'end_before_status_change',
    breaks: 'exists (select 1 from ingreso_historial h where h.ingreso_id = new.id and h.fecha > new.fecha_fin)',
  },
  {
    name: 'patients_birth_not_after_cycles',
    table: 'patients',
    event: 'update',
    columns: ['fecha_nacimiento'],
    code: 'birth_after_start',
    breaks: 'exists (select 1 from ingresos i where i.paciente_id = new.id and i.fecha_inicio < new.fecha_nacimiento)',
  },
  {
    name: 'ingreso_historial_in_order',
    table: 'ingreso_historial',
    event: 'insert',
    code: 'history_out_of_order',
    breaks: 'exists (select 1 from ingreso_historial h where h.ingreso_id = new.ingreso_id and h.fecha > new.fecha)',
    lock: lockIngreso,
  },
  {
    name: 'ingreso_historial_in_order_update',
    table: 'ingreso_historial',
    event: 'update',
    columns: ['fecha', 'ingreso_id'],
    code: 'history_out_of_order',
    breaks: `exists (select 1 from ingreso_historial h where h.ingreso_id = new.ingreso_id and h.id <> new.id
      and ((h.id < new.id and h.fecha > new.fecha) or (h.id > new.id and h.fecha < new.fecha)))`,
    lock: lockIngreso,
  },
  {
    // The opening row (desde null) is written when the cycle has no exams; a change is the latest of the cycle.
    name: 'ingreso_historial_after_exams',
    table: 'ingreso_historial',
    event: 'insert',
    when: 'new.desde is not null',
    code: 'status_change_before_exam',
    breaks: 'exists (select 1 from exam_records e where e.ingreso_id = new.ingreso_id and e.fecha > new.fecha)',
    lock: lockIngreso,
  },
];

/** Every trigger this migration adds, with its table and event: the benchmark's generator derives its list from it. */
export const DATE_RULE_TRIGGERS: readonly { table: string; name: string; event: 'insert' | 'update' }[] = GUARDS.map(({ table, name, event }) => ({ table, name, event }));

const message = (code: DateRuleCode) => `date rule ${code}: ${DATE_RULE_MESSAGES[code]}`.replace(/'/g, "''");

/** The trigger's own condition: the columns it is about changed (update), and its `when`. */
function condition(guard: Guard, engine: Engine): string {
  const differs = engine === 'sqlite' ? 'is not' : 'is distinct from';
  const parts: string[] = [];
  if (guard.columns) parts.push(`(${guard.columns.map((c) => `new.${c} ${differs} old.${c}`).join(' or ')})`);
  if (guard.when) parts.push(`(${guard.when})`);
  return parts.join(' and ');
}

const timing = (guard: Guard) => `before ${guard.event}${guard.columns ? ` of ${guard.columns.join(', ')}` : ''} on ${guard.table}`;

async function createGuard(db: Kysely<any>, guard: Guard): Promise<void> {
  if (isPostgres(db)) {
    await sql
      .raw(
        `create function ${guard.name}() returns trigger language plpgsql as $$
        begin
          ${guard.lock ?? ''}
          if ${guard.breaks} then
            raise exception using errcode = 'check_violation', message = '${message(guard.code)}';
          end if;
          return new;
        end $$`,
      )
      .execute(db);
    const when = condition(guard, 'postgres');
    await sql
      .raw(`create trigger ${guard.name} ${timing(guard)} for each row ${when ? `when (${when}) ` : ''}execute function ${guard.name}()`)
      .execute(db);
    return;
  }
  const when = [condition(guard, 'sqlite'), `(${guard.breaks})`].filter((p) => p !== '').join(' and ');
  await sql.raw(`create trigger ${guard.name} ${timing(guard)} when ${when} begin select raise(abort, '${message(guard.code)}'); end`).execute(db);
}

async function dropGuard(db: Kysely<any>, guard: Guard): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`drop trigger ${guard.name} on ${guard.table}`).execute(db);
    await sql.raw(`drop function ${guard.name}()`).execute(db);
  } else {
    await sql.raw(`drop trigger ${guard.name}`).execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  // Migration 0041's two guards are replaced by the ones above (same rules, a code the application reads, and on
  // update too).
  await datesWithinTheirCycle.down(db);
  for (const guard of GUARDS) await createGuard(db, guard);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const guard of GUARDS) await dropGuard(db, guard);
  await datesWithinTheirCycle.up(db);
}
