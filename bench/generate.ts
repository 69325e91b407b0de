// npm run bench:data -- --patients N [--database URL] [--force] [--seed S] [--profesionales N] [--rips-month] [--sin-citas]
//
// --sin-citas: without the agenda's visits (and their professionals), which are most of the load's time; for
// measuring the other pages. The patients, cycles and exams are the same as with them (the visits draw from a
// generator of their own).
//
// --rips-month: RIPS's worst case (issue 27, decision 0155) instead of the clinic's mix: every patient is ENTITY_A's,
// enrolled (an ACTIVO cycle that began before the last whole month), with 3–7 exam records (5 on average) in that
// month, each with its time of day. Loaded the same way, in the same time.
//
// Fills a database (built by the real migrations) with synthetic patients, their Ingresos, the history of every
// opening and status change, exam records for each cycle when the exams tables exist, an audit entry per change,
// the agenda's visits of every cycle when the agenda's tables exist (bench/visits.ts, decision 0145), the user
// 'bench' and the professionals the visits are booked with ('bench.prof01'…; one for every 800 patients unless
// --profesionales N). Refuses to write where real data may live unless --force.
//
// SQLite: every row goes through the triggers, as the application's writes do. PostgreSQL: the patients go
// through their triggers, written with the final values of the columns the Ingreso and exam triggers keep
// (activo_desde, ultimo_monitoreo); the Ingresos (final), exam records, history and audit rows are then written
// without triggers (`session_replication_role = replica`, in the batch's transaction only), which removes every
// intermediate version of the patient row those triggers would write (on PostgreSQL each is a new row version
// in every index of patients). Only the insert triggers in SKIPPED_INSERT_TRIGGERS (bench/load-triggers.ts, derived
// from the migrations and the table registry) are skipped that way: with any other, the load takes the slow path. Either way, verifyDerived checks afterwards, in SQL, that the
// derived columns and counters equal what the triggers compute and that every foreign key holds.

import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { openDatabase, type Engine } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { TABLES } from '../src/db/tables.js';
import { COUNTERS, countersDifferingFromRows, recount } from '../src/db/migrations/20261125_0070_dashboard_counters.js';
import { fillListBlocks } from '../src/db/migrations/20261127_0441_patient_list_blocks.js';
import { DERIVED_WORKLIST_TABLES, differingRows, fillWorklistCandidates } from '../src/db/migrations/20261129_0540_agenda_worklist_candidates.js';
import { countDateViolations } from '../src/ingresos/date-violations.repository.js';
import { addDays, todayIn } from '../src/shared/dates.js';
import { patientDerivedColumns } from '../src/patients/patient.rules.js';
import { hashPassword } from '../src/users/password.js';
import { usernameKey } from '../src/users/user.rules.js';
import {
  BENCH_PASSWORD,
  BENCH_USERNAME,
  columnNames,
  countRows,
  databaseUrlFrom,
  displayUrl,
  fail,
  formatInt,
  seconds,
  tableNames,
} from './common.js';
import { EXAM_COLUMNS, EXAM_TABLE, examRecord } from './exams.js';
import { fillRipsFacts } from './rips.js';
import { SKIPPED_INSERT_TRIGGERS, UNTRIGGERED_TABLES, unknownInsertTriggers } from './load-triggers.js';
import { CITA_COLUMNS, CITA_HISTORIAL_COLUMNS, generateCycleVisits, loadAgendaCatalogue, Schedule, type VisitContext } from './visits.js';
import { openWriter, type Value, type Writer } from './writer.js';
import {
  celular,
  documento,
  ESPECIALIDADES,
  intBetween,
  lugar,
  MEDICOS,
  MOTIVOS_SUSPENSION,
  MOTIVOS_TERMINACION,
  personName,
  pick,
  rng,
  telefono,
  type Random,
} from './synthetic.js';

const USAGE = 'Uso: npm run bench:data -- --patients N [--database URL] [--force] [--seed S] [--profesionales N] [--rips-month] [--sin-citas]';

const BASE_PATIENT_COLUMNS = [
  'id', 'nombre', 'apellido', 'tipo_documento', 'documento', 'documento_key', 'search_text', 'apellido_norm', 'nombre_norm',
  'fecha_nacimiento', 'genero', 'departamento', 'ciudad', 'zona', 'telefono', 'celular', 'estado_civil', 'entidad_salud',
  'estrato', 'peso', 'altura', 'perimetro_abdominal', 'cuello', 'medico_remitente', 'especialidad', 'diagnostico_clinico',
  'programa', 'valor_capita', 'created_at', 'updated_at',
] as const;
/**
 * Columns of patients that triggers keep (migrations 0010 and 0021), written with the value the triggers would
 * leave once every Ingreso and exam record of the patient is in, when the column exists: then the triggers'
 * updates of the patient row either do not happen (ultimo_monitoreo only ever rises) or need not happen at all
 * (the fast path below), and `verifyDerived` checks both against what the triggers compute.
 */
