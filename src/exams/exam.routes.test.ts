import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestContext, ENGINE, loggedInClient, messagesIn, type TestClient, type TestContext } from '../../test/helpers.js';
import { openIngreso } from '../ingresos/ingreso.repository.js';
import { createPatient } from '../patients/patient.fixtures.js';
import { EXAM_MSG } from './exam.routes.js';

// Today is 2026-11-22 in America/Bogota (the TestClock's default instant).
const TODAY = '2026-11-22';

let ctx: TestContext;
let client: TestClient;
let userId: number;
let username: string;

before(async () => {
  ctx = await createTestContext();
  const logged = await loggedInClient(ctx);
  client = logged.client;
  userId = logged.user.id;
  username = logged.user.username;
});
after(async () => {
  await ctx.close();
});
// Any message left queued by an earlier test is shown (and consumed) here.
beforeEach(async () => {
  await client.get('/exams/');
});

let seq = 0;
/** A patient with an ACTIVO Ingreso from 2026-09-10 (or none, with fechaInicio null). */
async function patient(options: { fechaInicio?: string | null; nombre?: string } = {}) {
  seq++;
  const p = await createPatient(
    ctx.db,
    { nombre: options.nombre ?? `Examina${seq}`, apellido: `Clinica${seq}`, peso: 9000, altura: 170 },
    { fechaInicio: options.fechaInicio === undefined ? '2026-09-10' : options.fechaInicio },
  );
  return { id: p.id, ingresoId: p.ingresoId! };
}

async function terminate(ingresoId: number, fechaFin = '2026-11-20') {
  await ctx.db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: fechaFin, motivo: 'Fin del ciclo de prueba' }).where('id', '=', ingresoId).execute();
}

async function newCycle(pacienteId: number, fechaInicio = '2026-11-21') {
  return ctx.db.transaction().execute((trx) => openIngreso(trx, { pacienteId, fechaInicio, userId: null, now: new Date().toISOString() }));
}

/** Posts a form and follows the redirect, so its one-time message does not linger for later assertions. */
async function add(path: string, form: Record<string, string>) {
  const res = await client.post(path, form);
  if (res.status === 302) await client.follow(res);
  return res;
}

const recordsOf = (ingresoId: number) => ctx.db.selectFrom('exam_records').selectAll().where('ingreso_id', '=', ingresoId).orderBy('id').execute();

const auditOf = (action: string, patientId: number) =>
  ctx.db.selectFrom('audit_log').selectAll().where('action', '=', action).where('patient_id', '=', patientId).orderBy('id').execute();

const MONITOREO = { fecha: '2026-11-15', tipo: 'POLISOMNOGRAFIA', iah: '12,5', saturacion_minima: '84', horas_uso_promedio: '5.5', porcentaje_noches_4h: '80', presion_cmh2o: '9', fuga_lpm: '', observaciones: 'Buena tolerancia' };
const PSICOLOGIA = { fecha: '2026-11-16', tipo_sesion: 'TCC_I', numero_sesion: '3', isi: '16', epworth: '9', observaciones: '' };
const OTRO = { fecha: '2026-11-17', nombre_examen: 'Espirometría', resultado: 'Normal', observaciones: '' };

/** The data-exam-id / data-exam-kind pairs of a page's timeline, in page order. */
function timeline(html: string): { id: number; kind: string; anulado: boolean }[] {
  const out: { id: number; kind: string; anulado: boolean }[] = [];
  const re = /<article[^>]*data-exam-kind="(\w+)" data-exam-id="(\d+)"( data-anulado="true")?/g;
  for (let m = re.exec(html); m; m = re.exec(html)) out.push({ kind: m[1]!, id: Number(m[2]), anulado: Boolean(m[3]) });
  return out;
}

/** The field error shown beside a field of one of the forms (ids are prefixed per form). */
function fieldError(html: string, prefix: string, field: string): string | null {
  const m = new RegExp(`<p class="field-error" id="error_${prefix}_${field}">([^<]*)</p>`).exec(html);
  return m ? m[1]! : null;
}

test(`exams run on ${ENGINE}`, () => {
  assert.equal(ctx.database.handle.engine, ENGINE);
});

