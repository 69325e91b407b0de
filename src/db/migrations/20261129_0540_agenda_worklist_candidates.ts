import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// The worklists' two slow walks, kept small by triggers (issue 28, decision 0260):
//
// - agenda_por_reagendar: the no-shows still to re-book, one row each: a NO_ASISTIO visit of an ACTIVO cycle with no
//   other visit of its cycle and kind booked or attended on its day or later. The no-shows' list walked every no-show
//   since the oldest open cycle's start (2,800 for 200 kept at 100,000 patients, most of closed cycles) and sought a
//   re-booking for each; it now walks these rows, each one kept.
// - agenda_cpap_ciclos: the ACTIVO cycles of the patients of the AOS program, each with its latest CPAP download not
//   voided (its date and figures; null without one). The CPAP list read each open cycle's patient and sought its
//   latest download; it now walks these rows in the list's order and tests the dates and figures in the index.
//
// Each table is kept, in the statement that changes its sources, by recomputing the few rows a change can move: a
// cycle and kind's no-shows (a visit changed), a cycle's no-shows (its estado), a cycle's row (its estado, start or
// patient, a CPAP download of it), a patient's cycles (the program). On PostgreSQL the recomputation of a cycle
// first takes a transaction lock of the cycle: under READ COMMITTED two writers of one cycle would each recompute from
// a snapshot without the other's change; the second waits, and its statements then see the first's (a trigger
// function's statements each take a new snapshot). SQLite's writers take turns.
//
// The conditions repeat the worklists' own (agenda.worklists.repository.ts at migration 0530) word for word, so that
// the partial indexes they used serve them: citas_reagendadas_idx, exam_records_cpap_idx.

const REBOOKED = `exists (select 1 from citas c2 where c2.ingreso_id = c.ingreso_id and c2.tipo = c.tipo and c2.id <> c.id
    and c2.estado in ('AGENDADA', 'ATENDIDA') and c2.inicio_min >= c.inicio_min - c.inicio_min % 1440)`;

/** The no-shows to re-book among the visits `c` that `scope` selects. */
const insertPorReagendar = (scope: string) => `insert into agenda_por_reagendar (cita_id, ingreso_id, tipo, fecha)
  select c.id, c.ingreso_id, c.tipo, c.fecha from citas c
   where ${scope} and c.estado = 'NO_ASISTIO'
     and exists (select 1 from ingresos i where i.id = c.ingreso_id and i.estado = 'ACTIVO')
     and not ${REBOOKED}`;

/** The latest CPAP download not voided of the cycle `ingreso` (the worklist's own words: exam_records_cpap_idx). */
const latestDownload = (ingreso: string) => `(select e.id from exam_records e where e.ingreso_id = ${ingreso} and e.kind = 'MONITOREO'
    and e.tipo = 'DESCARGA_CPAP' and e.anulado_at is null order by e.fecha desc, e.id desc limit 1)`;

/** The AOS program's ACTIVO cycles among the cycles `i` that `scope` selects, with their latest download. */
const insertCpapCiclos = (scope: string) => `insert into agenda_cpap_ciclos (ingreso_id, fecha_inicio, ultima_descarga, horas_uso_promedio, porcentaje_noches_4h)
  select i.id, i.fecha_inicio, e.fecha, e.horas_uso_promedio, e.porcentaje_noches_4h
    from ingresos i inner join patients p on p.id = i.paciente_id
    left join exam_records e on e.id = ${latestDownload('i.id')}
   where ${scope} and i.estado = 'ACTIVO' and p.programa = 'PROGRAMA AOS'`;