const DERIVED_PATIENT_COLUMNS = ['activo_desde', 'ultimo_monitoreo'] as const;
/** Columns of patients later migrations added, written when they exist: RIPS's tipo_usuario (migration 0200). */
const LATER_PATIENT_COLUMNS = ['tipo_usuario'] as const;
type PatientColumn = (typeof BASE_PATIENT_COLUMNS)[number] | (typeof DERIVED_PATIENT_COLUMNS)[number] | (typeof LATER_PATIENT_COLUMNS)[number];
const INGRESO_COLUMNS = ['id', 'paciente_id', 'fecha_inicio', 'fecha_fin', 'estado', 'motivo', 'created_at', 'updated_at'] as const;
const INGRESO_ESTADO = INGRESO_COLUMNS.indexOf('estado');
const EXAM_KIND = EXAM_COLUMNS.indexOf('kind');
const HISTORIAL_COLUMNS = ['id', 'ingreso_id', 'at', 'user_id', 'desde', 'hacia', 'motivo', 'fecha'] as const;
const AUDIT_COLUMNS = ['id', 'at', 'user_id', 'username', 'action', 'entity_type', 'entity_id', 'patient_id', 'changes', 'request_id'] as const;

/**
 * The rows of one batch. Ingresos (in their final state) and exam records are grouped by the cycle's position in
 * its patient's history (level 0 = first cycle). With triggers (SQLite; PostgreSQL's slow path) each level is
 * inserted ACTIVO, gets its exam records (the database accepts records only on an ACTIVO Ingreso), then is moved
 * to its final state, exactly as the application would have done, and only then is the next level opened (at
 * most one open Ingreso per patient). Without triggers (PostgreSQL's fast path) every level is inserted at once,
 * final.
 */
interface Batch {
  patients: Value[][];
  ingreso_historial: Value[][];
  audit_log: Value[][];
  /** the agenda's visits of every cycle of the batch and their history (inserted once the Ingresos are final) */
  citas: Value[][];
  cita_historial: Value[][];
  levels: { ingresos: Value[][]; exams: Value[][]; close: Map<'SUSPENDIDO' | 'TERMINADO', number[]> }[];
}

const newLevel = (): Batch['levels'][number] => ({ ingresos: [], exams: [], close: new Map([['SUSPENDIDO', []], ['TERMINADO', []]]) });

/** Next free id of each table (ids are assigned here so the rows of one batch can refer to each other). */
class Ids {
  constructor(private readonly next: Map<string, number>) {}
  take(table: string): number {
    const id = this.next.get(table) ?? 1;
    this.next.set(table, id + 1);
    return id;
  }
}

const at = (date: string, r: Random): string =>
  `${date}T${String(intBetween(r, 12, 22)).padStart(2, '0')}:${String(intBetween(r, 0, 59)).padStart(2, '0')}:${String(intBetween(r, 0, 59)).padStart(2, '0')}.000Z`;

interface Cycle {
  id: number;
  fecha_inicio: string;
  estado: 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO';
  fecha_fin: string | null;
  motivo: string | null;
  /** the date of the suspension, for SUSPENDIDO */
  suspendido: string | null;
}

const MONTH = 30.44;

/** The last whole month before `today` (RIPS's worst case is generated there): first and last day. */
function lastWholeMonth(today: string): { start: string; end: string } {
  const [y, m] = today.split('-').map(Number) as [number, number];
  const start = m === 1 ? `${y - 1}-12-01` : `${y}-${String(m - 1).padStart(2, '0')}-01`;
  return { start, end: addDays(`${today.slice(0, 7)}-01`, -1) };
}

/**
 * The cycles of one patient, oldest first. About 1.5 a patient (55 % one, 40 % two, 5 % three); the latest is
 * ACTIVO for 80 % of patients, SUSPENDIDO for 5 %, TERMINADO for the rest; earlier ones are TERMINADO. ACTIVO
 * cycles started within the last 30 months, so every mes_capita 1..18 is populated.
 */