describe('GET /exams/', () => {
  test('lists patients with an ACTIVO Ingreso only, searchable, each linking to its clinical view', async () => {
    const active = await patient({ nombre: 'Zacarías' });
    const without = await patient({ nombre: 'Zacarías', fechaInicio: null });
    const ended = await patient({ nombre: 'Zacarías' });
    await terminate(ended.ingresoId);
    const res = await client.get('/exams/?query_search=zacarias');
    assert.equal(res.status, 200);
    assert.match(res.body, new RegExp(`data-patient-id="${active.id}"`));
    assert.match(res.body, new RegExp(`href="/exams/${active.id}/"`));
    assert.doesNotMatch(res.body, new RegExp(`data-patient-id="${without.id}"`));
    assert.doesNotMatch(res.body, new RegExp(`data-patient-id="${ended.id}"`));
    assert.match(res.body, /data-total="1"/);
    const other = await client.get('/exams/?query_search=nadie-se-llama-asi');
    assert.doesNotMatch(other.body, new RegExp(`data-patient-id="${active.id}"`));
    assert.match(other.body, /data-total="0"/);
  });

  test('pages of 10, links keep the search', async () => {
    const ids = [];
    for (let i = 0; i < 11; i++) ids.push((await patient({ nombre: 'Paginada' })).id);
    const first = await client.get('/exams/?query_search=paginada');
    assert.match(first.body, /data-total="11"/);
    assert.equal((first.body.match(/<tr data-patient-id=/g) ?? []).length, 10);
    assert.match(first.body, /href="\/exams\/\?query_search=paginada&amp;page=2"/);
    const second = await client.get('/exams/?query_search=paginada&page=2');
    assert.equal((second.body.match(/<tr data-patient-id=/g) ?? []).length, 1);
    const past = await client.get('/exams/?query_search=paginada&page=99');
    assert.equal((past.body.match(/<tr data-patient-id=/g) ?? []).length, 1);
    assert.equal((await client.get('/exams/?page=abc')).status, 200);
  });
});

describe('GET /exams/<patient_id>/', () => {
  test('shows the summary, the ACTIVO Ingreso with mes_capita, the three forms, and is audited', async () => {
    const p = await patient();
    const res = await client.get(`/exams/${p.id}/`);
    assert.equal(res.status, 200);
    assert.match(res.body, new RegExp(`Examina${seq} Clinica${seq}`));
    assert.match(res.body, /data-imc="31.1"/);
    assert.match(res.body, /Obesidad grado I/);
    assert.match(res.body, new RegExp(`data-ingreso-id="${p.ingresoId}" data-estado="ACTIVO"`));
    assert.match(res.body, /data-mes-capita="3"/);
    for (const kind of ['MONITOREO', 'PSICOLOGIA', 'OTRO']) assert.match(res.body, new RegExp(`data-exam-form="${kind}"`));
    assert.match(res.body, /No hay registros en este ingreso/);
    const audits = await auditOf('exam.view_clinical', p.id);
    assert.equal(audits.length, 1);
    assert.equal(audits[0]!.user_id, userId);
  });

  test('unknown or non-numeric patient: 404', async () => {
    for (const path of ['/exams/999999/', '/exams/abc/', '/exams/0/', '/exams/1.5/']) {
      assert.equal((await client.get(path)).status, 404, path);
    }
  });

  test('no ACTIVO Ingreso: says so, no records, no forms, links to earlier cycles', async () => {
    const p = await patient();
    await add(`/exams/${p.id}/otros/`, OTRO);
    await terminate(p.ingresoId);
    const res = await client.get(`/exams/${p.id}/`);
    assert.equal(res.status, 200);
    assert.match(res.body, /data-no-activo="true"/);
    assert.match(res.body, /no tiene un ingreso ACTIVO/);
    assert.deepEqual(timeline(res.body), []);
    assert.doesNotMatch(res.body, /data-exam-form=/);
    assert.match(res.body, new RegExp(`href="/exams/${p.id}/ingreso/${p.ingresoId}/"`));
  });

  test('SUSPENDIDO Ingreso: no forms, and a pointer to reactivate it', async () => {
    const p = await patient();
    await ctx.db.updateTable('ingresos').set({ estado: 'SUSPENDIDO' }).where('id', '=', p.ingresoId).execute();
    const res = await client.get(`/exams/${p.id}/`);
    assert.match(res.body, /data-no-activo="true"/);
    assert.match(res.body, /SUSPENDIDO/);
    assert.doesNotMatch(res.body, /data-exam-form=/);
    const post = await client.post(`/exams/${p.id}/monitoreo/`, MONITOREO);
    assert.equal(post.status, 302);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
  });
});

