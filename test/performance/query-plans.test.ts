// The indexes the list pages, the patient page, the clinical view and the session lookup rely on (see
// docs/performance.md) must stay in use. Each test requests a page as a user would, captures every SQL
// statement the application ran for it, asks the database for the plan of each SELECT, and checks the plans
// name the indexes and never scan a large table in full.
//
// SQLite: EXPLAIN QUERY PLAN; its planner picks the same plans on a few rows as on 100,000 (no statistics
// are gathered), so what is asserted here is what the benchmark measured.
// PostgreSQL: on a table of a few rows the planner rightly prefers a sequential scan, so the plans are asked
// for with `set local enable_seqscan = off` (and the same for sorts' alternatives left alone): a sequential
// scan that remains then means no index can serve the query at all, which is what must never happen. The
// assertion is therefore "the index is usable and chosen when scans are expensive", the property a rewrite
// of a query could break.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely';
import { buildApp } from '../../src/app.js';
import type { Db } from '../../src/db/database.js';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { findPeopleBornOn } from '../../src/patients/identity.repository.js';
import { FEW_VISITS, WORKLIST_KINDS } from '../../src/agenda/agenda.worklists.repository.js';
import { addDays } from '../../src/shared/dates.js';
import { visitRow } from '../fixtures/agenda.fixtures.js';
import { ENGINE, TestClient, TestClock, createTestDatabase, createUser, login, testConfig, type TestDatabase } from '../helpers.js';
import type { FastifyInstance } from 'fastify';

interface Statement {
  sql: string;
  parameters: readonly unknown[];
}

