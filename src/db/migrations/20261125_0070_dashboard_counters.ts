import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// The dashboard's figures kept by the database in the write's own transaction (issue 14, item 7; decision 0045),
// so no dashboard after a write runs an aggregate over the whole program:
//
// - dashboard_open_counts: the open (ACTIVO or SUSPENDIDO) Ingresos per (programa, entidad_salud, estado, month of
//   fecha_inicio), with the sum of their patients' valor_capita. mes_capita only ever changes at a month's start
//   (its bounds are month starts), so any "today" buckets these rows: status counts, counts by programa and
//   entidad_salud, the mes_capita chart, the capitation per entidad_salud and the Ingresos at month 18.
// - dashboard_cycle_counts: every Ingreso per month of its fecha_inicio (kind 'inicio') and of its fecha_fin
//   (kind 'fin'): the cycles started and finished in a month.
// - dashboard_monitoreo_counts: the active patients (activo_desde not null) per ultimo_monitoreo ('' when never
//   monitored): the stale-monitoring total for any cutoff is a sum over dates before it.
//
// Every adjustment is an upsert of a signed delta into the row (key, slot). PostgreSQL: slot pg_backend_pid() % 16,
// so concurrent writers touching the same key rarely wait on one row (the figure is the sum over the slots; a
// single slot may go negative); SQLite has one writer at a time: slot 0. Each statement carries its own condition
// in its WHERE, so the same text serves both engines' triggers. Backfilled from the rows that exist.

const PG_SLOTS = 16;
const OPEN = `('ACTIVO', 'SUSPENDIDO')`;

type Ref = 'old' | 'new';
type Sign = '' | '-';

/** Upsert of the signed deltas `values` into `table` at the row (keys, slot), for the rows `from` selects. */
function upsert(slot: string, table: string, keys: Record<string, string>, deltas: Record<string, string>, from: string): string {
  const columns = [...Object.keys(keys), 'slot', ...Object.keys(deltas)];
  const values = [...Object.values(keys), slot, ...Object.values(deltas)];
  const set = Object.keys(deltas).map((c) => `${c} = ${table}.${c} + excluded.${c}`);
  return `insert into ${table} (${columns.join(', ')}) select ${values.join(', ')} ${from}
    on conflict (${[...Object.keys(keys), 'slot'].join(', ')}) do update set ${set.join(', ')};`;
}

/** The open Ingreso `ref` counted (sign '') or uncounted ('-') with its patient's current programa, entidad and capita. */
const openIngreso = (slot: string, ref: Ref, sign: Sign) =>
  upsert(
    slot,
    'dashboard_open_counts',
    { programa: 'p.programa', entidad_salud: 'p.entidad_salud', estado: `${ref}.estado`, mes: `substr(${ref}.fecha_inicio, 1, 7)` },
    { n: `${sign}1`, total: `${sign}p.valor_capita` },
    `from patients p where p.id = ${ref}.paciente_id and ${ref}.estado in ${OPEN}`,
  );

/** The open Ingreso of the patient `ref` (if any) counted or uncounted with that version of the patient row. */
const openOfPatient = (slot: string, ref: Ref, sign: Sign) =>
  upsert(
    slot,
    'dashboard_open_counts',
    { programa: `${ref}.programa`, entidad_salud: `${ref}.entidad_salud`, estado: 'i.estado', mes: 'substr(i.fecha_inicio, 1, 7)' },
    { n: `${sign}1`, total: `${sign}${ref}.valor_capita` },
    `from ingresos i where i.paciente_id = ${ref}.id and i.estado in ${OPEN}`,
  );

const cycle = (slot: string, ref: Ref, sign: Sign) =>
  upsert(slot, 'dashboard_cycle_counts', { kind: `'inicio'`, mes: `substr(${ref}.fecha_inicio, 1, 7)` }, { n: `${sign}1` }, 'where true') +
  upsert(
    slot,
    'dashboard_cycle_counts',
    { kind: `'fin'`, mes: `substr(${ref}.fecha_fin, 1, 7)` },
    { n: `${sign}1` },
    `where ${ref}.fecha_fin is not null`,
  );

