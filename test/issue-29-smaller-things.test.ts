// Issue 29, points 8 and 9: the smaller things a coordinator trips over in a normal week, each as they see it,
// on the test engine (SQLite, or PostgreSQL with TEST_PG_URL).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertExamRecord } from '../src/exams/exam.repository.js';
import { insertPatientWithCycle } from '../src/patients/patient.actions.js';
import { countOf } from '../src/shared/text.js';
import { readableChanges } from '../src/audit/audit.format.js';
import { createPatient, newPatientForm, newPatientRow } from './fixtures/patient.fixtures.js';
import { createTestContext, decodeEntities, loggedInClient, login, messagesIn, TestClient, type TestContext } from './helpers.js';

let ctx: TestContext;
let client: TestClient;
let admin: { id: number; username: string };
before(async () => {
  ctx = await createTestContext();
  const logged = await loggedInClient(ctx, { isAdmin: true });
  client = logged.client;
  admin = logged.user;
});
after(async () => ctx.close());

let seq = 0;
const cedula = () => String(70_000_000 + process.pid * 10 + ++seq);
const docOf = async (id: number) => (await ctx.db.selectFrom('patients').select('documento').where('id', '=', id).executeTakeFirstOrThrow()).documento;

const patientForm = (overrides: Record<string, string> = {}) => newPatientForm({ tipo_documento: 'CC', ...overrides });

describe('a documento already registered', () => {
  test('the error beside documento links the record that holds it, on the new patient and on the edit form', async () => {
    const holder = await createPatient(ctx.db, { nombre: 'Gabriela', apellido: 'Mantilla', documento: cedula() });
    const res = await client.post('/patients/create/', patientForm({ documento: holder.documento.replace(/(\d{2})(\d{3})/, '$1.$2') }));
    assert.equal(res.status, 200);
    assert.match(res.body, /class="field-error" id="error_documento">Ya existe un paciente con este documento\.<\/p><p class="field-error-link"><a href="\/patients\/(\d+)\/" data-error-link="true">Ver la ficha de Gabriela Mantilla/);
    assert.equal(/href="\/patients\/(\d+)\/" data-error-link/.exec(res.body)![1], String(holder.id));

    const other = await createPatient(ctx.db, { documento: cedula() });
    const edit = await client.post(`/patients/${other.id}/`, patientForm({ documento: holder.documento }));
    assert.equal(edit.status, 200);
    assert.match(edit.body, new RegExp(`<a href="/patients/${holder.id}/" data-error-link="true">Ver la ficha de Gabriela Mantilla \\(n\\.º ${holder.id}\\)\\.</a>`));
  });
});

describe('a new cycle whose date is refused', () => {
  test('comes back beside the field of that patient, with the date as typed; the redirect and its message stay', async () => {
    const p = await createPatient(ctx.db, { documento: cedula() }, { fechaInicio: '2026-03-01' });
    await client.post(`/patients/ingreso/estado/${p.ingresoId}/TERMINADO/`, { fecha_terminacion: '2026-09-30', motivo_estado: 'Alta' });
    const res = await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: '2026-09-12', query_search: p.documento });
    assert.equal(res.status, 302);
    assert.equal(res.location, `/patients/follow?query_search=${p.documento}`);
    const page = await client.follow(res);
    assert.match(messagesIn(page.body).map((m) => m.text).join(' '), /anterior al fin del último ciclo \(30\/09\/2026\)/);
    const back = /<div id="restored-form" hidden data-action="([^"]*)" data-fields="([^"]*)" data-errors="([^"]*)"/.exec(page.body);
    assert.ok(back, 'the page carries the refused form');
    assert.equal(back[1], `/patients/ingreso/nuevo/${p.id}/`);
    assert.deepEqual(JSON.parse(decodeEntities(back[2]!)), [['fecha_inicio', '2026-09-12']]);
    assert.match(JSON.parse(decodeEntities(back[3]!)).fecha_inicio, /No puede ser anterior al fin del ciclo anterior \(30\/09\/2026\)/);
    // Once: the next visit is the plain page.
    assert.doesNotMatch((await client.get('/patients/follow')).body, /restored-form/);
  });
});