/** Records every statement compiled through the database it is plugged into. */
class CaptureStatements implements KyselyPlugin {
  statements: Statement[] = [];
  constructor(private readonly compile: (node: RootOperationNode, queryId: PluginTransformQueryArgs['queryId']) => CompiledQuery) {}
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const compiled = this.compile(args.node, args.queryId);
    this.statements.push({ sql: compiled.sql, parameters: compiled.parameters });
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

let database: TestDatabase;
let db: Db;
let app: FastifyInstance;
let client: TestClient;
let capture: CaptureStatements;
let patientId: number;
let userId: number;

before(async () => {
  database = await createTestDatabase();
  db = database.handle.db;
  capture = new CaptureStatements((node, queryId) => db.getExecutor().compileQuery(node, queryId));
  const clock = new TestClock();
  app = await buildApp({ config: testConfig(), db: db.withPlugin(capture), engine: database.handle.engine, clock, logger: false });
  await app.ready();
  const user = await createUser(db);
  userId = user.id;
  client = new TestClient(app);
  await login(client, user.username, user.password);

  const jose = await createPatient(db, { nombre: 'José', apellido: 'González Pérez' }, { fechaInicio: '2026-05-10' });
  patientId = jose.id;
  await createPatient(db, { nombre: 'María', apellido: 'Muñoz Peña' });
  await createPatient(db, { nombre: 'Óscar', apellido: 'Ardila' }, { fechaInicio: null });
  await db
    .insertInto('exam_records')
    .values({ ingreso_id: jose.ingresoId!, kind: 'OTRO', fecha: '2026-06-01', registrado_por: user.id, created_at: '2026-06-01T15:00:00.000Z', nombre_examen: 'Espirometría', resultado: 'Normal', observaciones: null, tipo: null, iah: null, saturacion_minima: null, horas_uso_promedio: null, porcentaje_noches_4h: null, presion_cmh2o: null, fuga_lpm: null, tipo_sesion: null, numero_sesion: null, isi: null, epworth: null, anulado_at: null, anulado_por: null, motivo_anulacion: null })
    .execute();
});

after(async () => {
  await app.close();
  await database.drop();
});

/** The plan of one statement, as text lines. */
async function planOf(s: Statement): Promise<string[]> {
  if (ENGINE === 'sqlite') {
    const r = await db.executeQuery(CompiledQuery.raw(`explain query plan ${s.sql}`, [...s.parameters]));
    return (r.rows as { detail: string }[]).map((row) => row.detail);
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const r = await trx.executeQuery(CompiledQuery.raw(`explain ${s.sql}`, [...s.parameters]));
    return (r.rows as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN']);
  });
}

/**
 * Pages are kept per data version once rendered (decision 0016): a change to a patient makes the next request
 * compute the page again, with every statement it needs.
 */
async function forgetKeptPages(): Promise<void> {
  await sql`update patients set updated_at = updated_at where id = ${patientId}`.execute(db);
}

/** Requests a page as computed anew; returns the plans of the SELECTs it ran, each with its statement. */
async function plansOfPage(url: string, options: { kept?: boolean } = {}): Promise<{ sql: string; plan: string[] }[]> {
  if (!options.kept) await forgetKeptPages();
  capture.statements = [];
  const res = await client.get(url);
  assert.equal(res.status, 200, `${url} answered ${res.status}`);
  const selects = capture.statements.filter((s) => /^\s*(select|with)\b/i.test(s.sql));
  capture.statements = [];
  const out: { sql: string; plan: string[] }[] = [];
  for (const s of selects) out.push({ sql: s.sql, plan: await planOf(s) });
  return out;
}

const LARGE_TABLES = ['patients', 'ingresos', 'ingreso_historial', 'exam_records', 'audit_log', 'sessions', 'citas'];

/** A full scan of a large table: SQLite's "SCAN t" without an index, PostgreSQL's "Seq Scan on t". */
function fullScans(plans: { sql: string; plan: string[] }[]): string[] {
  const found: string[] = [];
  for (const { sql: text, plan } of plans) {
    for (const line of plan) {
      const m = ENGINE === 'sqlite' ? /^SCAN (\w+)(?! USING)(?!.*VIRTUAL TABLE)\s*$/.exec(line.trim()) : /Seq Scan on (\w+)/.exec(line);
      if (!m) continue;
      const table = aliasTable(text, m[1]!);
      if (LARGE_TABLES.includes(table)) found.push(`${line.trim()}  in: ${text.slice(0, 160)}`);
    }
  }
  return found;
}

/** 'p' → 'patients' when the statement says `"patients" as "p"`. */
function aliasTable(statement: string, name: string): string {
  const m = new RegExp(`"?(\\w+)"?\\s+as\\s+"?${name}"?\\b`, 'i').exec(statement);
  return m && LARGE_TABLES.includes(m[1]!) ? m[1]! : name;
}

/** Every index named must appear in the page's plans ('a|b': either one). No large table is scanned in full. */
function assertUses(plans: { sql: string; plan: string[] }[], indexes: string[]): void {
  const text = plans.map((p) => p.plan.join('\n')).join('\n');
  for (const index of indexes) {
    assert.ok(
      index.split('|').some((name) => text.includes(name)),
      `no plan uses ${index}:\n${plans.map((p) => `${p.sql}\n  ${p.plan.join('\n  ')}`).join('\n')}`,
    );
  }
  assert.deepEqual(fullScans(plans), [], 'a large table is scanned in full');
  // SQLite builds an automatic index when none serves a join: a sign the statement lost its index.
  assert.deepEqual(plans.flatMap((p) => p.plan.filter((line) => /AUTOMATIC/.test(line))), [], 'an automatic index is built');
}

/** The ids of a list page come from walking `index` in list order, without sorting the matches. */
function assertPageWalks(plans: { sql: string; plan: string[] }[], index: string): void {
  const page = plans.find((p) => /as page_ids/.test(p.sql));
  assert.ok(page, 'no page statement');
  if (SQLITE) {
    assert.ok(page.plan.some((line) => line.includes(`USING COVERING INDEX ${index}`) || line.includes(`USING INDEX ${index}`)), page.plan.join('\n'));
    // The ten rows are sorted again after the join (a temp B-tree of ten rows); the walk itself never sorts.
    assert.equal(page.plan.filter((line) => /TEMP B-TREE/.test(line)).length <= 1, true, page.plan.join('\n'));
  } else {
    assert.ok(page.plan.join('\n').includes(index), page.plan.join('\n'));
  }
}

const SQLITE = ENGINE === 'sqlite';
const SEARCH_INDEX = SQLITE ? 'VIRTUAL TABLE INDEX' : 'patients_search_trgm';
const SESSION_INDEX = SQLITE ? 'sqlite_autoindex_sessions_1' : 'sessions_pkey';
// The counts of the active list come from the counters kept by triggers (migration 0020), never from patients.
const ACTIVE_COUNTS = 'patient_active_counts';
// The lists without a search or a month: their counts and where each page starts (migration 0441).
const LIST_BLOCKS = 'patient_list_blocks';
// With active patients only, PostgreSQL may narrow by the active index and filter the text, or use the
// trigram index: both are index plans, and which is cheaper depends on the statistics of the day. The
// trigram index itself is checked where it is the only way in (/patients/follow, every patient).
const ACTIVE_SEARCH_INDEXES = SQLITE ? [SEARCH_INDEX] : [];

describe(`query plans (engine=${ENGINE})`, () => {
  test('the session lookup of every request is one read by the session key', async () => {
    const plans = await plansOfPage('/patients/');
    const session = plans.filter((p) => /from "sessions"/.test(p.sql));
    assert.equal(session.length, 1);
    assertUses(session, [SESSION_INDEX]);
  });

  test('/patients/: the count, the page and its rows come from indexes', async () => {
    // The count and the page's start from the list's blocks (migration 0441), the page a walk of the order index.
    const first = await plansOfPage('/patients/');
    assertUses(first, [LIST_BLOCKS, 'patients_active_order_idx']);
    assertPageWalks(first, 'patients_active_order_idx');
    assertUses(await plansOfPage('/patients/?page=500'), [LIST_BLOCKS, 'patients_active_order_idx']);
  });

  test('/patients/?mes_filtro= counts from the counters and walks an index in list order', async () => {
    // 2..17: one calendar month, its own index in list order.
    const seven = await plansOfPage('/patients/?mes_filtro=7');
    assertUses(seven, [ACTIVE_COUNTS, 'patients_active_month_order_idx']);
    assertPageWalks(seven, 'patients_active_month_order_idx');
    // 1 and 18: open-ended ranges over many months, dense among the actives: the list order filtered.
    for (const mes of [1, 18]) {
      const plans = await plansOfPage(`/patients/?mes_filtro=${mes}`);
      assertUses(plans, [ACTIVE_COUNTS]);
      if (plans.some((p) => /as page_ids/.test(p.sql))) assertPageWalks(plans, 'patients_active_order_idx');
    }
  });

  test('/patients/?query_search= uses the trigram index (SQLite) and never scans the patients (both)', async () => {
    assertUses(await plansOfPage('/patients/?query_search=gonz'), ACTIVE_SEARCH_INDEXES);
    assertUses(await plansOfPage('/patients/?query_search=jose+perez&mes_filtro=7'), ACTIVE_SEARCH_INDEXES);
  });

  test('a search of several words ("maria rodriguez") counts and pages from the trigram index, never a scan of the patients (both)', async () => {
    await createPatient(db, { nombre: 'María Fernanda', apellido: 'Rodríguez Pérez' });
    for (const url of ['/patients/?query_search=maria+rodriguez', '/patients/follow?query_search=rodriguez+maria', '/patients/follow?query_search=maria+ro', '/exams/?query_search=maria+rodriguez']) {
      const plans = await plansOfPage(url);
      const searching = plans.filter((p) => /search_text|patients_fts/.test(p.sql));
      // A page of matches, or (SQLite, active list, few matches) every match in list order with the count.
      assert.ok(searching.some((p) => /as page_ids|with m as materialized/.test(p.sql)), `${url}: a page of matches was read`);
      // SQLite: each statement of the search (the count and the page) starts from FTS5; PostgreSQL: the trigram
      // index serves them where every patient counts (with active only it may narrow by the active index first).
      const indexes = SQLITE || url.includes('follow') ? [SEARCH_INDEX] : [];
      for (const p of searching) assertUses([p], indexes);
    }
  });

  test('/patients/follow?query_search= uses the trigram index and reads each page’s cycles by patient', async () => {
    assertUses(await plansOfPage('/patients/follow?query_search=gonz'), [SEARCH_INDEX, 'ingresos_paciente_idx', 'ingreso_historial_ingreso_idx']);
  });

  test('/patients/<id>/ reads the patient’s changes from their own index, and with the views by patient', async () => {
    assertUses(await plansOfPage(`/patients/${patientId}/`), ['audit_log_patient_changes_idx']);
    assertUses(await plansOfPage(`/patients/${patientId}/?consultas=1`), ['audit_log_patient_idx']);
  });

  test('/exams/<id>/ reads the active cycle’s records by Ingreso', async () => {
    assertUses(await plansOfPage(`/exams/${patientId}/`), ['exam_records_ingreso_idx']);
  });

  test('the RIPS page finds the month’s patients by a seek of each cycle’s records in the period', async () => {
    assertUses(await plansOfPage('/dashboard/rips/?mes=2026-10&entidad_salud=ENTITY_A'), ['exam_records_ingreso_fecha_idx']);
  });

  test('a kept list page reads the session and the table versions only', async () => {
    await plansOfPage('/patients/?mes_filtro=7');
    const plans = await plansOfPage('/patients/?mes_filtro=7', { kept: true });
    assert.deepEqual(
      plans.map((p) => /from "(\w+)"/.exec(p.sql)?.[1]),
      ['sessions', 'table_versions'],
    );
    // SQLite reads the versions' one page of rows instead of probing their key's index (decision 0055).
    if (SQLITE) assert.deepEqual(plans[1]!.plan, ['SCAN table_versions']);
  });

  test('the duplicate-person check is answered by the birth-date index alone, for a create and for an import', async () => {
    // One date (a create: the statement compiled once), several (an import's chunk).
    for (const dates of [['1980-01-01'], ['1980-01-01', '1981-02-03']]) {
      capture.statements = [];
      await findPeopleBornOn(db.withPlugin(capture), dates);
      const [statement] = capture.statements;
      capture.statements = [];
      const plan = await planOf(statement!);
      // PostgreSQL may visit the table to check visibility; the index still holds every column read (migration 0120).
      assert.ok(plan.some((line) => line.includes(SQLITE ? 'USING COVERING INDEX patients_birth_idx' : 'patients_birth_idx')), plan.join('\n'));
    }
  });

  // SQLite evaluates `x in ('a', 'b', 'c')` (three constants or more) by building a temporary b-tree, anew for
  // every row a statement writes when the list is a trigger's condition or a partial index's (decision 0056).
  if (SQLITE) {
    test('no trigger or partial index tests each row written against a list of three constants or more', async () => {
      const { rows } = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type in ('trigger', 'index') and sql is not null`.execute(db);
      const listed = rows.filter((r) => /\bin\s*\(\s*'[^']*'\s*(,\s*'[^']*'\s*){2,}\)/i.test(r.sql)).map((r) => r.name);
      assert.deepEqual(listed, []);
    });
  }
});

// The agenda at 100,000 patients (decisions 0146 and 0147, migrations 0410 and 0480): the day and the week read their
// days' range, or the professional's; the worklists' professional filter reads the professional's cycles once, a range
// of (profesional_id, ingreso_id), and filters the list's own walk with them; the no-shows still to re-book and the
// AOS cycles with their latest CPAP download are tables kept by triggers (decision 0260), each walked in its index; the
// due visits are walked in the PENDIENTE visits' partial index, and most lists test the professional by a seek per
// row walked (decision 0290). SQLite's plans are asserted by name (its choices are the benchmark's); PostgreSQL's, only that no
// large table is scanned in full (its planner has statistics and may take another index on a few rows).
/**
 * Gives the professional FEW_VISITS cancelled visits (one a day from 2024), once: their worklists are then walked in
 * the lists' order, each walked row tested against their cycles, as a busy professional's are (decision 0345).
 */
async function makeBusy(profesional: number): Promise<void> {
  const has = await db.selectFrom('citas').select(sql<number | string>`count(*)`.as('n')).where('profesional_id', '=', profesional).executeTakeFirstOrThrow();
  if (Number(has.n) >= FEW_VISITS) return;
  const p = await createPatient(db, { nombre: 'Agenda', apellido: 'Llena' }, { fechaInicio: '2024-01-01' });
  const rows = Array.from({ length: FEW_VISITS }, (_, i) => visitRow({ patient: p, estado: 'CANCELADA', fecha: addDays('2024-01-02', i), profesional, now: '2026-01-01T15:00:00.000Z' }));
  await db.insertInto('citas').values(rows).execute();
}

describe(`query plans of the agenda (engine=${ENGINE})`, () => {
  const day = '2026-11-23';
  test('the day of the whole clinic is a range of citas_dia_idx, counted and paged in it; of a professional, of citas_profesional_idx', async () => {
    assertUses(await plansOfPage(`/agenda/?fecha=${day}`), SQLITE ? ['COVERING INDEX citas_dia_idx (fecha>? AND fecha<?)'] : []);
    assertUses(await plansOfPage(`/agenda/?fecha=${day}&vista=semana&pagina=3`), SQLITE ? ['COVERING INDEX citas_dia_idx (fecha>? AND fecha<?)'] : []);
    assertUses(await plansOfPage(`/agenda/?fecha=${day}&profesional=1`), SQLITE ? ['citas_profesional_idx (profesional_id=? AND inicio_min>? AND inicio_min<?)'] : []);
    // A professional's visits come from the index alone (decision 0325, migration 0600): no visit's row is read.
    assertUses(await plansOfPage(`/agenda/?fecha=${day}&vista=semana&profesional=1`), SQLITE ? ['COVERING INDEX citas_profesional_idx (profesional_id=? AND inicio_min>? AND inicio_min<?)'] : []);
    // Someone's visits are joined as the index walks them, each read once: not their ids first, then each visit again
    // by its id (decision 0315).
    for (const url of [`/agenda/?fecha=${day}&vista=semana&profesional=1`, `/agenda/?fecha=${day}&recurso=1`]) {
      const visits = (await plansOfPage(url)).filter((s) => /"citas" as "c"/.test(s.sql));
      assert.equal(visits.length, 1, url);
      assert.ok(!/ in \(select/.test(visits[0]!.sql), `${url}: ${visits[0]!.sql}`);
      if (SQLITE) assert.ok(!visits[0]!.plan.some((line) => /SEARCH c USING INTEGER PRIMARY KEY/.test(line)), `${url}: ${visits[0]!.plan.join(' | ')}`);
    }
  });

  test("a booking finds the cycle's earliest due visit of its kind among the cycle's visits, never walking every due visit", async () => {
    // The follow page's form opens a cycle with its plan: due visits of each kind (decision 0101).
    const p = await createPatient(db, { nombre: 'Reserva', apellido: 'Plan' }, { fechaInicio: null });
    assert.equal((await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: '2026-11-20', query_search: '', page: '' })).status, 302);
    capture.statements = [];
    const res = await client.post('/agenda/citas/nueva/', { patient_id: String(p.id), tipo: 'CONTROL_CPAP', fecha: '2026-11-24', hora: '09:00', duracion_min: '30', profesional: String(userId), recurso: '' });
    assert.equal(res.status, 302);
    const due = capture.statements.filter((s) => /from "citas" where "ingreso_id" = \$?\d*\?? and "tipo"/.test(s.sql));
    assert.equal(due.length, 1, capture.statements.map((s) => s.sql).join('\n'));
    const plans = [{ sql: due[0]!.sql, plan: await planOf(due[0]!) }];
    capture.statements = [];
    // SQLite (no statistics) took citas_estado_vence_idx for the order and walked every due visit of the clinic
    // (181,000 at 100,000 patients, ~330 ms a booking: decision 0295).
    // PostgreSQL plans from its statistics (on a few rows it may take either index): no scan of citas, as for the others.
    assertUses(plans, SQLITE ? ['citas_ingreso_idx (ingreso_id=? AND estado=?)'] : []);
    // Nor the PENDIENTE visits' index, which gives the due date's order too (decision 0290).
    if (SQLITE) assert.ok(!plans[0]!.plan.some((line) => /citas_estado_vence_idx|citas_pendientes_idx/.test(line)), plans[0]!.plan.join('\n'));
  });

  test("the worklists' professional filter and the no-shows use their indexes", async () => {
    await makeBusy(1);
    const plans = await plansOfPage('/agenda/pendientes/?lista=inasistencias&profesional=1');
    assertUses(
      plans,
      SQLITE
        ? [
            'COVERING INDEX citas_profesional_ingreso_idx (profesional_id=?)',
            // The no-shows still to re-book, kept by triggers (decision 0260): walked by date, from the index alone.
            'SCAN n USING COVERING INDEX agenda_por_reagendar_fecha_idx',
          ]
        : // PostgreSQL plans from its statistics: on this test's few rows either index of the professional's visits
          // (since migration 0600 the wider one costs the same to it here); never a scan of citas (assertUses).
          ['agenda_por_reagendar_fecha_idx|agenda_por_reagendar_ciclo_idx', 'citas_profesional_ingreso_idx|citas_profesional_idx'],
    );
    if (SQLITE) {
      // Never the professional's whole history for each cycle (citas_profesional_idx on the professional alone).
      assert.ok(!plans.some((p) => p.plan.some((line) => /citas_profesional_idx \(profesional_id=\?\)/.test(line))), 'the filter walks the professional\'s visits');
      // The cycles lists walk the open cycles by start, the professional's cycles a filter (not read one by one and sorted).
      const sinProxima = await plansOfPage('/agenda/pendientes/?lista=sin_proxima&profesional=1');
      assert.ok(sinProxima.some((p) => p.plan.some((line) => line.includes('SCAN i USING COVERING INDEX ingresos_activo_fecha_idx'))), sinProxima.map((p) => p.plan.join('\n')).join('\n'));
      // Its count walks the professional's cycles, not the clinic's open cycles (decision 0335).
      const sinProximaCount = sinProxima.find((p) => /^select \(select count\(\*\)/.test(p.sql))!;
      assert.ok(sinProximaCount.plan.some((line) => line.includes('SEARCH cp USING COVERING INDEX citas_profesional_ingreso_idx (profesional_id=?)')), sinProximaCount.plan.join('\n'));
      assert.ok(!sinProximaCount.plan.some((line) => line.includes('ingresos_activo_fecha_idx')), sinProximaCount.plan.join('\n'));
      // The AOS program's open cycles with their latest CPAP download, kept by triggers (decision 0260): walked in the
      // list's order, the dates and figures tested in the index.
      assertUses(await plansOfPage('/agenda/pendientes/?lista=cpap'), ['SCAN k USING COVERING INDEX agenda_cpap_ciclos_fecha_idx']);
    }
  });

  test("the counts with no program or insurer walk each list's index alone, reading no cycle or patient", async () => {
    const plans = await plansOfPage('/agenda/pendientes/?lista=semana');
    const counts = plans.find((p) => /^select \(select count\(\*\) from \(\(select /.test(p.sql));
    assert.ok(counts, 'the counts are read');
    // Decision 0305: the joins each walked row would make always find their row, so the count makes none. The open
    // cycles' walk of sin_proxima is a walk of ingresos itself.
    assert.ok(!/"patients"|"agenda_tipos"/.test(counts.sql), counts.sql);
    if (SQLITE) {
      assertUses([counts], ['SEARCH c USING COVERING INDEX citas_pendientes_idx', 'SCAN n USING COVERING INDEX agenda_por_reagendar_fecha_idx', 'SCAN k USING COVERING INDEX agenda_cpap_ciclos_fecha_idx']);
      assert.ok(!counts.plan.some((line) => /SEARCH p |SEARCH t /.test(line)), counts.plan.join('\n'));
    } else {
      assertUses([counts], []);
    }
  });

  test("the due visits' lists walk the PENDIENTE visits' index; filtered by a professional, a seek per visit walked", async () => {
    await makeBusy(1);
    for (const lista of ['semana', 'vencidas']) {
      const plans = await plansOfPage(`/agenda/pendientes/?lista=${lista}&profesional=1`);
      // The partial index of the PENDIENTE visits holds each one's cycle and kind (decision 0290): no visit's row is
      // read; the professional's visits of the walked visit's cycle, one seek in (profesional_id, ingreso_id).
      assertUses(
        plans,
        SQLITE
          ? ['SEARCH c USING COVERING INDEX citas_pendientes_idx (vence_el', 'COVERING INDEX citas_profesional_ingreso_idx (profesional_id=? AND ingreso_id=?)']
          : [],
      );
      if (SQLITE) assert.ok(!plans.some((p) => p.plan.some((line) => /citas_estado_vence_idx/.test(line))), 'the index of every visit by state is gone');
    }
  });

  test('a professional of few visits has every list led by their cycles, never a walk of the clinic\'s list (decision 0345)', async () => {
    const few = await createUser(db);
    const p = await createPatient(db, { nombre: 'Pocas', apellido: 'Citas' }, { fechaInicio: '2026-05-01' });
    await db.insertInto('citas').values(visitRow({ patient: p, estado: 'ATENDIDA', fecha: '2026-06-01', profesional: few.id, now: '2026-06-01T15:00:00.000Z' })).execute();
    for (const lista of WORKLIST_KINDS) {
      for (const programa of ['', '&programa=PROGRAMA+AOS']) {
        const url = `/agenda/pendientes/?lista=${lista}&profesional=${few.id}${programa}`;
        const plans = await plansOfPage(url);
        // The five counts in one statement, and the list's page.
        const lists = plans.filter((s) => /^select \(select count\(\*\)|^select "p"\."id" as "paciente_id"/.test(s.sql));
        assert.equal(lists.length, 2, `${url}: the counts and the list`);
        assertUses(lists, []);
        if (SQLITE) {
          for (const { sql: text, plan } of lists) {
            // Each list's rows are found by the professional's cycles, one seek each, not the list walked in its order.
            const where = `${url}\n${text}\n  ${plan.join('\n  ')}`;
            assert.ok(plan.some((line) => /SEARCH [cnik] USING .*\((ingreso_id|rowid)=\?/.test(line)), where);
            assert.ok(!plan.some((line) => /citas_pendientes_idx \(vence_el|SCAN n USING|SCAN k USING|ingresos_activo_fecha_idx/.test(line)), where);
          }
        }
      }
    }
  });
});

// The dashboard and capita.csv (docs/performance.md items 4 and 5; migration 0021). The dashboard's figures are
// cached per data version, so a change is made first: the request then computes them and its statements are seen.
describe(`query plans of the dashboard and the capitation report (engine=${ENGINE})`, () => {
  test('/dashboard/: every figure from an index, no large table scanned', async () => {
    await createPatient(db, { nombre: 'Nadia', apellido: 'Núñez' }, { fechaInicio: '2024-01-15' });
    const plans = await plansOfPage('/dashboard/');
    assert.ok(plans.some((p) => /from "table_versions"/.test(p.sql)), 'the data version is read');
    assert.ok(plans.some((p) => /ultimo_monitoreo/.test(p.sql)), 'the figures were computed, not served from the cache');
    // The counts come from the counters the triggers keep (migration 0070), never from an aggregate over the
    // patients or their Ingresos; only the two short lists read those tables, each a range of an index.
    for (const counter of ['dashboard_open_counts', 'dashboard_cycle_counts', 'dashboard_monitoreo_counts']) {
      assert.ok(plans.some((p) => new RegExp(`from "${counter}"`).test(p.sql)), `${counter} is read`);
    }
    // The agenda's worklist counts (decision 0210) count each list's walk cut at its 201st row, not the tables.
    const capped = (sql: string) => /^select \(select count\(\*\) from \(\(select /.test(sql) && !/count\(\*\) from "/.test(sql);
    const aggregates = plans.filter((p) => /count\(|sum\(/i.test(p.sql) && /"(patients|ingresos)"/.test(p.sql) && !capped(p.sql));
    assert.deepEqual(aggregates.map((p) => p.sql), [], 'no count over patients or ingresos');
    assertUses(plans, ['ingresos_open_fecha_idx', 'patients_active_monitoreo_idx']);
  });

  test('/dashboard/ served from the cache reads the session and the table versions only', async () => {
    await plansOfPage('/dashboard/');
    const plans = await plansOfPage('/dashboard/', { kept: true });
    // Two kept parts, each under the versions of its own tables (the dashboard's figures and the agenda's counts),
    // both versions read in one statement (decision 0220).
    assert.deepEqual(
      plans.map((p) => /from "(\w+)"/.exec(p.sql)?.[1]),
      ['sessions', 'table_versions'],
    );
  });

  test('a worklist served from the cache reads the session and the table versions only', async () => {
    // Kept from its second render (decision 0375).
    for (let render = 0; render < 2; render++) await plansOfPage('/agenda/pendientes/?lista=cpap&programa=PROGRAMA+AOS', { kept: true });
    const plans = await plansOfPage('/agenda/pendientes/?lista=cpap&programa=PROGRAMA+AOS', { kept: true });
    // The versions of its four kept parts in one read (decisions 0210, 0220, 0265): the professionals the filter is
    // checked against, the counts, the list, its links and form. No list is walked, no professional read again.
    assert.deepEqual(
      plans.map((p) => /from "(\w+)"/.exec(p.sql)?.[1]),
      ['sessions', 'table_versions'],
    );
  });

  test('capita.csv of the current month: each page a range of the active patients in report order', async () => {
    const plans = await plansOfPage('/dashboard/capita.csv?mes=2026-11');
    assertUses(plans.filter((p) => /from "patients"/.test(p.sql)), ['patients_active_capita_idx']);
    const one = await plansOfPage('/dashboard/capita.csv?mes=2026-11&entidad=ENTITY_B');
    assertUses(one.filter((p) => /from "patients"/.test(p.sql)), ['patients_active_capita_idx']);
  });

  test('the novedades report of this month: its list a range of the active patients, its novedades ranges of dates', async () => {
    // A novedad of each kind the month can hold, so every branch of the union is planned on real rows.
    await createPatient(db, { nombre: 'Olga', apellido: 'Ortiz' }, { fechaInicio: '2026-11-02' });
    const plans = await plansOfPage('/dashboard/novedades/?mes=2026-11&entidad_salud=ENTITY_A');
    assertUses(plans.filter((p) => /from "patients"/.test(p.sql)), ['patients_active_capita_idx']);
    assertUses(plans.filter((p) => /from "ingreso_historial"/.test(p.sql)), ['ingreso_historial_fecha_idx', 'ingresos_fecha_inicio_idx']);
  });
});