const monitoreo = (slot: string, ref: Ref, sign: Sign) =>
  upsert(
    slot,
    'dashboard_monitoreo_counts',
    { ultimo: `coalesce(${ref}.ultimo_monitoreo, '')` },
    { n: `${sign}1` },
    `where ${ref}.activo_desde is not null`,
  );

interface Upkeep {
  name: string;
  table: 'ingresos' | 'patients';
  /** the columns whose update matters, and the condition under which it does */
  columns: string[];
  body: (slot: string, ref: Ref, sign: Sign) => string;
  /** the counter table it keeps */
  counter: string;
}

const UPKEEP: Upkeep[] = [
  { name: 'ingresos_open_counts', table: 'ingresos', columns: ['estado', 'fecha_inicio', 'paciente_id'], body: openIngreso, counter: 'dashboard_open_counts' },
  { name: 'ingresos_cycle_counts', table: 'ingresos', columns: ['fecha_inicio', 'fecha_fin'], body: cycle, counter: 'dashboard_cycle_counts' },
  { name: 'patients_open_counts', table: 'patients', columns: ['programa', 'entidad_salud', 'valor_capita'], body: openOfPatient, counter: 'dashboard_open_counts' },
  { name: 'patients_monitoreo_counts', table: 'patients', columns: ['activo_desde', 'ultimo_monitoreo'], body: monitoreo, counter: 'dashboard_monitoreo_counts' },
];

/**
 * The triggers that count on insert (PostgreSQL: one for insert and delete), by engine, and the counter table each
 * keeps: for the benchmark's loader (bench/load-triggers.ts).
 */
export const INSERT_TRIGGERS = UPKEEP.map((u) => ({
  table: u.table,
  name: (engine: 'sqlite' | 'postgres') => (engine === 'postgres' ? `${u.name}_insert_delete` : `${u.name}_insert`),
  effect: u.counter,
}));

/**
 * Each counter table with what it holds, computed from the rows themselves: the migration's backfill, and what
 * the benchmark's generator recounts after a load without triggers and checks afterwards (bench/generate.ts).
 */
export const COUNTERS = [
  {
    table: 'dashboard_open_counts',
    keys: ['programa', 'entidad_salud', 'estado', 'mes'],
    values: ['n', 'total'],
    select: `select p.programa as programa, p.entidad_salud as entidad_salud, i.estado as estado, substr(i.fecha_inicio, 1, 7) as mes,
        count(*) as n, coalesce(sum(p.valor_capita), 0) as total
      from ingresos i inner join patients p on p.id = i.paciente_id where i.estado in ${OPEN}
      group by p.programa, p.entidad_salud, i.estado, substr(i.fecha_inicio, 1, 7)`,
  },
  {
    table: 'dashboard_cycle_counts',
    keys: ['kind', 'mes'],
    values: ['n'],
    select: `select 'inicio' as kind, substr(fecha_inicio, 1, 7) as mes, count(*) as n from ingresos group by substr(fecha_inicio, 1, 7)
      union all
      select 'fin' as kind, substr(fecha_fin, 1, 7) as mes, count(*) as n from ingresos where fecha_fin is not null group by substr(fecha_fin, 1, 7)`,
  },
  {
    table: 'dashboard_monitoreo_counts',
    keys: ['ultimo'],
    values: ['n'],
    select: `select coalesce(ultimo_monitoreo, '') as ultimo, count(*) as n from patients where activo_desde is not null
      group by coalesce(ultimo_monitoreo, '')`,
  },
] as const;

export type CounterTable = (typeof COUNTERS)[number]['table'];