/** What each table holds, computed from its sources: the fill, and the check that the triggers kept it (tests, bench). */
export const DERIVED_WORKLIST_TABLES = {
  agenda_por_reagendar: {
    columns: ['cita_id', 'ingreso_id', 'tipo', 'fecha'],
    select: insertPorReagendar('true').replace(/^insert into [^\n]*\n/, ''),
  },
  agenda_cpap_ciclos: {
    columns: ['ingreso_id', 'fecha_inicio', 'ultima_descarga', 'horas_uso_promedio', 'porcentaje_noches_4h'],
    select: insertCpapCiclos('true').replace(/^insert into [^\n]*\n/, ''),
  },
} as const;

/** Rows of a derived table that differ from what its definition computes (both ways): 0 when the triggers kept it. */
export async function rowsDifferingFromDefinition(db: Kysely<any>, table: keyof typeof DERIVED_WORKLIST_TABLES): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select ${sql.raw(differingRows(table))} as n`.execute(db);
  return Number(rows[0]!.n);
}

/** An SQL expression: how many rows of the table differ from its definition, both ways. */
export function differingRows(table: keyof typeof DERIVED_WORKLIST_TABLES): string {
  const { columns, select } = DERIVED_WORKLIST_TABLES[table];
  const kept = `select ${columns.join(', ')} from ${table}`;
  const computed = `select * from (${select}) as d`;
  return `((select count(*) from (${kept} except ${computed}) as a) + (select count(*) from (${computed} except ${kept}) as b))`;
}

/** Fills both tables from their sources (the migration, and the benchmark's load that wrote the rows without triggers). */
export async function fillWorklistCandidates(db: Kysely<any>): Promise<void> {
  await sql`delete from agenda_por_reagendar`.execute(db);
  await sql.raw(insertPorReagendar('true')).execute(db);
  await sql`delete from agenda_cpap_ciclos`.execute(db);
  await sql.raw(insertCpapCiclos('true')).execute(db);
}

/** The rows of one cycle and kind's no-shows, or one cycle's, or one cycle's AOS row, computed again. */
const redoGroup = (row: 'old' | 'new') =>
  `delete from agenda_por_reagendar where ingreso_id = ${row}.ingreso_id and tipo = ${row}.tipo;
   ${insertPorReagendar(`c.ingreso_id = ${row}.ingreso_id and c.tipo = ${row}.tipo`)};`;
const redoCycleNoShows = (id: string) => `delete from agenda_por_reagendar where ingreso_id = ${id}; ${insertPorReagendar(`c.ingreso_id = ${id}`)};`;
const redoCpapCycle = (id: string) => `delete from agenda_cpap_ciclos where ingreso_id = ${id}; ${insertCpapCiclos(`i.id = ${id}`)};`;
const redoCpapDownload = (id: string) => `update agenda_cpap_ciclos set (ultima_descarga, horas_uso_promedio, porcentaje_noches_4h) =
    (select e.fecha, e.horas_uso_promedio, e.porcentaje_noches_4h from exam_records e where e.id = ${latestDownload(id)})
  where ingreso_id = ${id};`;

/** A visit's estado that counts: a no-show, or what re-books one. Written out (no list of three constants in a condition). */
const counts = (row: 'old' | 'new') => `(${row}.estado = 'NO_ASISTIO' or ${row}.estado = 'AGENDADA' or ${row}.estado = 'ATENDIDA')`;
const isDownload = (row: 'old' | 'new') => `(${row}.kind = 'MONITOREO' and ${row}.tipo = 'DESCARGA_CPAP')`;

interface Upkeep {
  name: string;
  table: 'citas' | 'ingresos' | 'patients' | 'exam_records';
  event: 'insert' | 'delete' | `update of ${string}`;
  /** Columns compared old to new (updates): the trigger fires only when one changed. */
  changed?: readonly string[];
  when?: string;
  /** The cycles the body recomputes, as a query of their ids (PostgreSQL locks them first, in order). */
  cycles: string;
  body: string;
}

const UPKEEP: readonly Upkeep[] = [
  { name: 'agenda_por_reagendar_cita_insert', table: 'citas', event: 'insert', when: counts('new'), cycles: 'select new.ingreso_id', body: redoGroup('new') },
  {
    name: 'agenda_por_reagendar_cita_update',
    table: 'citas',
    event: 'update of estado, tipo, ingreso_id, inicio_min, fecha',
    changed: ['estado', 'tipo', 'ingreso_id', 'inicio_min', 'fecha'],
    when: `(${counts('old')} or ${counts('new')})`,
    cycles: 'select old.ingreso_id union select new.ingreso_id',
    body: `${redoGroup('old')} ${redoGroup('new')}`,
  },
  {
    name: 'agenda_por_reagendar_cita_delete',
    table: 'citas',
    event: 'delete',
    when: counts('old'),
    cycles: 'select old.ingreso_id',
    body: `delete from agenda_por_reagendar where cita_id = old.id; ${redoGroup('old')}`,
  },
  { name: 'agenda_por_reagendar_ingreso_update', table: 'ingresos', event: 'update of estado', changed: ['estado'], cycles: 'select new.id', body: redoCycleNoShows('new.id') },
  { name: 'agenda_por_reagendar_ingreso_delete', table: 'ingresos', event: 'delete', cycles: 'select old.id', body: 'delete from agenda_por_reagendar where ingreso_id = old.id;' },
  { name: 'agenda_cpap_ciclos_ingreso_insert', table: 'ingresos', event: 'insert', when: `new.estado = 'ACTIVO'`, cycles: 'select new.id', body: redoCpapCycle('new.id') },
  {
    name: 'agenda_cpap_ciclos_ingreso_update',
    table: 'ingresos',
    event: 'update of estado, fecha_inicio, paciente_id',
    changed: ['estado', 'fecha_inicio', 'paciente_id'],
    cycles: 'select new.id',
    body: redoCpapCycle('new.id'),
  },
  { name: 'agenda_cpap_ciclos_ingreso_delete', table: 'ingresos', event: 'delete', cycles: 'select old.id', body: 'delete from agenda_cpap_ciclos where ingreso_id = old.id;' },
  {
    name: 'agenda_cpap_ciclos_programa',
    table: 'patients',
    event: 'update of programa',
    changed: ['programa'],
    cycles: 'select x.id from ingresos x where x.paciente_id = new.id',
    body: `delete from agenda_cpap_ciclos where ingreso_id in (select x.id from ingresos x where x.paciente_id = new.id);
      ${insertCpapCiclos('i.paciente_id = new.id')};`,
  },
  { name: 'agenda_cpap_ciclos_descarga_insert', table: 'exam_records', event: 'insert', when: isDownload('new'), cycles: 'select new.ingreso_id', body: redoCpapDownload('new.ingreso_id') },
  {
    name: 'agenda_cpap_ciclos_descarga_update',
    table: 'exam_records',
    event: 'update of anulado_at, fecha, horas_uso_promedio, porcentaje_noches_4h, kind, tipo, ingreso_id',
    changed: ['anulado_at', 'fecha', 'horas_uso_promedio', 'porcentaje_noches_4h', 'kind', 'tipo', 'ingreso_id'],
    when: `(${isDownload('old')} or ${isDownload('new')})`,
    cycles: 'select old.ingreso_id union select new.ingreso_id',
    body: `${redoCpapDownload('old.ingreso_id')} ${redoCpapDownload('new.ingreso_id')}`,
  },
  { name: 'agenda_cpap_ciclos_descarga_delete', table: 'exam_records', event: 'delete', when: isDownload('old'), cycles: 'select old.ingreso_id', body: redoCpapDownload('old.ingreso_id') },
];

/** The triggers on INSERT, with the table each keeps: for the benchmark's loader (bench/load-triggers.ts). Same names on both engines. */
export const INSERT_TRIGGERS = UPKEEP.filter((t) => t.event === 'insert').map((t) => ({
  table: t.table,
  name: () => t.name,
  effect: t.name.startsWith('agenda_por_reagendar') ? 'agenda_por_reagendar' : 'agenda_cpap_ciclos',
}));

/** The lock of a cycle's worklist rows (PostgreSQL): its class, beside start's (1936613741). */
const CYCLE_LOCK = 1936613742;

function conditionOf(t: Upkeep, pg: boolean): string | null {
  const changed = (t.changed ?? []).map((c) => (pg ? `old.${c} is distinct from new.${c}` : `old.${c} is not new.${c}`));
  const parts = [...(changed.length > 0 ? [`(${changed.join(' or ')})`] : []), ...(t.when ? [t.when] : [])];
  return parts.length === 0 ? null : parts.join(' and ');
}

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await db.schema
    .createTable('agenda_por_reagendar')
    .addColumn('cita_id', 'integer', (c) => c.primaryKey())
    .addColumn('ingreso_id', 'integer', (c) => c.notNull())
    .addColumn('tipo', 'text', (c) => c.notNull())
    .addColumn('fecha', 'text', (c) => c.notNull())
    .execute();
  // The list's walk (by date, from the index alone until a row is kept), and the recomputation of a cycle and kind.
  await db.schema.createIndex('agenda_por_reagendar_fecha_idx').on('agenda_por_reagendar').columns(['fecha', 'cita_id', 'ingreso_id', 'tipo']).execute();
  await db.schema.createIndex('agenda_por_reagendar_ciclo_idx').on('agenda_por_reagendar').columns(['ingreso_id', 'tipo']).execute();

  await db.schema
    .createTable('agenda_cpap_ciclos')
    .addColumn('ingreso_id', 'integer', (c) => c.primaryKey())
    .addColumn('fecha_inicio', 'text', (c) => c.notNull())
    .addColumn('ultima_descarga', 'text')
    .addColumn('horas_uso_promedio', 'integer')
    .addColumn('porcentaje_noches_4h', 'integer')
    .execute();
  // The list's walk in its order (the cycle's start), its conditions tested in the index.
  await db.schema
    .createIndex('agenda_cpap_ciclos_fecha_idx')
    .on('agenda_cpap_ciclos')
    .columns(['fecha_inicio', 'ingreso_id', 'ultima_descarga', 'horas_uso_promedio', 'porcentaje_noches_4h'])
    .execute();

  await fillWorklistCandidates(db);

  for (const t of UPKEEP) {
    const when = conditionOf(t, pg);
    if (pg) {
      const lock = `perform pg_advisory_xact_lock(${CYCLE_LOCK}, l.id) from (${t.cycles}) as l(id) order by l.id;`;
      await sql.raw(`create function ${t.name}() returns trigger language plpgsql as $$ begin ${lock} ${t.body} return null; end $$`).execute(db);
      await sql.raw(`create trigger ${t.name} after ${t.event} on ${t.table} for each row ${when ? `when (${when})` : ''} execute function ${t.name}()`).execute(db);
    } else {
      await sql.raw(`create trigger ${t.name} after ${t.event} on ${t.table} ${when ? `when ${when}` : ''} begin ${t.body} end`).execute(db);
    }
  }

  // The no-shows' walk of every no-show by date (migration 0480) has no reader left; it cost every visit written.
  await sql`drop index citas_inasistencias_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await sql`create index citas_inasistencias_idx on citas (estado, fecha, id, ingreso_id, tipo, inicio_min) where estado = 'NO_ASISTIO'`.execute(db);
  for (const t of UPKEEP) {
    if (pg) {
      await sql.raw(`drop trigger if exists ${t.name} on ${t.table}`).execute(db);
      await sql.raw(`drop function if exists ${t.name}()`).execute(db);
    } else {
      await sql.raw(`drop trigger if exists ${t.name}`).execute(db);
    }
  }
  await db.schema.dropTable('agenda_cpap_ciclos').execute();
  await db.schema.dropTable('agenda_por_reagendar').execute();
}