describe('POST /exams/<patient_id>/monitoreo/', () => {
  test('valid: stored in hundredths on the ACTIVO Ingreso by the logged-in user, audited, 302 with a message', async () => {
    const p = await patient();
    const res = await client.post(`/exams/${p.id}/monitoreo/`, MONITOREO);
    assert.equal(res.status, 302);
    assert.equal(res.location, `/exams/${p.id}/`);
    const [row] = await recordsOf(p.ingresoId);
    assert.ok(row);
    assert.equal(row.kind, 'MONITOREO');
    assert.equal(row.registrado_por, userId);
    assert.equal(row.fecha, '2026-11-15');
    assert.equal(row.tipo, 'POLISOMNOGRAFIA');
    assert.equal(row.iah, 1250);
    assert.equal(row.saturacion_minima, 8400);
    assert.equal(row.horas_uso_promedio, 550);
    assert.equal(row.porcentaje_noches_4h, 8000);
    assert.equal(row.presion_cmh2o, 900);
    assert.equal(row.fuga_lpm, null);
    assert.equal(row.observaciones, 'Buena tolerancia');
    const audits = await auditOf('exam.create', p.id);
    assert.equal(audits.length, 1);
    assert.equal(audits[0]!.entity_id, row.id);
    assert.equal(audits[0]!.user_id, userId);
    assert.deepEqual(JSON.parse(audits[0]!.changes!).iah, [null, 1250]);

    const page = await client.follow(res);
    assert.deepEqual(messagesIn(page.body), [{ level: 'success', text: EXAM_MSG.created('MONITOREO') }]);
    assert.deepEqual(timeline(page.body), [{ id: row.id, kind: 'MONITOREO', anulado: false }]);
    assert.match(page.body, /12,5 eventos\/h/);
    assert.match(page.body, /data-band="iah:leve"/);
    assert.match(page.body, /data-band="cpap:adherente"/);
    assert.match(page.body, new RegExp(`data-registrado-por="${username}"`));
  });

  test('only fecha and tipo are required; ranges at their edges are accepted', async () => {
    const p = await patient();
    assert.equal((await client.post(`/exams/${p.id}/monitoreo/`, { fecha: TODAY, tipo: 'OXIMETRIA' })).status, 302);
    const edges = { fecha: TODAY, tipo: 'DESCARGA_CPAP', iah: '200', saturacion_minima: '100', horas_uso_promedio: '24', porcentaje_noches_4h: '100', presion_cmh2o: '30', fuga_lpm: '200', observaciones: 'x'.repeat(2000) };
    assert.equal((await client.post(`/exams/${p.id}/monitoreo/`, edges)).status, 302);
    const zeros = { fecha: TODAY, tipo: 'titulacion_cpap', iah: '0', saturacion_minima: '0', horas_uso_promedio: '0', porcentaje_noches_4h: '0', presion_cmh2o: '0', fuga_lpm: '0' };
    assert.equal((await client.post(`/exams/${p.id}/monitoreo/`, zeros)).status, 302);
    const rows = await recordsOf(p.ingresoId);
    assert.equal(rows.length, 3);
    assert.equal(rows[0]!.iah, null);
    assert.equal(rows[1]!.iah, 20000);
    assert.equal(rows[1]!.fuga_lpm, 20000);
    assert.equal(rows[2]!.tipo, 'TITULACION_CPAP');
    assert.equal(rows[2]!.iah, 0);
  });

  test('invalid: 200 with the clinical view, errors beside the fields of that form only, input kept, nothing stored', async () => {
    const p = await patient();
    const bad = { fecha: '2026-11-23', tipo: 'RESONANCIA', iah: '200,01', saturacion_minima: '-1', horas_uso_promedio: '25', porcentaje_noches_4h: '100.5', presion_cmh2o: 'abc', fuga_lpm: '1.234', observaciones: 'y'.repeat(2001) };
    const res = await client.post(`/exams/${p.id}/monitoreo/`, bad);
    assert.equal(res.status, 200);
    assert.match(fieldError(res.body, 'monitoreo', 'fecha') ?? '', /posterior a hoy/);
    assert.match(fieldError(res.body, 'monitoreo', 'tipo') ?? '', /Seleccione una opción/);
    assert.match(fieldError(res.body, 'monitoreo', 'iah') ?? '', /máximo es 200,00/);
    assert.match(fieldError(res.body, 'monitoreo', 'saturacion_minima') ?? '', /negativo/);
    assert.match(fieldError(res.body, 'monitoreo', 'horas_uso_promedio') ?? '', /máximo es 24,00/);
    assert.match(fieldError(res.body, 'monitoreo', 'porcentaje_noches_4h') ?? '', /máximo es 100,00/);
    assert.match(fieldError(res.body, 'monitoreo', 'presion_cmh2o') ?? '', /número válido/);
    assert.match(fieldError(res.body, 'monitoreo', 'fuga_lpm') ?? '', /número válido/);
    assert.match(fieldError(res.body, 'monitoreo', 'observaciones') ?? '', /Máximo 2000/);
    assert.match(res.body, /id="id_monitoreo_iah"[^>]*value="200,01"|value="200,01"[^>]*id="id_monitoreo_iah"/);
    assert.match(res.body, /id="id_monitoreo_iah"[^>]*aria-invalid="true"/);
    assert.equal(fieldError(res.body, 'psicologia', 'fecha'), null);
    assert.equal(fieldError(res.body, 'otros', 'fecha'), null);
    assert.match(messagesIn(res.body)[0]!.text, /No se guardó el registro de monitoreo: revise los campos marcados/);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
    assert.equal((await auditOf('exam.create', p.id)).length, 0);
  });

  test('fecha missing or not a real day: field error', async () => {
    const p = await patient();
    const missing = await client.post(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '' });
    assert.equal(missing.status, 200);
    assert.match(fieldError(missing.body, 'monitoreo', 'fecha') ?? '', /obligatoria/);
    const impossible = await client.post(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '2026-02-30' });
    assert.match(fieldError(impossible.body, 'monitoreo', 'fecha') ?? '', /fecha válida/);
    const missingTipo = await client.post(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, tipo: '' });
    assert.match(fieldError(missingTipo.body, 'monitoreo', 'tipo') ?? '', /obligatorio/);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
  });

  test('unknown or repeated fields are refused with a message, nothing stored', async () => {
    const p = await patient();
    const unknown = await client.post(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, isi: '3' });
    assert.equal(unknown.status, 200);
    assert.match(unknown.body, /campos desconocidos: isi/);
    const repeated = await client.post(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, iah: ['1', '2'] });
    assert.equal(repeated.status, 200);
    assert.match(fieldError(repeated.body, 'monitoreo', 'iah') ?? '', /más de una vez/);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
  });

  test('no ACTIVO Ingreso (never had one, or terminated after the form was loaded): 302 back with the error, nothing stored', async () => {
    const none = await patient({ fechaInicio: null });
    const res = await client.post(`/exams/${none.id}/monitoreo/`, MONITOREO);
    assert.equal(res.status, 302);
    assert.equal(res.location, `/exams/${none.id}/`);
    const page = await client.follow(res);
    assert.deepEqual(messagesIn(page.body), [{ level: 'error', text: EXAM_MSG.noActivo }]);

    const p = await patient();
    await client.get(`/exams/${p.id}/`);
    await terminate(p.ingresoId);
    for (const [path, form] of [['monitoreo', MONITOREO], ['psicologia', PSICOLOGIA], ['otros', OTRO]] as const) {
      const r = await client.post(`/exams/${p.id}/${path}/`, { ...form, fecha: '2099-01-01' });
      assert.equal(r.status, 302, path);
      assert.deepEqual(messagesIn((await client.follow(r)).body), [{ level: 'error', text: EXAM_MSG.noActivo }]);
    }
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
    const count = await ctx.db.selectFrom('exam_records').select(sql<number>`cast(count(*) as integer)`.as('n')).innerJoin('ingresos', 'ingresos.id', 'exam_records.ingreso_id').where('ingresos.paciente_id', 'in', [none.id, p.id]).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
  });

  test('a termination racing the post: the record is not left on the TERMINADO cycle', async () => {
    const p = await patient();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let updated!: () => void;
    const didUpdate = new Promise<void>((resolve) => (updated = resolve));
    const termination = ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: TODAY, motivo: 'carrera' }).where('id', '=', p.ingresoId).execute();
      updated();
      await gate;
    });
    await didUpdate;
    const post = client.post(`/exams/${p.id}/monitoreo/`, MONITOREO);
    if (ENGINE === 'postgres') {
      // The post reads the still-ACTIVO row, then waits for the termination's row lock inside its transaction.
      for (let i = 0; i < 500; i++) {
        const { rows } = await sql<{ n: number }>`select cast(count(*) as integer) as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.db);
        if (Number(rows[0]!.n) > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    release();
    await termination;
    const res = await post;
    assert.equal(res.status, 302);
    assert.deepEqual(messagesIn((await client.follow(res)).body), [{ level: 'error', text: EXAM_MSG.noActivo }]);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
  });
});

describe('POST /exams/<patient_id>/psicologia/ and /otros/', () => {
  test('psicologia valid: scores stored as whole numbers with their bands shown', async () => {
    const p = await patient();
    const res = await client.post(`/exams/${p.id}/psicologia/`, PSICOLOGIA);
    assert.equal(res.status, 302);
    const [row] = await recordsOf(p.ingresoId);
    assert.equal(row!.kind, 'PSICOLOGIA');
    assert.equal(row!.tipo_sesion, 'TCC_I');
    assert.equal(row!.numero_sesion, 3);
    assert.equal(row!.isi, 16);
    assert.equal(row!.epworth, 9);
    assert.equal(row!.observaciones, null);
    assert.equal(row!.registrado_por, userId);
    const page = await client.follow(res);
    assert.deepEqual(messagesIn(page.body), [{ level: 'success', text: EXAM_MSG.created('PSICOLOGIA') }]);
    assert.match(page.body, /data-band="isi:moderado"/);
    assert.match(page.body, /data-band="epworth:normal"/);
  });

  test('psicologia ranges and choices: field errors; edges accepted', async () => {
    const p = await patient();
    const bad = await client.post(`/exams/${p.id}/psicologia/`, { fecha: TODAY, tipo_sesion: 'GRUPAL', numero_sesion: '0', isi: '29', epworth: '25', observaciones: '' });
    assert.equal(bad.status, 200);
    assert.match(fieldError(bad.body, 'psicologia', 'tipo_sesion') ?? '', /Seleccione una opción/);
    assert.match(fieldError(bad.body, 'psicologia', 'numero_sesion') ?? '', /entre 1 y 50/);
    assert.match(fieldError(bad.body, 'psicologia', 'isi') ?? '', /entre 0 y 28/);
    assert.match(fieldError(bad.body, 'psicologia', 'epworth') ?? '', /entre 0 y 24/);
    assert.equal(fieldError(bad.body, 'monitoreo', 'fecha'), null);
    const decimals = await client.post(`/exams/${p.id}/psicologia/`, { ...PSICOLOGIA, isi: '7.5', numero_sesion: '-1' });
    assert.match(fieldError(decimals.body, 'psicologia', 'isi') ?? '', /entero/);
    assert.match(fieldError(decimals.body, 'psicologia', 'numero_sesion') ?? '', /entero/);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
    const edges = await client.post(`/exams/${p.id}/psicologia/`, { fecha: TODAY, tipo_sesion: 'CIERRE', numero_sesion: '50', isi: '28', epworth: '24', observaciones: '' });
    assert.equal(edges.status, 302);
    const low = await client.post(`/exams/${p.id}/psicologia/`, { fecha: TODAY, tipo_sesion: 'EVALUACION_INICIAL', numero_sesion: '1', isi: '0', epworth: '0', observaciones: '' });
    assert.equal(low.status, 302);
    assert.equal((await recordsOf(p.ingresoId)).length, 2);
  });

  test('otros: nombre_examen required and at most 200 characters; resultado kept', async () => {
    const p = await patient();
    const missing = await client.post(`/exams/${p.id}/otros/`, { ...OTRO, nombre_examen: '  ' });
    assert.equal(missing.status, 200);
    assert.match(fieldError(missing.body, 'otros', 'nombre_examen') ?? '', /obligatorio/);
    const long = await client.post(`/exams/${p.id}/otros/`, { ...OTRO, nombre_examen: 'n'.repeat(201), resultado: 'conservar' });
    assert.match(fieldError(long.body, 'otros', 'nombre_examen') ?? '', /Máximo 200/);
    assert.match(long.body, />conservar<\/textarea>/);
    const future = await client.post(`/exams/${p.id}/otros/`, { ...OTRO, fecha: '2026-12-01' });
    assert.match(fieldError(future.body, 'otros', 'fecha') ?? '', /posterior a hoy/);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
    const ok = await client.post(`/exams/${p.id}/otros/`, { ...OTRO, nombre_examen: 'n'.repeat(200) });
    assert.equal(ok.status, 302);
    const [row] = await recordsOf(p.ingresoId);
    assert.equal(row!.kind, 'OTRO');
    assert.equal(row!.resultado, 'Normal');
    assert.equal(row!.registrado_por, userId);
  });

  test('unknown patient: 404 and nothing stored', async () => {
    for (const path of ['monitoreo', 'psicologia', 'otros']) {
      assert.equal((await client.post(`/exams/999999/${path}/`, MONITOREO)).status, 404);
      assert.equal((await client.post(`/exams/x/${path}/`, MONITOREO)).status, 404);
    }
  });
});

describe('timeline, trends, voiding and cycles', () => {
  test('all kinds together, newest first by id, with kind, date and values', async () => {
    const p = await patient();
    // Dates out of order on purpose: the order is by id, newest first.
    await add(`/exams/${p.id}/psicologia/`, { ...PSICOLOGIA, fecha: '2026-11-20' });
    await add(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '2026-10-01' });
    await add(`/exams/${p.id}/otros/`, { ...OTRO, fecha: '2026-11-01' });
    await add(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '2026-09-15' });
    const ids = (await recordsOf(p.ingresoId)).map((r) => r.id);
    const page = await client.get(`/exams/${p.id}/`);
    assert.deepEqual(timeline(page.body), [
      { id: ids[3]!, kind: 'MONITOREO', anulado: false },
      { id: ids[2]!, kind: 'OTRO', anulado: false },
      { id: ids[1]!, kind: 'MONITOREO', anulado: false },
      { id: ids[0]!, kind: 'PSICOLOGIA', anulado: false },
    ]);
    assert.match(page.body, /<time datetime="2026-11-20">20\/11\/2026<\/time>/);
    assert.match(page.body, /Espirometría/);
  });

  test('trends: a chart with a text equivalent where a value has two or more records, the latest value otherwise', async () => {
    const p = await patient();
    await add(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '2026-10-01', iah: '35' });
    await add(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '2026-11-01', iah: '8,5' });
    await add(`/exams/${p.id}/psicologia/`, { ...PSICOLOGIA, isi: '20' });
    const page = await client.get(`/exams/${p.id}/`);
    assert.match(page.body, /<svg[^>]*data-chart="iah"/);
    assert.match(page.body, /data-trend="iah" data-trend-direction="baja"/);
    assert.match(page.body, /<desc[^>]*>IAH: último 8,5 eventos\/h \(01\/11\/2026\); primero 35 eventos\/h \(01\/10\/2026\); disminuyó 26,5 eventos\/h en 2 registros.<\/desc>/);
    assert.match(page.body, /<td>01\/10\/2026<\/td><td>35<\/td>/);
    assert.match(page.body, /data-trend="isi"/);
    assert.doesNotMatch(page.body, /data-chart="isi"/);
    assert.match(page.body, /data-chart="horas_uso_promedio"/);
  });

  test('voiding with a reason hides the record from the clinical view and keeps it, marked, in the cycle view', async () => {
    const p = await patient();
    await add(`/exams/${p.id}/monitoreo/`, MONITOREO);
    await add(`/exams/${p.id}/otros/`, OTRO);
    const [first, second] = await recordsOf(p.ingresoId);

    const noReason = await client.post(`/exams/${p.id}/registro/${first!.id}/anular/`, { motivo_anulacion: '  ' });
    assert.equal(noReason.status, 302);
    assert.equal(messagesIn((await client.follow(noReason)).body)[0]!.level, 'error');
    assert.equal((await recordsOf(p.ingresoId))[0]!.anulado_at, null);

    const res = await client.post(`/exams/${p.id}/registro/${first!.id}/anular/`, { motivo_anulacion: 'Paciente equivocado' });
    assert.equal(res.status, 302);
    assert.equal(res.location, `/exams/${p.id}/`);
    const page = await client.follow(res);
    assert.deepEqual(messagesIn(page.body), [{ level: 'success', text: EXAM_MSG.voided(first!.id) }]);
    assert.deepEqual(timeline(page.body), [{ id: second!.id, kind: 'OTRO', anulado: false }]);

    const [stored] = await recordsOf(p.ingresoId);
    assert.equal(stored!.motivo_anulacion, 'Paciente equivocado');
    assert.equal(stored!.anulado_por, userId);
    assert.ok(stored!.anulado_at);
    const audits = await auditOf('exam.void', p.id);
    assert.equal(audits.length, 1);
    assert.equal(audits[0]!.entity_id, first!.id);

    const archive = await client.get(`/exams/${p.id}/ingreso/${p.ingresoId}/`);
    assert.equal(archive.status, 200);
    assert.deepEqual(timeline(archive.body), [
      { id: second!.id, kind: 'OTRO', anulado: false },
      { id: first!.id, kind: 'MONITOREO', anulado: true },
    ]);
    assert.match(archive.body, /Motivo: Paciente equivocado/);
    assert.doesNotMatch(archive.body, /data-archivado/);
    assert.doesNotMatch(archive.body, /anular\//);

    const again = await client.post(`/exams/${p.id}/registro/${first!.id}/anular/`, { motivo_anulacion: 'otra vez' });
    assert.deepEqual(messagesIn((await client.follow(again)).body), [{ level: 'info', text: EXAM_MSG.alreadyVoided(first!.id) }]);
    assert.equal((await auditOf('exam.void', p.id)).length, 1);
  });

  test('voiding: a record of another patient or an unknown record is 404', async () => {
    const a = await patient();
    const b = await patient();
    await add(`/exams/${a.id}/otros/`, OTRO);
    const [rec] = await recordsOf(a.ingresoId);
    assert.equal((await client.post(`/exams/${b.id}/registro/${rec!.id}/anular/`, { motivo_anulacion: 'x' })).status, 404);
    assert.equal((await client.post(`/exams/${a.id}/registro/99999999/anular/`, { motivo_anulacion: 'x' })).status, 404);
    assert.equal((await client.post(`/exams/${a.id}/registro/abc/anular/`, { motivo_anulacion: 'x' })).status, 404);
    assert.equal((await recordsOf(a.ingresoId))[0]!.anulado_at, null);
  });

  test('after TERMINADO and a new cycle, old records leave the clinical view and stay in the archived cycle view', async () => {
    const p = await patient();
    await add(`/exams/${p.id}/monitoreo/`, MONITOREO);
    await add(`/exams/${p.id}/psicologia/`, PSICOLOGIA);
    const old = await recordsOf(p.ingresoId);
    await terminate(p.ingresoId);
    const second = await newCycle(p.id);
    // Within the new cycle (it started on 2026-11-21): an exam is filed in the cycle it was done in.
    await add(`/exams/${p.id}/otros/`, { ...OTRO, fecha: '2026-11-21' });
    const [current] = await recordsOf(second);
    assert.equal(current!.ingreso_id, second);

    const page = await client.get(`/exams/${p.id}/`);
    assert.deepEqual(timeline(page.body), [{ id: current!.id, kind: 'OTRO', anulado: false }]);
    assert.match(page.body, new RegExp(`href="/exams/${p.id}/ingreso/${p.ingresoId}/"`));

    const archive = await client.get(`/exams/${p.id}/ingreso/${p.ingresoId}/`);
    assert.equal(archive.status, 200);
    assert.match(archive.body, /data-archivado="true"[^>]*>\s*Archivado/);
    assert.deepEqual(
      timeline(archive.body),
      [...old].reverse().map((r) => ({ id: r.id, kind: r.kind, anulado: false })),
    );
    assert.doesNotMatch(archive.body, /data-exam-form=/);
    assert.doesNotMatch(archive.body, /anular\//);
    const audits = await auditOf('exam.view_archive', p.id);
    assert.equal(audits.length, 1);
    assert.equal(audits[0]!.entity_id, p.ingresoId);

    // Archived records are read-only: voiding one is refused.
    const res = await client.post(`/exams/${p.id}/registro/${old[0]!.id}/anular/`, { motivo_anulacion: 'tarde' });
    assert.deepEqual(messagesIn((await client.follow(res)).body), [{ level: 'error', text: EXAM_MSG.voidArchived }]);
    assert.equal((await recordsOf(p.ingresoId))[0]!.anulado_at, null);
  });

  test('cycle view: 404 when the Ingreso is not that patient\'s, unknown or non-numeric', async () => {
    const a = await patient();
    const b = await patient();
    assert.equal((await client.get(`/exams/${a.id}/ingreso/${b.ingresoId}/`)).status, 404);
    assert.equal((await client.get(`/exams/${a.id}/ingreso/99999999/`)).status, 404);
    assert.equal((await client.get(`/exams/${a.id}/ingreso/abc/`)).status, 404);
    assert.equal((await client.get(`/exams/999999/ingreso/${a.ingresoId}/`)).status, 404);
    assert.equal((await client.get(`/exams/${a.id}/ingreso/${a.ingresoId}/`)).status, 200);
  });

  test('other methods: 405', async () => {
    const p = await patient();
    assert.equal((await client.get(`/exams/${p.id}/monitoreo/`)).status, 405);
    assert.equal((await client.post(`/exams/${p.id}/`, {})).status, 405);
  });
});

describe('the database guards the records', () => {
  async function oneRecord() {
    const p = await patient();
    await add(`/exams/${p.id}/otros/`, OTRO);
    const [row] = await recordsOf(p.ingresoId);
    return { p, row: row! };
  }

  test('records are never deleted', async () => {
    const { p, row } = await oneRecord();
    await assert.rejects(ctx.db.deleteFrom('exam_records').where('id', '=', row.id).execute());
    assert.equal((await recordsOf(p.ingresoId)).length, 1);
  });

  test('a record cannot be edited, un-voided, or voided without all three voiding columns', async () => {
    const { row } = await oneRecord();
    await assert.rejects(ctx.db.updateTable('exam_records').set({ resultado: 'cambiado' }).where('id', '=', row.id).execute());
    await assert.rejects(
      ctx.db.updateTable('exam_records').set({ anulado_at: '2026-11-22T00:00:00.000Z', anulado_por: userId, motivo_anulacion: 'x', resultado: 'cambiado' }).where('id', '=', row.id).execute(),
    );
    await assert.rejects(ctx.db.updateTable('exam_records').set({ anulado_at: '2026-11-22T00:00:00.000Z' }).where('id', '=', row.id).execute());
    await ctx.db.updateTable('exam_records').set({ anulado_at: '2026-11-22T00:00:00.000Z', anulado_por: userId, motivo_anulacion: 'x' }).where('id', '=', row.id).execute();
    await assert.rejects(ctx.db.updateTable('exam_records').set({ anulado_at: null, anulado_por: null, motivo_anulacion: null }).where('id', '=', row.id).execute());
  });

  test('a record can only be added to an ACTIVO Ingreso, with the columns of its kind and values in range', async () => {
    const p = await patient();
    const base = { ingreso_id: p.ingresoId, fecha: TODAY, registrado_por: userId, created_at: '2026-11-22T00:00:00.000Z' };
    await assert.rejects(ctx.db.insertInto('exam_records').values({ ...base, kind: 'MONITOREO' }).execute(), 'tipo required');
    await assert.rejects(ctx.db.insertInto('exam_records').values({ ...base, kind: 'OTRO', nombre_examen: 'x', isi: 3 }).execute(), 'shape');
    await assert.rejects(ctx.db.insertInto('exam_records').values({ ...base, kind: 'MONITOREO', tipo: 'POLIGRAFIA', iah: 20001 }).execute(), 'range');
    await assert.rejects(ctx.db.insertInto('exam_records').values({ ...base, kind: 'PSICOLOGIA', tipo_sesion: 'OTRA' }).execute(), 'choice');
    await ctx.db.insertInto('exam_records').values({ ...base, kind: 'OTRO', nombre_examen: 'x' }).execute();
    await terminate(p.ingresoId);
    await assert.rejects(ctx.db.insertInto('exam_records').values({ ...base, kind: 'OTRO', nombre_examen: 'y' }).execute(), 'TERMINADO');
    assert.equal((await recordsOf(p.ingresoId)).length, 1);
  });
});
