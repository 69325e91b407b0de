import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// The dashboard and the capitation report at 100,000 patients (issue 6; docs/performance.md items 4 and 5;
// docs/decisions/0012-dashboard-cache-and-data-version.md).
//
// 1. patients.ultimo_monitoreo: the fecha of the patient's latest non-voided MONITOREO record, any cycle (null
//    when none). Kept by triggers on exam_records (insert; void, the only change a record allows) and on
//    ingresos (a change of paciente_id, which the application never makes), in the same statement as the
//    change, so no code can forget it. "Active patients without monitoring in the last 90 days" becomes an
//    index range instead of a correlated subquery per patient through ingresos into exam_records.
// 2. dashboard_version: a counter bumped by every change of patients or ingresos (exam records reach it
//    through ultimo_monitoreo), so the computed dashboard can be cached per (today, version) and stay correct
//    across processes. PostgreSQL: 16 slots, bumped once per statement in the slot of the backend
//    (pg_backend_pid() % 16): a transaction only ever locks one slot, and concurrent writers wait on each
//    other only when their backends share a slot. The version is the sum of the slots. SQLite has one writer
//    at a time anyway: one slot, bumped per row.
// 3. Indexes for the other figures: open Ingresos by fecha_inicio (month 18 and beyond), Ingresos started and
//    finished in a month, the active patients by ultimo_monitoreo and in capitation order.

const PG_SLOTS = 16;

/** Latest non-voided monitoring fecha of the patient `pacienteId` (an SQL expression), any cycle. */
const latestMonitoreo = (pacienteId: string) =>
  `(select max(e.fecha) from ingresos i inner join exam_records e on e.ingreso_id = i.id
     where i.paciente_id = ${pacienteId} and e.kind = 'MONITOREO' and e.anulado_at is null)`;

/** A new record raises the date when later; no write (and no version bump on SQLite) otherwise. */
const onInsert = `update patients set ultimo_monitoreo = new.fecha
  where id = (select paciente_id from ingresos where id = new.ingreso_id)
    and (ultimo_monitoreo is null or ultimo_monitoreo < new.fecha);`;
/** A void recomputes the date from the patient's remaining records (two index ranges). */
const onVoid = `update patients set ultimo_monitoreo = ${latestMonitoreo('patients.id')}
  where id = (select paciente_id from ingresos where id = new.ingreso_id);`;
const onMove = `update patients set ultimo_monitoreo = ${latestMonitoreo('patients.id')}
  where id in (old.paciente_id, new.paciente_id);`;

const INSERT_WHEN = `new.kind = 'MONITOREO'`;
const VOID_WHEN = `new.kind = 'MONITOREO' and old.anulado_at is null and new.anulado_at is not null`;
const MOVE_WHEN = `old.paciente_id <> new.paciente_id`;