function planCycles(r: Random, today: string, ripsMonth: { start: string } | null): Omit<Cycle, 'id'>[] {
  const x = r();
  const count = x < 0.55 ? 1 : x < 0.95 ? 2 : 3;
  const y = r();
  const last = ripsMonth ? 'ACTIVO' : y < 0.8 ? 'ACTIVO' : y < 0.85 ? 'SUSPENDIDO' : 'TERMINADO';
  const cycles: Omit<Cycle, 'id'>[] = [];
  let start: string;
  if (ripsMonth) {
    // Enrolled the whole month: the ACTIVO cycle began on its first day or up to 28 months before.
    start = addDays(ripsMonth.start, -intBetween(r, 0, Math.round(28 * MONTH)));
    cycles.push({ fecha_inicio: start, estado: 'ACTIVO', fecha_fin: null, motivo: null, suspendido: null });
  } else if (last === 'TERMINADO') {
    start = addDays(today, -intBetween(r, 70, Math.round(36 * MONTH)));
    const fin = addDays(start, Math.min(intBetween(r, Math.round(2 * MONTH), Math.round(18 * MONTH)), daysBetween(start, today) - 1));
    cycles.push({ fecha_inicio: start, estado: 'TERMINADO', fecha_fin: fin, motivo: pick(r, MOTIVOS_TERMINACION), suspendido: null });
  } else {
    start = addDays(today, -intBetween(r, 0, Math.round(30 * MONTH)));
    const suspendido = last === 'SUSPENDIDO' ? addDays(start, intBetween(r, 0, daysBetween(start, today))) : null;
    cycles.push({
      fecha_inicio: start,
      estado: last,
      fecha_fin: null,
      motivo: suspendido ? pick(r, MOTIVOS_SUSPENSION) : null,
      suspendido,
    });
  }
  for (let i = 1; i < count; i++) {
    const fin = addDays(start, -intBetween(r, 1, 60));
    start = addDays(fin, -intBetween(r, Math.round(3 * MONTH), Math.round(18 * MONTH)));
    cycles.unshift({ fecha_inicio: start, estado: 'TERMINADO', fecha_fin: fin, motivo: pick(r, MOTIVOS_TERMINACION), suspendido: null });
  }
  return cycles;
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

function generatePatient(
  r: Random,
  out: Batch,
  ids: Ids,
  ctx: {
    today: string;
    userId: number;
    documentos: Set<string>;
    exams: boolean;
    patientColumns: readonly PatientColumn[];
    /** the agenda's visits, with a generator of their own (the patients stay those of the same seed without them) */
    visits: { r: Random; ctx: Omit<VisitContext, 'citas' | 'historial'> } | null;
    /** RIPS's worst case (--rips-month): its month, and whether exam_records has hora */
    ripsMonth: { start: string; end: string } | null;
    hora: boolean;
  },
): void {
  const gx = r();
  const genero = gx < 0.55 ? 'F' : gx < 0.99 ? 'M' : 'O';
  const { nombre, apellido } = personName(r, genero);
  let doc = documento(r);
  while (ctx.documentos.has(doc.documento.toUpperCase())) doc = documento(r);
  ctx.documentos.add(doc.documento.toUpperCase());
  const cycles = planCycles(r, ctx.today, ctx.ripsMonth).map((c) => ({ ...c, id: ids.take('ingresos') }));
  const first = cycles[0]!;
  const createdAt = at(first.fecha_inicio, r);
  const patientId = ids.take('patients');
  const { departamento, ciudad } = lugar(r);
  const programa = r() < 0.75 ? 'PROGRAMA AOS' : 'PROGRAMA INSOMNIO';
  const altura = intBetween(r, 148, 192);
  const peso = Math.round(((altura / 100) ** 2) * intBetween(r, 2100, 4200));
  const patient: Record<PatientColumn, Value> = {
    id: patientId,
    nombre,
    apellido,
    ...doc,
    ...patientDerivedColumns({ nombre, apellido, documento: doc.documento }),
    fecha_nacimiento: addDays(ctx.today, -intBetween(r, 25 * 365, 85 * 365)),
    genero,
    departamento,
    ciudad,
    zona: r() < 0.85 ? 'URBANA' : 'RURAL',
    telefono: r() < 0.6 ? telefono(r) : '',
    celular: celular(r),
    estado_civil: pick(r, ['SOLTERO', 'CASADO', 'CASADO', 'UNIÓN LIBRE', 'UNIÓN LIBRE', 'VIUDO', 'DIVORCIADO']),
    entidad_salud: r() < 0.6 || ctx.ripsMonth ? 'ENTITY_A' : 'ENTITY_B',
    estrato: pick(r, [1, 2, 2, 3, 3, 3, 4, 4, 5, 6]),
    peso: r() < 0.9 ? peso : null,
    altura: r() < 0.9 ? altura : null,
    perimetro_abdominal: r() < 0.8 ? intBetween(r, 8000, 13500) : null,
    cuello: r() < 0.8 ? intBetween(r, 3200, 4900) : null,
    medico_remitente: pick(r, MEDICOS),
    especialidad: pick(r, ESPECIALIDADES),
    diagnostico_clinico: 'G47.3',
    programa,
    // RIPS table 01–13: contributory for most, subsidised for some (as fillRipsFacts gives older databases).
    tipo_usuario: patientId % 10 < 7 ? '01' : '02',
    valor_capita: r() < 0.9 ? 25978300 : pick(r, [21000000, 23500000, 28000000]),
    created_at: createdAt,
    updated_at: createdAt,
    // What the triggers compute: the fecha_inicio of the ACTIVO Ingreso; the latest monitoring fecha (below).
    activo_desde: cycles.find((c) => c.estado === 'ACTIVO')?.fecha_inicio ?? null,
    ultimo_monitoreo: null,
  };
  const audit = (when: string, action: string, entityType: string, entityId: number, changes: Record<string, unknown>) =>
    out.audit_log.push([ids.take('audit_log'), when, ctx.userId, BENCH_USERNAME, action, entityType, entityId, patientId, JSON.stringify(changes), null]);
  audit(createdAt, 'patient.create', 'patient', patientId, { nombre: [null, nombre], apellido: [null, apellido] });

  cycles.forEach((c, level) => {
    const opened = c === first ? createdAt : at(c.fecha_inicio, r);
    const history = (when: string, desde: string | null, hacia: string, motivo: string | null, fecha: string) => {
      out.ingreso_historial.push([ids.take('ingreso_historial'), c.id, when, ctx.userId, desde, hacia, motivo, fecha]);
      audit(when, desde === null ? 'ingreso.open' : 'ingreso.status', 'ingreso', c.id, { estado: [desde, hacia], ...(motivo ? { motivo: [null, motivo] } : {}) });
    };
    history(opened, null, 'ACTIVO', null, c.fecha_inicio);
    let updated = opened;
    if (c.estado === 'SUSPENDIDO') {
      updated = at(c.suspendido!, r);
      history(updated, 'ACTIVO', 'SUSPENDIDO', c.motivo, c.suspendido!);
    } else if (c.estado === 'TERMINADO') {
      updated = at(c.fecha_fin!, r);
      history(updated, 'ACTIVO', 'TERMINADO', c.motivo, c.fecha_fin!);
    }
    if (ctx.visits) {
      generateCycleVisits(ctx.visits.r, { ...ctx.visits.ctx, citas: out.citas, historial: out.cita_historial }, patientId, programa, {
        id: c.id,
        fecha_inicio: c.fecha_inicio,
        estado: c.estado,
        stopped: c.suspendido ?? c.fecha_fin,
        openedAt: opened,
        stoppedAt: c.estado === 'ACTIVO' ? null : updated,
      });
    }
    const slot = (out.levels[level] ??= newLevel());
    slot.ingresos.push([c.id, patientId, c.fecha_inicio, c.fecha_fin, c.estado, c.motivo, opened, updated]);
    if (c.estado !== 'ACTIVO') slot.close.get(c.estado)!.push(c.id);
    if (ctx.exams) {
      // About five records a cycle still open; fewer for a finished one (archived: hidden from the clinical view).
      // RIPS's worst case: the ACTIVO cycle's records all fall in the month.
      const inMonth = ctx.ripsMonth !== null && c.estado === 'ACTIVO';
      const n = c.estado === 'TERMINADO' ? intBetween(r, 0, 4) : intBetween(r, 3, 7);
      const from = inMonth ? ctx.ripsMonth!.start : c.fecha_inicio;
      const end = inMonth ? ctx.ripsMonth!.end : (c.suspendido ?? c.fecha_fin ?? ctx.today);
      const span = Math.max(0, daysBetween(from, end));
      const dates = Array.from({ length: n }, () => addDays(from, intBetween(r, 0, span))).sort();
      dates.forEach((fecha, index) => {
        const record = examRecord(r, { id: ids.take(EXAM_TABLE), ingresoId: c.id, fecha, at: at(fecha, r), userId: ctx.userId, programa, index });
        // The time of day (migration 0200) only in RIPS's worst case: the clinic's mix keeps its random stream.
        if (ctx.hora) record.push(ctx.ripsMonth ? `${String(intBetween(r, 6, 19)).padStart(2, '0')}:${String(intBetween(r, 0, 59)).padStart(2, '0')}` : null);
        slot.exams.push(record);
        if (record[EXAM_KIND] === 'MONITOREO' && (patient.ultimo_monitoreo === null || fecha > (patient.ultimo_monitoreo as string))) {
          patient.ultimo_monitoreo = fecha;
        }
      });
    }
  });
  out.patients.push(ctx.patientColumns.map((c) => patient[c]));
}

/** One batch, one transaction. */
async function writeBatch(writer: Writer, out: Batch, opts: { fast: boolean; patientColumns: readonly PatientColumn[]; examColumns: readonly string[] }): Promise<void> {
  await writer.begin();
  try {
    await writer.insert('patients', opts.patientColumns, out.patients);
    if (opts.fast) {
      await writer.triggers(false);
      await writer.insert('ingresos', INGRESO_COLUMNS, out.levels.flatMap((level) => level.ingresos));
      await writer.insert(EXAM_TABLE, opts.examColumns, out.levels.flatMap((level) => level.exams));
    } else {
      for (const level of out.levels) {
        // Inserted ACTIVO (with their final dates and motivo), closed after their exam records are in.
        await writer.insert('ingresos', INGRESO_COLUMNS, level.ingresos.map((row) => row.map((v, c) => (c === INGRESO_ESTADO ? 'ACTIVO' : v))));
        await writer.insert(EXAM_TABLE, opts.examColumns, level.exams);
        for (const [estado, idsToClose] of level.close) await writer.setWhereIdIn('ingresos', 'estado', estado, idsToClose);
      }
    }
    // Visits after their cycles (final); on SQLite the overlap guard checks each booked one as it goes in.
    await writer.insert('citas', CITA_COLUMNS, out.citas);
    await writer.insert('cita_historial', CITA_HISTORIAL_COLUMNS, out.cita_historial);
    await writer.insert('ingreso_historial', HISTORIAL_COLUMNS, out.ingreso_historial);
    await writer.insert('audit_log', AUDIT_COLUMNS, out.audit_log);
    await writer.commit();
  } catch (err) {
    await writer.rollback();
    throw err;
  }
}

async function nextIds(db: Kysely<any>, tables: string[]): Promise<Ids> {
  const next = new Map<string, number>();
  for (const t of tables) {
    const r = await sql<{ m: number | null }>`select max(id) as m from ${sql.table(t)}`.execute(db);
    next.set(t, Number(r.rows[0]?.m ?? 0) + 1);
  }
  return new Ids(next);
}

/**
 * After the load: the columns and tables that triggers maintain hold what the triggers compute from the rows
 * (over the whole database, so a --force load on top of other data is checked too), and, when the fast path
 * skipped the foreign-key checks, every foreign key of the tables it wrote holds. Exits 1 naming what differs.
 */
async function verifyDerived(db: Kysely<any>, engine: Engine, checkForeignKeys: boolean): Promise<void> {
  const distinct = sql.raw(engine === 'sqlite' ? 'is not' : 'is distinct from');
  const tables = await tableNames(db, engine);
  const patientColumns = await columnNames(db, engine, 'patients');
  const checks: [string, RawBuilder<{ n: number | string }>][] = [];
  if (patientColumns.has('activo_desde')) {
    checks.push([
      'patients.activo_desde (fecha_inicio del ingreso ACTIVO)',
      sql`select count(*) as n from patients p
            left join ingresos i on i.paciente_id = p.id and i.estado = 'ACTIVO'
           where p.activo_desde ${distinct} i.fecha_inicio`,
    ]);
  }
  if (patientColumns.has('ultimo_monitoreo')) {
    checks.push([
      'patients.ultimo_monitoreo (último MONITOREO no anulado)',
      sql`select count(*) as n from patients p
            left join (select i.paciente_id as pid, max(e.fecha) as f
                         from exam_records e join ingresos i on i.id = e.ingreso_id
                        where e.kind = 'MONITOREO' and e.anulado_at is null
                        group by i.paciente_id) m on m.pid = p.id
           where p.ultimo_monitoreo ${distinct} m.f`,
    ]);
  }
  if (tables.has('patient_active_counts')) {
    checks.push([
      'patient_active_counts (pacientes activos por mes de inicio)',
      sql`select count(*) as n from patient_active_counts c
            full join (select substr(activo_desde, 1, 7) as mes, count(*) as n from patients
                        where activo_desde is not null group by substr(activo_desde, 1, 7)) e on e.mes = c.mes
           where coalesce(c.n, 0) <> coalesce(e.n, 0)`,
    ]);
  }
  if (tables.has('patient_total')) {
    checks.push([
      'patient_total (pacientes en total)',
      sql`select case when (select coalesce(sum(n), 0) from patient_total) = (select count(*) from patients) then 0 else 1 end as n`,
    ]);
  }
  if (tables.has('patient_list_blocks')) {
    checks.push([
      'patient_list_blocks (pacientes y activos por bloque de la lista)',
      sql`select count(*) as n from patient_list_blocks b
           where b.n_all <> (select count(*) from patients p where p.apellido_norm >= b.start_key
                               and p.apellido_norm < coalesce((select min(c.start_key) from patient_list_blocks c where c.start_key > b.start_key), p.apellido_norm || 'x'))
              or b.n_active <> (select count(*) from patients p where p.activo_desde is not null and p.apellido_norm >= b.start_key
                               and p.apellido_norm < coalesce((select min(c.start_key) from patient_list_blocks c where c.start_key > b.start_key), p.apellido_norm || 'x'))`,
    ]);
  }
  for (const t of Object.keys(DERIVED_WORKLIST_TABLES) as (keyof typeof DERIVED_WORKLIST_TABLES)[]) {
    if (tables.has(t)) checks.push([`${t} (candidatos de las listas de la agenda)`, sql.raw<{ n: number | string }>(`select ${differingRows(t)} as n`)]);
  }
  for (const c of COUNTERS.filter((c) => tables.has(c.table))) {
    checks.push([`${c.table} (contadores del tablero)`, sql.raw<{ n: number | string }>(countersDifferingFromRows(c))]);
  }
  if (checkForeignKeys) {
    const fks = await sql<{ tbl: string; cols: string[]; ref: string; refcols: string[] }>`
      select c.conrelid::regclass::text as tbl, c.confrelid::regclass::text as ref,
             array(select attname::text from unnest(c.conkey) with ordinality k(n, o)
                     join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.o) as cols,
             array(select attname::text from unnest(c.confkey) with ordinality k(n, o)
                     join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.o) as refcols
        from pg_constraint c
       where c.contype = 'f' and c.conrelid = any(${UNTRIGGERED_TABLES.filter((t) => tables.has(t))}::regclass[])`.execute(db);
    for (const fk of fks.rows) {
      const on = fk.cols.map((c, i) => `t.${c} = r.${fk.refcols[i]}`).join(' and ');
      const present = fk.cols.map((c) => `t.${c} is not null`).join(' and ');
      const missing = fk.refcols.map((c) => `r.${c} is null`).join(' and ');
      checks.push([
        `clave foránea ${fk.tbl} (${fk.cols.join(', ')}) → ${fk.ref}`,
        sql`select count(*) as n from ${sql.raw(fk.tbl)} t left join ${sql.raw(fk.ref)} r on ${sql.raw(on)}
             where ${sql.raw(present)} and ${sql.raw(missing)}`,
      ]);
    }
  }
  const wrong: string[] = [];
  for (const [what, query] of checks) {
    const n = Number((await query.execute(db)).rows[0]!.n);
    if (n !== 0) wrong.push(`  ${what}: ${formatInt(n)} filas difieren`);
  }
  // The date rules (decision 0063), which the fast path's guards did not check row by row.
  if (tables.has(EXAM_TABLE)) {
    for (const [rule, n] of Object.entries(await countDateViolations(db))) {
      if (n !== 0) wrong.push(`  regla de fechas ${rule}: ${formatInt(n)} filas la incumplen`);
    }
  }
  if (wrong.length > 0) {
    fail(
      'ERROR: la base generada no es la que dejarían los triggers de la aplicación:\n' + wrong.join('\n') + '\n' +
        'El generador calcula mal alguna columna derivada (bench/generate.ts): no use esta base.',
    );
  }
}

/** Refuses a database with users other than 'bench' or with any patient, unless forced. */
async function checkTarget(db: Kysely<any>, url: string, force: boolean): Promise<void> {
  const others = await db
    .selectFrom('users')
    .select('username')
    .where('username_key', '<>', usernameKey(BENCH_USERNAME))
    .where('username_key', 'not like', `${PROFESSIONAL_PREFIX}%`)
    .limit(5)
    .execute();
  const patients = await countRows(db, 'patients');
  if ((others.length > 0 || patients > 0) && !force) {
    const what = [
      patients > 0 ? `${formatInt(patients)} pacientes` : null,
      others.length > 0 ? `usuarios distintos de '${BENCH_USERNAME}' (${others.map((u) => u.username).join(', ')}${others.length === 5 ? ', …' : ''})` : null,
    ].filter(Boolean);
    fail(
      `La base de datos ${displayUrl(url)} ya tiene datos: ${what.join(' y ')}.\n` +
        'El generador solo escribe en una base vacía o de benchmark. Use otra base (--database URL, por ejemplo ' +
        'sqlite:data/bench.sqlite) o, si está seguro de que no hay datos reales, --force para añadir pacientes sintéticos.',
    );
  }
}

async function ensureBenchUser(db: Kysely<any>, now: string): Promise<number> {
  const passwordHash = await hashPassword(BENCH_PASSWORD);
  const existing = await db.selectFrom('users').select('id').where('username_key', '=', usernameKey(BENCH_USERNAME)).executeTakeFirst();
  if (existing) {
    await db.updateTable('users').set({ password_hash: passwordHash, is_active: 1 }).where('id', '=', existing.id).execute();
    return existing.id as number;
  }
  const row = await db
    .insertInto('users')
    .values({ username: BENCH_USERNAME, username_key: usernameKey(BENCH_USERNAME), password_hash: passwordHash, is_admin: 1, is_active: 1, created_at: now, last_login_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id as number;
}

/** The professionals' user names: 'bench.prof01'… (the bench user's password; not administrators). */
const PROFESSIONAL_PREFIX = `${BENCH_USERNAME}.prof`;

/** The professionals visits are booked with, created when missing: their ids, in order. */
async function ensureProfessionals(db: Kysely<any>, count: number, now: string): Promise<number[]> {
  const passwordHash = await hashPassword(BENCH_PASSWORD);
  const ids: number[] = [];
  for (let i = 1; i <= count; i++) {
    const username = `${PROFESSIONAL_PREFIX}${String(i).padStart(2, '0')}`;
    const existing = await db.selectFrom('users').select('id').where('username_key', '=', usernameKey(username)).executeTakeFirst();
    if (existing) {
      await db.updateTable('users').set({ is_active: 1 }).where('id', '=', existing.id).execute();
      ids.push(Number(existing.id));
      continue;
    }
    const row = await db
      .insertInto('users')
      .values({ username, username_key: usernameKey(username), password_hash: passwordHash, is_admin: 0, is_active: 1, created_at: now, last_login_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(Number(row.id));
  }
  return ids;
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: {
        patients: { type: 'string' },
        database: { type: 'string' },
        force: { type: 'boolean', default: false },
        seed: { type: 'string', default: '20261122' },
        profesionales: { type: 'string' },
        'rips-month': { type: 'boolean', default: false },
        'sin-citas': { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (err) {
    fail(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  }
  const total = Number(args.patients);
  if (!args.patients || !Number.isInteger(total) || total < 1 || total > 10_000_000) fail(`--patients debe ser un entero positivo.\n${USAGE}`);
  const seed = Number(args.seed);
  if (!Number.isInteger(seed)) fail(`--seed debe ser un entero.\n${USAGE}`);
  const professionalCount = args.profesionales === undefined ? Math.max(3, Math.ceil(total / 800)) : Number(args.profesionales);
  if (!Number.isInteger(professionalCount) || professionalCount < 1 || professionalCount > 999) fail(`--profesionales debe ser un entero de 1 a 999.\n${USAGE}`);
  const url = databaseUrlFrom(args.database);

  const started = performance.now();
  const handle = openDatabase(url, { poolSize: 2 });
  const db = handle.db as unknown as Kysely<any>;
  const engine: Engine = handle.engine;
  try {
    await migrateToLatest(db);
    await checkTarget(db, url, args.force ?? false);

    const now = new Date();
    const today = todayIn(process.env.TIME_ZONE ?? 'America/Bogota', now);
    const userId = await ensureBenchUser(db, now.toISOString());
    const tables = await tableNames(db, engine);
    const exams = tables.has(EXAM_TABLE);
    const agenda = tables.has('citas') && !args['sin-citas'];
    const idTables = ['patients', 'ingresos', 'ingreso_historial', 'audit_log', ...(exams ? [EXAM_TABLE] : []), ...(agenda ? ['citas', 'cita_historial'] : [])];
    const ids = await nextIds(db, idTables);
    const documentos = new Set<string>();
    if ((await countRows(db, 'patients')) > 0) {
      // --force on a database with patients: keep documentos unique against those already there.
      for (const row of await db.selectFrom('patients').select('documento_key').execute()) documentos.add(row.documento_key as string);
    }
    console.log(`Generando ${formatInt(total)} pacientes en ${displayUrl(url)} (${engine}), hoy = ${today}`);
    console.log(exams ? `Exámenes: tabla ${EXAM_TABLE}` : `Exámenes: la tabla ${EXAM_TABLE} aún no existe; se omiten.`);
    let visits: Parameters<typeof generatePatient>[3]['visits'] = null;
    let schedule: Schedule | null = null;
    if (agenda) {
      const professionals = await ensureProfessionals(db, professionalCount, now.toISOString());
      const catalogue = await loadAgendaCatalogue(db);
      schedule = new Schedule(professionals, catalogue);
      visits = { r: rng(seed ^ 0x2a2a2a), ctx: { today, userId, catalogue, schedule, take: (t) => ids.take(t) } };
      console.log(`Agenda: las citas de cada ciclo, con ${formatInt(professionals.length)} profesionales (${PROFESSIONAL_PREFIX}01…)`);
    } else if (args['sin-citas']) {
      console.log('Agenda: sin citas (--sin-citas).');
    } else {
      console.log('Agenda: la tabla citas aún no existe; se omite.');
    }
    const existing = await columnNames(db, engine, 'patients');
    const patientColumns: PatientColumn[] = [...BASE_PATIENT_COLUMNS, ...[...DERIVED_PATIENT_COLUMNS, ...LATER_PATIENT_COLUMNS].filter((c) => existing.has(c))];
    const hora = exams && (await columnNames(db, engine, EXAM_TABLE)).has('hora');
    const examColumns: readonly string[] = hora ? [...EXAM_COLUMNS, 'hora'] : EXAM_COLUMNS;
    const ripsMonth = args['rips-month'] ? lastWholeMonth(today) : null;
    if (ripsMonth) console.log(`Peor caso de RIPS: todos de ENTITY_A, activos en ${ripsMonth.start.slice(0, 7)} con 3–7 exámenes ese mes`);

    const writer = await openWriter(url);
    // PostgreSQL: the patients with their triggers, everything else final and without (see SKIPPED_INSERT_TRIGGERS),
    // unless a trigger the generator does not know would be skipped, or the role may not skip triggers.
    let fast = writer.canSkipTriggers;
    if (engine === 'postgres') {
      const unknown = await unknownInsertTriggers(db, 'postgres');
      if (unknown.length > 0) {
        fast = false;
        console.log(
          `Triggers que el generador no conoce (${unknown.join(', ')}): todos los triggers se ejecutan fila a fila ` +
            '(carga lenta). La migración que los crea debe exportarlos (INSERT_TRIGGERS) con lo que mantienen; ver bench/load-triggers.ts.',
        );
      } else if (!fast) {
        console.log('El rol no puede fijar session_replication_role: todos los triggers se ejecutan fila a fila (carga lenta).');
      }
    }
    const r = rng(seed);
    const counts = { patients: 0, ingresos: 0, ingreso_historial: 0, audit_log: 0, exams: 0, citas: 0, cita_historial: 0 };
    const CHUNK = 2000;
    let lastReport = 0;
    // The next batch is generated while the database writes this one (generation yields to the event loop every
    // few hundred patients, so the writer's next statement goes out as soon as the previous one is done).
    let inFlight: Promise<unknown> = Promise.resolve();
    let writeError = null as Error | null; // set by a callback: typed wide so the checks below are not narrowed to null
    for (let done = 0; done < total; done += CHUNK) {
      const out: Batch = { patients: [], ingreso_historial: [], audit_log: [], citas: [], cita_historial: [], levels: [] };
      const n = Math.min(CHUNK, total - done);
      for (let i = 0; i < n; i++) {
        generatePatient(r, out, ids, { today, userId, documentos, exams, patientColumns, visits, ripsMonth, hora });
        if (i % 250 === 249) await yieldToLoop();
      }
      await inFlight;
      if (writeError) throw writeError;
      inFlight = writeBatch(writer, out, { fast, patientColumns, examColumns }).then(
        () => {
          counts.patients += out.patients.length;
          counts.ingreso_historial += out.ingreso_historial.length;
          counts.audit_log += out.audit_log.length;
          counts.citas += out.citas.length;
          counts.cita_historial += out.cita_historial.length;
          for (const level of out.levels) {
            counts.ingresos += level.ingresos.length;
            counts.exams += level.exams.length;
          }
          if (done + n - lastReport >= 10_000 || done + n === total) {
            lastReport = done + n;
            console.log(`  ${formatInt(done + n).padStart(11)} / ${formatInt(total)} pacientes  (${seconds(performance.now() - started)})`);
          }
        },
        (err: unknown) => void (writeError = err instanceof Error ? err : new Error(String(err))),
      );
    }
    await inFlight;
    if (writeError) throw writeError;
    await writer.close();

    if (fast) {
      // The counters whose insert triggers the fast path skipped (SKIPPED_INSERT_TRIGGERS), counted from the rows.
      const skipped = new Set(Object.values(SKIPPED_INSERT_TRIGGERS));
      await recount(db, COUNTERS.map((c) => c.table).filter((t) => skipped.has(t) && tables.has(t)));
      // The worklists' candidates (decision 0260), whose triggers on the visits, cycles and records it skipped.
      if (skipped.has('agenda_por_reagendar') && tables.has('agenda_por_reagendar')) await fillWorklistCandidates(db);
    }
    // The list's blocks were cut when the database was empty (one block): cut them again over the patients loaded.
    if (tables.has('patient_list_blocks')) await fillListBlocks(db);
    if (engine === 'postgres') {
      // Ids were given explicitly: move each serial sequence past them. Then what autovacuum would do on a
      // database that has lived for a while: set the visibility map (index-only scans depend on it), gather
      // statistics, and (slow path) reclaim the row versions left by the triggers that keep patients' columns.
      for (const t of idTables) {
        await sql`select setval(pg_get_serial_sequence(${t}, 'id'), coalesce((select max(id) from ${sql.table(t)}), 1))`.execute(db);
      }
      console.log(`  vacuum analyze… (${seconds(performance.now() - started)})`);
      await sql`vacuum analyze`.execute(db);
      // The counters derived by triggers (the registry's derivedFrom tables: a few rows each) took a row version per
      // patient written in a batch's transaction, which no pruning could reclaim: hundreds of empty pages that
      // every read of them scans (the list's blocks 539 pages for 98 rows, 0.4–0.8 ms a list page). The clinic's
      // one-row transactions leave them a few pages; rewriting them leaves the benchmark's the same (decision 0231).
      const derived = Object.entries(TABLES).filter(([t, e]) => 'derivedFrom' in e && tables.has(t)).map(([t]) => t);
      for (const t of derived) await sql`vacuum full analyze ${sql.table(t)}`.execute(db);
    }
    // What RIPS needs besides the patients (the provider's codes, the professionals' documents): bench/rips.ts.
    if (tables.has('rips_settings')) await fillRipsFacts(db);
    console.log(`  comprobando columnas derivadas${fast ? ' y claves foráneas' : ''}… (${seconds(performance.now() - started)})`);
    await verifyDerived(db, engine, fast);
    console.log(
      `Listo en ${seconds(performance.now() - started)}: ${formatInt(counts.patients)} pacientes, ${formatInt(counts.ingresos)} ingresos, ` +
        `${formatInt(counts.ingreso_historial)} cambios de estado, ${formatInt(counts.exams)} exámenes, ${formatInt(counts.audit_log)} entradas de auditoría, ` +
        `${formatInt(counts.citas)} citas (${formatInt(counts.cita_historial)} cambios)${schedule?.unplaced ? `; ${formatInt(schedule.unplaced)} citas sin cupo en su semana` : ''}.`,
    );
    console.log(`Usuario: ${BENCH_USERNAME}  contraseña: ${BENCH_PASSWORD}`);
  } finally {
    await handle.close();
  }
}

await main();