describe('the audit trail reads as text', () => {
  test('an export entry shows its filters as words, not JSON', async () => {
    await client.get('/patients/export.csv?query_search=carvajal&mes_filtro=3');
    const page = await client.get('/users/audit/?accion=export');
    assert.equal(page.status, 200);
    assert.match(decodeEntities(page.body), /<strong>Filtros<\/strong>: Búsqueda: carvajal · Mes del programa: 3/);
    assert.doesNotMatch(decodeEntities(page.body), /\{"query_search"/);
  });

  test("an import entry's summary and the lines it left out read as words", () => {
    const c = readableChanges('import', JSON.stringify({ archivo: 'pacientes.csv', filas: 31, creados: 21, omitidos: 10, posibles_duplicados_importados: false, filas_omitidas_por_cambios: [4, 9] }), 'America/Bogota');
    const line = c.details.map((d) => `${d.label}: ${d.value}`).join(' | ');
    assert.equal(line, 'Archivo: pacientes.csv | Filas: 31 | Pacientes creados: 21 | Filas omitidas: 10 | Posibles duplicados importados: No | Filas omitidas por cambios (n.º de fila): 4, 9');
  });

  test("an exam record's «Registrado por» shows the user's name, not «n.º 1»", async () => {
    const p = await createPatient(ctx.db, { documento: cedula() }, { fechaInicio: '2026-06-01' });
    const res = await client.post(`/exams/${p.id}/monitoreo/`, { fecha: '2026-11-10', tipo: 'POLISOMNOGRAFIA', iah: '12', saturacion_minima: '', horas_uso_promedio: '', porcentaje_noches_4h: '', presion_cmh2o: '', fuga_lpm: '', observaciones: '' });
    assert.equal(res.status, 302);
    const page = decodeEntities((await client.get(`/users/audit/?accion=exam.create&paciente=${p.id}`)).body);
    assert.match(page, new RegExp(`<li data-field="registrado_por"><strong>Registrado por \\(usuario\\)</strong>: <del>—</del> → <ins>${admin.username}</ins>`));
  });

  test('the trail filters by a patient\'s documento (as typed) or name, not only the internal number', async () => {
    const p = await createPatient(ctx.db, { nombre: 'Luz Marina', apellido: 'Quintero Díaz', documento: cedula() });
    const other = await createPatient(ctx.db, { nombre: 'Luz', apellido: 'Ortega', documento: cedula() });
    await client.get(`/patients/${p.id}/`);
    await client.get(`/patients/${other.id}/`);
    const rowsFor = async (paciente: string) => {
      const html = (await client.get(`/users/audit/?paciente=${encodeURIComponent(paciente)}`)).body;
      return [...html.matchAll(/href="\/patients\/(\d+)\/"/g)].map((m) => Number(m[1]));
    };
    const typed = p.documento.replace(/(\d{2})(\d{3})(\d{3})/, '$1.$2.$3');
    for (const q of [typed, 'luz quintero', 'QUINTERO diaz']) {
      const ids = await rowsFor(q);
      assert.ok(ids.length > 0 && ids.every((id) => id === p.id), `«${q}»: ${ids.join(',')}`);
    }
    const both = new Set(await rowsFor('luz'));
    assert.ok(both.has(p.id) && both.has(other.id));
    assert.deepEqual(await rowsFor('nadie-con-este-nombre'), []);
  });
});

test('searching a suspended patient in the active list points to the follow page', async () => {
  const p = await createPatient(ctx.db, { nombre: 'Eulalia', apellido: 'Zuleta', documento: cedula() });
  await client.post(`/patients/ingreso/estado/${p.ingresoId}/SUSPENDIDO/`, { motivo_estado: 'Viaje' });
  const page = (await client.get('/patients/?query_search=eulalia+zuleta')).body;
  assert.match(page, /Ningún paciente activo coincide con la búsqueda/);
  assert.match(decodeEntities(page), /<span data-not-active="1">1 paciente sin ciclo activo \(suspendido o terminado\) sí coincide: <a href="\/patients\/follow\?query_search=eulalia\+zuleta">verlo en Seguimiento<\/a>/);
  assert.doesNotMatch((await client.get('/patients/?query_search=nadie+asi')).body, /data-not-active/);
  // An active namesake of another month, left out by the month filter, is not counted as without an active cycle.
  await createPatient(ctx.db, { nombre: 'Eulalia', apellido: 'Zuleta Rey', documento: cedula() }, { fechaInicio: '2026-11-01' });
  const month = decodeEntities((await client.get('/patients/?query_search=eulalia+zuleta&mes_filtro=7')).body);
  assert.match(month, /data-total="0"/);
  assert.match(month, /<span data-not-active="1">1 paciente sin ciclo activo/);
});

test('the exams list points to the follow page too when its search matches only patients without an active cycle', async () => {
  const p = await createPatient(ctx.db, { nombre: 'Casimira', apellido: 'Yepes', documento: cedula() });
  const q = await createPatient(ctx.db, { nombre: 'Casimira', apellido: 'Yepes Otálora', documento: cedula() });
  await client.post(`/patients/ingreso/estado/${p.ingresoId}/SUSPENDIDO/`, { motivo_estado: 'Viaje' });
  // One of the two still active: the list shows her and points nowhere else.
  const one = decodeEntities((await client.get('/exams/?query_search=casimira+yepes')).body);
  assert.match(one, /data-total="1"/);
  assert.doesNotMatch(one, /data-not-active/);
  await client.post(`/patients/ingreso/estado/${q.ingresoId}/SUSPENDIDO/`, { motivo_estado: 'Viaje' });
  const none = decodeEntities((await client.get('/exams/?query_search=casimira+yepes')).body);
  assert.match(none, /data-total="0"/);
  assert.match(none, /<span data-not-active="2">2 pacientes sin ciclo activo \(suspendidos o terminados\) sí coinciden: <a href="\/patients\/follow\?query_search=casimira\+yepes">verlos en Seguimiento<\/a>/);
  assert.doesNotMatch((await client.get('/exams/?query_search=nadie+asi')).body, /data-not-active/);
  assert.doesNotMatch((await client.get('/exams/')).body, /data-not-active/);
});

test('a patient imported with estado SUSPENDIDO is not billed for the cycle\'s first month; once reactivated, it is', async () => {
  const create = (estado: 'ACTIVO' | 'SUSPENDIDO') => {
    const { created_at: _c, updated_at: _u, ...patient } = newPatientRow({ documento: cedula() });
    return ctx.db.transaction().execute((trx) =>
      insertPatientWithCycle(trx, { actor: { id: admin.id, username: admin.username }, at: ctx.clock.now(), requestId: null }, { patient: patient as never, fechaInicio: '2026-10-05', estado }),
    );
  };
  const suspended = await create('SUSPENDIDO');
  const active = await create('ACTIVO');
  const rowsOf = async (mes: string) => (await client.get(`/dashboard/capita.csv?mes=${mes}`)).body;
  const october = await rowsOf('2026-10');
  assert.ok(october.includes(await docOf(active.patientId)), 'imported ACTIVO: billed for October');
  assert.ok(!october.includes(await docOf(suspended.patientId)), 'imported SUSPENDIDO: never ACTIVO, not billed');
  assert.ok(!(await rowsOf('2026-11')).includes(await docOf(suspended.patientId)));
  await client.post(`/patients/ingreso/estado/${suspended.ingresoId}/ACTIVO/`, {});
  assert.ok((await rowsOf('2026-11')).includes(await docOf(suspended.patientId)), 'reactivated in November: billed for November');
});

test('«Exportar FHIR» downloads the file instead of opening it in the tab', async () => {
  const p = await createPatient(ctx.db, { documento: cedula() });
  const res = await client.get(`/patients/${p.id}/fhir/`);
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-disposition'], `attachment; filename="paciente-${p.id}.fhir.json"`);
});

describe('login and setup errors', () => {
  test('a refused login shows its error in a summary that takes the focus', async () => {
    const anon = new TestClient(ctx.app);
    await anon.get('/users/login/');
    const res = await anon.post('/users/login/', { username: 'nadie', password: 'equivocada-de-verdad' });
    assert.match(res.body, /<div class="message message-error" role="alert" data-message-level="error" tabindex="-1" autofocus data-error-summary="true">Usuario o contraseña incorrectos\.<\/div>/);
  });

  test('setup reports every problem at once, in a summary that takes the focus', async () => {
    const fresh = await createTestContext({ setupToken: 'primer-arranque' });
    try {
      const anon = new TestClient(fresh.app);
      await anon.get('/users/setup/?token=primer-arranque');
      const res = await anon.post('/users/setup/', { token: 'primer-arranque', username: '', password: 'corta', password2: 'otra' });
      assert.equal(res.status, 200);
      assert.match(res.body, /data-error-summary="true" tabindex="-1" autofocus/);
      for (const field of ['username', 'password', 'password2']) assert.match(res.body, new RegExp(`id="error_${field}"`), field);
    } finally {
      await fresh.close();
    }
  });
});

describe('words and marks as people read them', () => {
  test('counts with their noun in the right number', () => {
    assert.equal(countOf(1, 'fila omitida', 'filas omitidas'), '1 fila omitida');
    assert.equal(countOf(2345, 'fila omitida', 'filas omitidas'), '2.345 filas omitidas');
    assert.equal(countOf(0, 'paciente', 'pacientes'), '0 pacientes');
  });

  test('«Cerrar la otra sesión» for one other session; the dashboard says «1 paciente», never «paciente(s)»', async () => {
    const { client: first, user } = await loggedInClient(ctx);
    const second = new TestClient(ctx.app);
    await login(second, user.username, user.password);
    const page = (await first.get('/users/password/')).body;
    assert.match(page, />Cerrar la otra sesión</);
    assert.doesNotMatch(page, /otras 1 sesiones/);
    const dashboard = (await client.get('/dashboard/')).body;
    assert.doesNotMatch(dashboard, /\(s\)/);
  });

  test('the actions of a listed patient are one element (no «·» alone on a phone card); amounts never break after «$»', async () => {
    const p = await createPatient(ctx.db, { nombre: 'Ofelia', apellido: 'Punto', documento: cedula() });
    const list = (await client.get('/patients/?query_search=ofelia+punto')).body;
    assert.match(list, new RegExp(`<td data-label="Acciones" class="row-actions"><span class="links-inline"><a href="/patients/${p.id}/">Ficha</a> · <a href="/exams/${p.id}/">Vista clínica</a></span></td>`));
    const dashboard = (await client.get('/dashboard/')).body;
    assert.match(dashboard, /<td class="money" data-value="\d+">\$ [\d.]+<\/td>/);
  });

  test('tipo de documento: each option starts with its code, CE before CC so that typing «CC» lands on CC', async () => {
    const page = (await client.get('/patients/create/')).body;
    const select = /<select id="id_tipo_documento"[^>]*>([\s\S]*?)<\/select>/.exec(page)![1]!;
    const options = [...select.matchAll(/<option value="([A-Z]+)"[^>]*>([^<]*)</g)].map((m) => [m[1], decodeEntities(m[2]!)]);
    assert.deepEqual(options.map(([v]) => v), ['RC', 'TI', 'CE', 'CC', 'PA', 'PE']);
    for (const [value, label] of options) assert.ok(label!.startsWith(`${value} · `), label);
  });
});

test('a voided exam record is marked without fading its text', async () => {
  const css = await client.get('/static/app.css');
  const rule = /\.exam-record\.exam-anulado \{([^}]*)\}/.exec(css.body)![1]!;
  assert.doesNotMatch(rule, /opacity/);
  // And it is still shown, marked, in the archived cycle's page.
  const p = await createPatient(ctx.db, { documento: cedula() }, { fechaInicio: '2026-06-01' });
  await ctx.db.transaction().execute((trx) =>
    insertExamRecord(trx, {
      ingreso_id: p.ingresoId!, kind: 'OTRO', fecha: '2026-07-01', registrado_por: admin.id, created_at: '2026-07-01T12:00:00.000Z',
      nombre_examen: 'Espirometría', resultado: 'Normal', anulado_at: '2026-07-02T12:00:00.000Z', anulado_por: admin.id, motivo_anulacion: 'Paciente equivocado',
    } as never),
  );
  const archive = await client.get(`/exams/${p.id}/ingreso/${p.ingresoId}/`);
  assert.equal(archive.status, 200);
  assert.match(archive.body, /class="exam-record exam-otro exam-anulado"/);
});