/** The triggers that keep ultimo_monitoreo (same names on both engines). */
const MONITOREO_TRIGGERS = [
  { name: 'exam_records_monitoreo_insert', event: 'insert', table: 'exam_records', when: INSERT_WHEN, body: onInsert },
  { name: 'exam_records_monitoreo_void', event: 'update of anulado_at', table: 'exam_records', when: VOID_WHEN, body: onVoid },
  { name: 'ingresos_monitoreo_move', event: 'update of paciente_id', table: 'ingresos', when: MOVE_WHEN, body: onMove },
] as const;
/** Those that fire on insert, and what they keep: for the benchmark's loader (bench/load-triggers.ts). */
export const INSERT_TRIGGERS = MONITOREO_TRIGGERS.filter((t) => t.event === 'insert').map((t) => ({
  table: t.table,
  name: () => t.name,
  effect: 'patients.ultimo_monitoreo',
}));

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);

  // 1. ultimo_monitoreo, backfilled from the records that exist, then kept by triggers.
  await db.schema.alterTable('patients').addColumn('ultimo_monitoreo', 'text').execute();
  await sql`update patients set ultimo_monitoreo = m.f
    from (select i.paciente_id as pid, max(e.fecha) as f
            from exam_records e inner join ingresos i on i.id = e.ingreso_id
           where e.kind = 'MONITOREO' and e.anulado_at is null
           group by i.paciente_id) as m
    where m.pid = patients.id`.execute(db);

  for (const t of MONITOREO_TRIGGERS) {
    if (pg) {
      await sql.raw(`create function ${t.name}() returns trigger language plpgsql as $$ begin ${t.body} return null; end $$`).execute(db);
      await sql.raw(`create trigger ${t.name} after ${t.event} on ${t.table} for each row when (${t.when}) execute function ${t.name}()`).execute(db);
    } else {
      await sql.raw(`create trigger ${t.name} after ${t.event} on ${t.table} when ${t.when} begin ${t.body} end`).execute(db);
    }
  }

  // 2. The data version of the dashboard.
  await db.schema
    .createTable('dashboard_version')
    .addColumn('slot', 'integer', (c) => c.primaryKey())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .execute();
  await db
    .insertInto('dashboard_version')
    .values(Array.from({ length: pg ? PG_SLOTS : 1 }, (_, slot) => ({ slot, n: 0 })))
    .execute();
  if (pg) {
    await sql
      .raw(
        `create function dashboard_version_bump() returns trigger language plpgsql as $$ begin
          update dashboard_version set n = n + 1 where slot = pg_backend_pid() % ${PG_SLOTS};
          return null;
        end $$`,
      )
      .execute(db);
    for (const table of ['patients', 'ingresos']) {
      await sql
        .raw(`create trigger ${table}_dashboard_version after insert or update or delete on ${table}
          for each statement execute function dashboard_version_bump()`)
        .execute(db);
    }
  } else {
    for (const table of ['patients', 'ingresos']) {
      for (const op of ['insert', 'update', 'delete']) {
        await sql
          .raw(`create trigger ${table}_dashboard_version_${op} after ${op} on ${table}
            begin update dashboard_version set n = n + 1; end`)
          .execute(db);
      }
    }
  }

  // 3. Indexes.
  // Active patients without recent monitoring: a range of dates (and the nulls: never monitored).
  await db.schema
    .createIndex('patients_active_monitoreo_idx')
    .on('patients')
    .columns(['ultimo_monitoreo', 'id'])
    .where(sql.ref('activo_desde'), 'is not', null)
    .execute();
  // capita.csv of the current month: the active patients in the report's order, a keyset page a range.
  await db.schema
    .createIndex('patients_active_capita_idx')
    .on('patients')
    .columns(['entidad_salud', 'apellido_norm', 'nombre_norm', 'id'])
    .where(sql.ref('activo_desde'), 'is not', null)
    .execute();
  // Open Ingresos at month 18 or beyond, oldest first, and their count.
  await db.schema
    .createIndex('ingresos_open_fecha_idx')
    .on('ingresos')
    .columns(['fecha_inicio', 'id'])
    .where(sql.ref('estado'), 'in', ['ACTIVO', 'SUSPENDIDO'])
    .execute();
  // Cycles started and finished in a month.
  await db.schema.createIndex('ingresos_fecha_inicio_idx').on('ingresos').column('fecha_inicio').execute();
  await db.schema.createIndex('ingresos_fecha_fin_idx').on('ingresos').column('fecha_fin').where(sql.ref('fecha_fin'), 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  for (const index of ['ingresos_fecha_fin_idx', 'ingresos_fecha_inicio_idx', 'ingresos_open_fecha_idx', 'patients_active_capita_idx', 'patients_active_monitoreo_idx']) {
    await db.schema.dropIndex(index).execute();
  }
  const drops: [string, string][] = [
    ['exam_records_monitoreo_insert', 'exam_records'],
    ['exam_records_monitoreo_void', 'exam_records'],
    ['ingresos_monitoreo_move', 'ingresos'],
  ];
  if (pg) {
    for (const [name, table] of [...drops, ['patients_dashboard_version', 'patients'], ['ingresos_dashboard_version', 'ingresos']] as const) {
      await sql.raw(`drop trigger if exists ${name} on ${table}`).execute(db);
    }
    for (const [name] of drops) await sql.raw(`drop function if exists ${name}()`).execute(db);
    await sql`drop function if exists dashboard_version_bump()`.execute(db);
  } else {
    for (const [name] of drops) await sql.raw(`drop trigger if exists ${name}`).execute(db);
    for (const table of ['patients', 'ingresos']) {
      for (const op of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists ${table}_dashboard_version_${op}`).execute(db);
    }
  }
  await db.schema.dropTable('dashboard_version').execute();
  await db.schema.alterTable('patients').dropColumn('ultimo_monitoreo').execute();
}