/** Empties the counter tables named (all by default) and counts them again from the rows, in slot 0. */
export async function recount(db: Kysely<any>, tables: readonly CounterTable[] = COUNTERS.map((c) => c.table)): Promise<void> {
  for (const c of COUNTERS.filter((c) => tables.includes(c.table))) {
    await sql.raw(`delete from ${c.table}`).execute(db);
    await sql
      .raw(`insert into ${c.table} (${[...c.keys, 'slot', ...c.values].join(', ')}) select ${[...c.keys, '0', ...c.values].join(', ')} from (${c.select}) c`)
      .execute(db);
  }
}

/** How many keys of the counter table differ from a count of the rows (0 when the triggers kept it right). */
export function countersDifferingFromRows(c: (typeof COUNTERS)[number]): string {
  const kept = `select ${c.keys.join(', ')}, ${c.values.map((v) => `sum(${v}) as ${v}`).join(', ')} from ${c.table}
    group by ${c.keys.join(', ')} having sum(n) <> 0`;
  const counted = `select ${[...c.keys, ...c.values].join(', ')} from (${c.select}) c`;
  return `select (select count(*) from (${kept} except ${counted}) a) + (select count(*) from (${counted} except ${kept}) b) as n`;
}

const changed = (columns: string[]) => columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or ');

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const slot = pg ? `pg_backend_pid() % ${PG_SLOTS}` : '0';

  await db.schema
    .createTable('dashboard_open_counts')
    .addColumn('programa', 'text', (c) => c.notNull())
    .addColumn('entidad_salud', 'text', (c) => c.notNull())
    .addColumn('estado', 'text', (c) => c.notNull())
    .addColumn('mes', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('dashboard_open_counts_pk', ['programa', 'entidad_salud', 'estado', 'mes', 'slot'])
    .execute();
  await db.schema
    .createTable('dashboard_cycle_counts')
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('inicio', 'fin')`))
    .addColumn('mes', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('dashboard_cycle_counts_pk', ['kind', 'mes', 'slot'])
    .execute();
  await db.schema
    .createTable('dashboard_monitoreo_counts')
    .addColumn('ultimo', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('dashboard_monitoreo_counts_pk', ['ultimo', 'slot'])
    .execute();

  await recount(db);

  for (const u of UPKEEP) {
    const when = changed(u.columns);
    if (pg) {
      await sql
        .raw(
          `create function ${u.name}() returns trigger language plpgsql as $$ begin
            if tg_op <> 'INSERT' then ${u.body(slot, 'old', '-')} end if;
            if tg_op <> 'DELETE' then ${u.body(slot, 'new', '')} end if;
            return null;
          end $$`,
        )
        .execute(db);
      await sql.raw(`create trigger ${u.name}_insert_delete after insert or delete on ${u.table} for each row execute function ${u.name}()`).execute(db);
      await sql
        .raw(`create trigger ${u.name}_update after update of ${u.columns.join(', ')} on ${u.table} for each row when (${when}) execute function ${u.name}()`)
        .execute(db);
    } else {
      await sql.raw(`create trigger ${u.name}_insert after insert on ${u.table} begin ${u.body(slot, 'new', '')} end`).execute(db);
      await sql.raw(`create trigger ${u.name}_delete after delete on ${u.table} begin ${u.body(slot, 'old', '-')} end`).execute(db);
      await sql
        .raw(`create trigger ${u.name}_update after update of ${u.columns.join(', ')} on ${u.table} when ${when}
          begin ${u.body(slot, 'old', '-')} ${u.body(slot, 'new', '')} end`)
        .execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  for (const u of UPKEEP) {
    if (pg) {
      for (const t of ['insert_delete', 'update']) await sql.raw(`drop trigger if exists ${u.name}_${t} on ${u.table}`).execute(db);
      await sql.raw(`drop function if exists ${u.name}()`).execute(db);
    } else {
      for (const t of ['insert', 'delete', 'update']) await sql.raw(`drop trigger if exists ${u.name}_${t}`).execute(db);
    }
  }
  for (const table of ['dashboard_monitoreo_counts', 'dashboard_cycle_counts', 'dashboard_open_counts']) await db.schema.dropTable(table).execute();
}
