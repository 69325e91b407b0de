// The patient record over HTTP: create, detail, update and the list (decisions §4, §5), on the test engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPatient, newPatientForm } from './fixtures/patient.fixtures.js';
import { createTestContext, decodeEntities, loggedInClient, messagesIn, type TestClient, type TestContext } from './helpers.js';

let ctx: TestContext;
let client: TestClient;
let userId: number;
let seq = 0;
/** A distinct documento / search token per test (letters only, so searches do not hit other tests' data). */
const uniq = () => {
  seq++;
  return `Q${process.pid % 1000}${String.fromCharCode(65 + (seq % 26))}${String.fromCharCode(65 + (Math.floor(seq / 26) % 26))}`;
};

// TestClock default: 2026-11-22T15:00Z, i.e. 2026-11-22 in Bogotá.
const TODAY = '2026-11-22';

/** The shared valid form as María Gómez, her measures typed with a comma or a point, a documento of this file's kind. */
const validForm = (overrides: Record<string, string> = {}): Record<string, string> =>
  newPatientForm({ nombre: 'María', apellido: 'Gómez', documento: uniq(), peso: '72,5', altura: '1.62', perimetro_abdominal: '98', cuello: '38,25', ...overrides });

const patientByDocumento = (documento: string) =>
  ctx.db.selectFrom('patients').selectAll().where('documento', '=', documento).executeTakeFirst();
const ingresosOf = (pacienteId: number) =>
  ctx.db.selectFrom('ingresos').selectAll().where('paciente_id', '=', pacienteId).orderBy('id').execute();
const auditOf = (patientId: number) =>
  ctx.db.selectFrom('audit_log').selectAll().where('patient_id', '=', patientId).orderBy('id').execute();

/** The attributes of the form control named `name` (input, select or textarea). */
function control(html: string, name: string): string {
  const m = new RegExp(`<(?:input|select|textarea)[^>]*name="${name}"[^>]*>`).exec(html);
  assert.ok(m, `control ${name} not found`);
  return m[0];
}
const isInvalid = (html: string, name: string) => control(html, name).includes('aria-invalid="true"');
const valueOf = (html: string, name: string) => decodeEntities(/value="([^"]*)"/.exec(control(html, name))?.[1] ?? '');
const selectedOf = (html: string, name: string) => {
  const start = html.indexOf(control(html, name));
  const block = html.slice(start, html.indexOf('</select>', start));
  return decodeEntities(/<option value="([^"]*)" selected/.exec(block)?.[1] ?? '');
};
const errorOf = (html: string, name: string) => decodeEntities(new RegExp(`id="error_${name}">([^<]*)<`).exec(html)?.[1] ?? '');
const listedIds = (html: string) => [...html.matchAll(/data-patient-id="(\d+)"/g)].map((m) => Number(m[1]));

before(async () => {
  ctx = await createTestContext();
  const logged = await loggedInClient(ctx);
  client = logged.client;
  userId = logged.user.id;
});
after(async () => ctx.close());

describe('POST /patients/create/', () => {
  test('GET shows the empty form in its sections, SANTANDER by default with its cities, and the catalogue', async () => {
    const res = await client.get('/patients/create/');
    assert.equal(res.status, 200);
    for (const legend of ['Identificación', 'Contacto', 'Ubicación', 'Medidas', 'Remisión', 'Programa']) {
      assert.match(res.body, new RegExp(`<legend>${legend}</legend>`));
    }
    assert.equal(selectedOf(res.body, 'departamento'), 'SANTANDER');
    assert.match(control(res.body, 'departamento'), /data-departamento/);
    assert.match(control(res.body, 'ciudad'), /data-ciudad/);
    assert.match(res.body, /<option value="BUCARAMANGA">/);
    assert.doesNotMatch(res.body, /<option value="MEDELLÍN">/);
    assert.match(control(res.body, 'fecha_nacimiento'), /type="date"/);
    assert.match(control(res.body, 'fecha_inicio_programa'), /type="date"/);
    // The catalogue for app.js is a file of its own, named by the city select, not a copy in every page.
    assert.doesNotMatch(res.body, /<script type="application\/json"/);
    const url = decodeEntities(/data-ciudad="([^"]+)"/.exec(control(res.body, 'ciudad'))?.[1] ?? '');
    assert.match(url, /^\/static\/divipola\.json\?v=[0-9a-f]{12}$/);
    const anonymous = await ctx.app.inject({ method: 'GET', url });
    assert.equal(anonymous.statusCode, 200);
    assert.match(String(anonymous.headers['content-type']), /^application\/json/);
    assert.equal(anonymous.headers['cache-control'], 'public, max-age=31536000, immutable');
    const catalogue = anonymous.json<Record<string, string[]>>();
    assert.equal(Object.keys(catalogue).length, 33);
    assert.ok(catalogue.SANTANDER!.includes('BUCARAMANGA'));
    assert.ok(catalogue.ANTIOQUIA!.includes('MEDELLÍN'));
    // Another version of it is kept for an hour only, so a page of an older release is not stuck with it.
    const other = await ctx.app.inject({ method: 'GET', url: '/static/divipola.json?v=000000000000' });
    assert.equal(other.headers['cache-control'], 'public, max-age=3600');
  });

  test('valid: 302 to /patients/ with a message; patient, ACTIVO Ingreso of today (mes_capita 1) and audit stored', async () => {
    const form = validForm();
    const res = await client.post('/patients/create/', form);
    assert.equal(res.status, 302);
    assert.equal(res.location, '/patients/');
    const page = await client.follow(res);
    const msgs = messagesIn(page.body);
    assert.equal(msgs[0]?.level, 'success');
    assert.match(msgs[0].text, /María Gómez/);
    const p = await patientByDocumento(form.documento!);
    assert.ok(p);
    assert.equal(p.peso, 7250);
    assert.equal(p.altura, 162);
    assert.equal(p.perimetro_abdominal, 9800);
    assert.equal(p.cuello, 3825);
    assert.equal(Number(p.valor_capita), 25978300);
    assert.equal(p.estrato, 3);
    assert.equal(p.search_text, `maria gomez ${form.documento!.toLowerCase()}`);
    const ingresos = await ingresosOf(p.id);
    assert.equal(ingresos.length, 1);
    assert.equal(ingresos[0]!.estado, 'ACTIVO');
    assert.equal(ingresos[0]!.fecha_inicio, TODAY);
    assert.ok(listedIds(page.body).includes(p.id));
    assert.match(page.body, new RegExp(`data-patient-id="${p.id}"[\\s\\S]*?data-mes-capita="1"`));
    const audit = await auditOf(p.id);
    const created = audit.find((a) => a.action === 'patient.create');
    assert.ok(created);
    assert.equal(created.user_id, userId);
    assert.deepEqual(JSON.parse(created.changes!).documento, [null, form.documento]);
  });

  test('fecha_inicio_programa becomes the first Ingreso fecha_inicio', async () => {
    const form = validForm({ fecha_inicio_programa: '2026-09-15' });
    assert.equal((await client.post('/patients/create/', form)).status, 302);
    const p = (await patientByDocumento(form.documento!))!;
    assert.equal((await ingresosOf(p.id))[0]!.fecha_inicio, '2026-09-15');
  });

  test('choices, department and city match ignoring case and accents and are stored in their listed form', async () => {
    const form = validForm({
      estado_civil: 'union libre',
      departamento: 'bogota d.c.',
      ciudad: 'Bogotá D.C.',
      zona: 'rural',
      programa: 'programa insomnio',
      diagnostico_clinico: 'g47.3',
      tipo_documento: 'pa',
      genero: 'f',
      entidad_salud: 'entity_b',
    });
    const res = await client.post('/patients/create/', form);
    assert.equal(res.status, 302, errorSummary(res.body));
    const p = (await patientByDocumento(form.documento!))!;
    assert.deepEqual(
      [p.estado_civil, p.departamento, p.ciudad, p.zona, p.programa, p.diagnostico_clinico, p.tipo_documento, p.genero, p.entidad_salud],
      ['UNIÓN LIBRE', 'BOGOTÁ, D.C.', 'BOGOTÁ, D.C.', 'RURAL', 'PROGRAMA INSOMNIO', 'G47.3', 'PA', 'F', 'ENTITY_B'],
    );
  });

  test('departamento left blank means SANTANDER', async () => {
    const form = validForm({ departamento: '', ciudad: 'floridablanca' });
    assert.equal((await client.post('/patients/create/', form)).status, 302);
    const p = (await patientByDocumento(form.documento!))!;
    assert.deepEqual([p.departamento, p.ciudad], ['SANTANDER', 'FLORIDABLANCA']);
  });

  test('decimals: 1,75 and 1.75 are both stored as 175; valor_capita with decimals kept exactly', async () => {
    const a = validForm({ altura: '1,75', valor_capita: '300000,55' });
    const b = validForm({ altura: '1.75' });
    assert.equal((await client.post('/patients/create/', a)).status, 302);
    assert.equal((await client.post('/patients/create/', b)).status, 302);
    assert.equal((await patientByDocumento(a.documento!))!.altura, 175);
    assert.equal(Number((await patientByDocumento(a.documento!))!.valor_capita), 30000055);
    assert.equal((await patientByDocumento(b.documento!))!.altura, 175);
  });

  test('valor cápita «259.783», as the record shows money, is stored as 259783, shown back, and saved again unchanged (decision 0069)', async () => {
    const form = validForm({ valor_capita: '259.783', peso: '72.5', cuello: '38,250' });
    const created = await client.post('/patients/create/', form);
    assert.equal(created.status, 302, errorSummary(created.body));
    const p = (await patientByDocumento(form.documento!))!;
    assert.deepEqual([Number(p.valor_capita), p.peso, p.cuello], [25978300, 7250, 3825]);
    const page = await client.get(`/patients/${p.id}/`);
    assert.match(decodeEntities(page.body), /\$ 259\.783</);
    assert.equal(valueOf(page.body, 'valor_capita'), '259.783');
    const again = await client.post(`/patients/${p.id}/`, validForm({ documento: form.documento!, fecha_nacimiento: form.fecha_nacimiento!, valor_capita: valueOf(page.body, 'valor_capita'), peso: valueOf(page.body, 'peso') }));
    assert.equal(again.status, 302, errorSummary(again.body));
    assert.deepEqual([Number((await patientByDocumento(form.documento!))!.valor_capita), (await patientByDocumento(form.documento!))!.peso], [25978300, 7250]);
  });

  test('optional measurements left blank are stored as null', async () => {
    const form = validForm({ peso: '', altura: '', perimetro_abdominal: '', cuello: '' });
    assert.equal((await client.post('/patients/create/', form)).status, 302);
    const p = (await patientByDocumento(form.documento!))!;
    assert.deepEqual([p.peso, p.altura, p.perimetro_abdominal, p.cuello], [null, null, null, null]);
  });

  const invalidCases: [string, Record<string, string>, string, RegExp][] = [
    ['nombre too long', { nombre: 'N'.repeat(101) }, 'nombre', /Máximo 100/],
    ['apellido blank', { apellido: '   ' }, 'apellido', /obligatorio/],
    ['documento too long', { documento: '1'.repeat(21) }, 'documento', /Máximo 20/],
    ['telefono too long', { telefono: '1'.repeat(21) }, 'telefono', /Máximo 20/],
    ['medico_remitente too long', { medico_remitente: 'm'.repeat(101) }, 'medico_remitente', /Máximo 100/],
    ['unknown tipo_documento', { tipo_documento: 'XX' }, 'tipo_documento', /opción/],
    ['unknown genero', { genero: 'Z' }, 'genero', /opción/],
    ['unknown programa', { programa: 'PROGRAMA OTRO' }, 'programa', /opción/],
    ['diagnostico other than G47.3', { diagnostico_clinico: 'G47.0' }, 'diagnostico_clinico', /G47\.3/],
    ['estrato 7', { estrato: '7' }, 'estrato', /1 al 6/],
    ['estrato not a number', { estrato: 'tres' }, 'estrato', /1 al 6/],
    ['invalid date', { fecha_nacimiento: '1975-02-30' }, 'fecha_nacimiento', /fecha válida/],
    ['date in another format', { fecha_nacimiento: '14/03/1975' }, 'fecha_nacimiento', /fecha válida/],
    ['birth date in the future', { fecha_nacimiento: '2026-11-23' }, 'fecha_nacimiento', /anterior a hoy/],
    ['invalid fecha_inicio_programa', { fecha_inicio_programa: '2026-13-01' }, 'fecha_inicio_programa', /fecha válida/],
    ['too many decimals', { peso: '72,555' }, 'peso', /2 decimales/],
    ['peso over its maximum', { peso: '1000' }, 'peso', /999,99/],
    ['altura over its maximum', { altura: '100' }, 'altura', /99,99/],
    ['negative cuello', { cuello: '-3' }, 'cuello', /negativo/],
    ['valor_capita over its maximum', { valor_capita: '100000000' }, 'valor_capita', /máximo/],
    ['decimal with letters', { perimetro_abdominal: '9o' }, 'perimetro_abdominal', /número válido/],
    ['1.234,5 above a measurement’s maximum', { perimetro_abdominal: '1.234,5' }, 'perimetro_abdominal', /máximo es 999,99; «1\.234,5» se leyó como 1234,5\./],
    ['valor_capita read two ways', { valor_capita: '1,500' }, 'valor_capita', /«1,500» puede leerse como 1500 o como 1,5/],
    ['thousands dots in the wrong places', { valor_capita: '25.97.83' }, 'valor_capita', /cada tres cifras/],
    ['unknown departamento', { departamento: 'NARNIA' }, 'departamento', /departamento/],
    ['city of another department', { departamento: 'SANTANDER', ciudad: 'MEDELLÍN' }, 'ciudad', /SANTANDER/],
    ['city missing', { ciudad: '' }, 'ciudad', /obligatorio/],
  ];
  for (const [name, overrides, field, message] of invalidCases) {
    test(`invalid (${name}): 200, values kept, aria-invalid and message beside ${field}, nothing stored`, async () => {
      const form = validForm(overrides);
      const before = await ctx.db.selectFrom('patients').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const res = await client.post('/patients/create/', form);
      assert.equal(res.status, 200);
      assert.ok(isInvalid(res.body, field), `${field} should be aria-invalid`);
      assert.match(errorOf(res.body, field), message);
      assert.match(control(res.body, field), new RegExp(`aria-describedby="error_${field}`));
      // Every entered value is shown again.
      assert.equal(valueOf(res.body, 'nombre'), form.nombre!.trim() === '' ? form.nombre : form.nombre);
      assert.equal(valueOf(res.body, 'documento'), form.documento);
      assert.equal(valueOf(res.body, 'peso'), form.peso);
      assert.equal(valueOf(res.body, 'fecha_nacimiento'), form.fecha_nacimiento);
      if (field === 'tipo_documento' || field === 'programa' || field === 'genero') assert.equal(selectedOf(res.body, field), form[field]);
      // Only the bad field is marked.
      const others = ['nombre', 'celular', 'especialidad'].filter((f) => f !== field);
      for (const f of others) assert.equal(isInvalid(res.body, f), false, `${f} should not be marked`);
      assert.equal(await patientByDocumento(form.documento!), undefined);
      const after = await ctx.db.selectFrom('patients').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(after.n), Number(before.n));
    });
  }

  test('after a failed submit the city list is that of the chosen department', async () => {
    const form = validForm({ departamento: 'antioquia', ciudad: 'BUCARAMANGA' });
    const res = await client.post('/patients/create/', form);
    assert.equal(res.status, 200);
    assert.equal(selectedOf(res.body, 'departamento'), 'ANTIOQUIA');
    assert.match(res.body, /<option value="MEDELLÍN">/);
    assert.match(errorOf(res.body, 'ciudad'), /ANTIOQUIA/);
  });

  test('duplicate documento differing in case and spaces: 200 with the error on documento, nothing stored', async () => {
    const doc = uniq();
    assert.equal((await client.post('/patients/create/', validForm({ documento: doc }))).status, 302);
    const res = await client.post('/patients/create/', validForm({ documento: `  ${doc.toLowerCase()} ` }));
    assert.equal(res.status, 200);
    assert.ok(isInvalid(res.body, 'documento'));
    assert.match(errorOf(res.body, 'documento'), /Ya existe un paciente/);
    const rows = await ctx.db.selectFrom('patients').select('id').where('documento_key', '=', doc.toUpperCase()).execute();
    assert.equal(rows.length, 1);
  });

  test('documento is stored trimmed', async () => {
    const doc = uniq();
    assert.equal((await client.post('/patients/create/', validForm({ documento: `  ${doc}  ` }))).status, 302);
    assert.ok(await patientByDocumento(doc));
  });

  test('20 concurrent creates with one documento: exactly one patient and one Ingreso, the rest get the field error', async () => {
    const doc = uniq();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.post('/patients/create/', validForm({ documento: i % 2 ? doc : doc.toLowerCase() }))),
    );
    assert.equal(results.filter((r) => r.status === 302).length, 1);
    const refused = results.filter((r) => r.status === 200);
    assert.equal(refused.length, 19);
    for (const r of refused) assert.match(errorOf(r.body, 'documento'), /Ya existe/);
    const rows = await ctx.db.selectFrom('patients').select('id').where('documento_key', '=', doc.toUpperCase()).execute();
    assert.equal(rows.length, 1);
    assert.equal((await ingresosOf(rows[0]!.id)).length, 1);
  });

  test('unknown and repeated fields are refused without storing anything', async () => {
    const form = validForm();
    const res = await client.post('/patients/create/', { ...form, extra: 'x' });
    assert.equal(res.status, 200);
    assert.match(messagesIn(res.body).map((m) => m.text).join(' '), /campos desconocidos/);
    const res2 = await client.post('/patients/create/', { ...form, nombre: ['A', 'B'] });
    assert.equal(res2.status, 200);
    assert.ok(isInvalid(res2.body, 'nombre'));
    assert.equal(await patientByDocumento(form.documento!), undefined);
  });

  test('HTML in a text field is stored as typed and rendered escaped', async () => {
    const xss = '<script>alert(1)</script>';
    const form = validForm({ nombre: xss, apellido: `"><img src=x onerror=alert(1)>` });
    const res = await client.post('/patients/create/', form);
    assert.equal(res.status, 302);
    const p = (await patientByDocumento(form.documento!))!;
    assert.equal(p.nombre, xss);
    const list = await client.follow(res);
    assert.doesNotMatch(list.body, /<script>alert\(1\)<\/script>/);
    assert.doesNotMatch(list.body, /<img src=x/);
    assert.match(list.body, /&lt;script>alert\(1\)&lt;\/script>|&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    const detail = await client.get(`/patients/${p.id}/`);
    assert.doesNotMatch(detail.body, /<script>alert/);
    assert.doesNotMatch(detail.body, /<img src=x/);
    // Failed form: typed HTML is shown back escaped too.
    const bad = await client.post('/patients/create/', validForm({ nombre: xss, genero: '<b>x</b>' }));
    assert.equal(bad.status, 200);
    assert.doesNotMatch(bad.body, /<script>alert|<b>x<\/b>/);
  });
});

function errorSummary(html: string): string {
  return [...html.matchAll(/id="error_(\w+)">([^<]*)</g)].map((m) => `${m[1]}: ${m[2]}`).join('; ');
}

describe('GET and POST /patients/<id>/', () => {
  test('detail shows every field formatted, edad, IMC, the ACTIVO Ingreso and mes_capita, and logs the view', async () => {
    const p = await createPatient(
      ctx.db,
      { nombre: 'Jorge', apellido: 'Ñáñez', fecha_nacimiento: '1980-11-23', peso: 8000, altura: 175, valor_capita: 25978300, estado_civil: 'UNIÓN LIBRE' },
      { fechaInicio: '2026-06-10' },
    );
    const res = await client.get(`/patients/${p.id}/`);
    assert.equal(res.status, 200);
    const text = decodeEntities(res.body);
    assert.match(text, /Jorge Ñáñez/);
    assert.match(text, /45 años/); // 46 tomorrow
    assert.match(text, /80,00 kg/);
    assert.match(text, /1,75 m/);
    assert.match(text, /26,1 kg\/m²/);
    assert.match(text, /\$ 259\.783/);
    assert.match(text, /Unión libre/);
    assert.match(text, /10\/06\/2026/);
    assert.match(res.body, /data-mes-capita="6"/);
    assert.match(res.body, /data-esta-activo="true"/);
    assert.match(res.body, new RegExp(`data-ingreso-actual="${p.ingresoId}"`));
    assert.match(res.body, new RegExp(`href="/exams/${p.id}/"`));
    assert.match(res.body, new RegExp(`href="/patients/follow\\?query_search=${encodeURIComponent(p.documento)}"`));
    // Pre-filled edit form.
    assert.equal(valueOf(res.body, 'nombre'), 'Jorge');
    assert.equal(valueOf(res.body, 'altura'), '1,75');
    assert.equal(valueOf(res.body, 'fecha_inicio_programa'), '2026-06-10');
    assert.equal(selectedOf(res.body, 'estado_civil'), 'UNIÓN LIBRE');
    assert.equal(selectedOf(res.body, 'ciudad'), 'BUCARAMANGA');
    const views = (await auditOf(p.id)).filter((a) => a.action === 'patient.view');
    assert.equal(views.length, 1);
    assert.equal(views[0]!.user_id, userId);
  });

  test('a patient without an ACTIVO Ingreso says so', async () => {
    const p = await createPatient(ctx.db, {}, { fechaInicio: null });
    const res = await client.get(`/patients/${p.id}/`);
    assert.equal(res.status, 200);
    assert.match(res.body, /data-esta-activo="false"/);
    assert.match(res.body, /no tiene un ingreso ACTIVO/);
  });

  test('unknown or non-numeric ids: 404', async () => {
    for (const path of ['/patients/999999/', '/patients/abc/', '/patients/0/', '/patients/-1/', '/patients/1.5/', '/patients/99999999999999/']) {
      assert.equal((await client.get(path)).status, 404, path);
    }
    assert.equal((await client.post('/patients/999999/', validForm())).status, 404);
    assert.equal((await client.post('/patients/abc/', validForm())).status, 404);
  });

  test('update: 302 to the record with a message; fecha_inicio_programa moves the ACTIVO Ingreso; audit has before/after', async () => {
    const p = await createPatient(ctx.db, { nombre: 'Pedro', apellido: 'Luna' }, { fechaInicio: '2026-10-01' });
    const form = validForm({ nombre: 'Pedro José', apellido: 'Luna', documento: p.documento, fecha_inicio_programa: '2026-08-05', altura: '1,80' });
    const res = await client.post(`/patients/${p.id}/`, form);
    assert.equal(res.status, 302, errorSummary(res.body));
    assert.equal(res.location, `/patients/${p.id}/`);
    const page = await client.follow(res);
    assert.equal(messagesIn(page.body)[0]?.level, 'success');
    const row = (await patientByDocumento(p.documento))!;
    assert.equal(row.nombre, 'Pedro José');
    assert.equal(row.altura, 180);
    assert.equal(row.nombre_norm, 'pedro jose');
    assert.equal((await ingresosOf(p.id))[0]!.fecha_inicio, '2026-08-05');
    const update = (await auditOf(p.id)).find((a) => a.action === 'patient.update')!;
    const changes = JSON.parse(update.changes!);
    assert.deepEqual(changes.nombre, ['Pedro', 'Pedro José']);
    assert.deepEqual(changes.altura, [170, 180]);
    assert.deepEqual(changes.fecha_inicio_programa, ['2026-10-01', '2026-08-05']);
    assert.equal(changes.apellido, undefined);
  });

  test('update: fecha_inicio_programa before the end of the previous cycle is refused on the field; the day it ended is fine', async () => {
    const p = await createPatient(ctx.db, { nombre: 'Olga' }, { fechaInicio: '2025-01-10' });
    const first = (await ingresosOf(p.id))[0]!;
    const ended = await client.post(`/patients/ingreso/estado/${first.id}/TERMINADO/`, { fecha_terminacion: '2026-06-30', motivo_estado: 'Alta' });
    assert.equal(messagesIn((await client.follow(ended)).body)[0]?.level, 'success');
    const opened = await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: '2026-07-15' });
    assert.equal(messagesIn((await client.follow(opened)).body)[0]?.level, 'success');

    const res = await client.post(`/patients/${p.id}/`, validForm({ nombre: 'Olga Lucía', documento: p.documento, fecha_inicio_programa: '2026-06-01' }));
    assert.equal(res.status, 200);
    assert.ok(isInvalid(res.body, 'fecha_inicio_programa'));
    assert.match(errorOf(res.body, 'fecha_inicio_programa'), /anterior al fin del ciclo anterior \(30\/06\/2026\)/);
    assert.equal((await patientByDocumento(p.documento))!.nombre, 'Olga', 'nothing of the form was saved');
    assert.deepEqual((await ingresosOf(p.id)).map((i) => i.fecha_inicio), ['2025-01-10', '2026-07-15']);

    const ok = await client.post(`/patients/${p.id}/`, validForm({ nombre: 'Olga Lucía', documento: p.documento, fecha_inicio_programa: '2026-06-30' }));
    assert.equal(ok.status, 302, errorSummary(ok.body));
    assert.deepEqual((await ingresosOf(p.id)).map((i) => i.fecha_inicio), ['2025-01-10', '2026-06-30']);
  });

  test('update with a blank fecha_inicio_programa leaves the Ingreso date unchanged', async () => {
    const p = await createPatient(ctx.db, {}, { fechaInicio: '2026-10-01' });
    const res = await client.post(`/patients/${p.id}/`, validForm({ documento: p.documento, fecha_inicio_programa: '' }));
    assert.equal(res.status, 302, errorSummary(res.body));
    assert.equal((await ingresosOf(p.id))[0]!.fecha_inicio, '2026-10-01');
  });

  test('update: invalid → 200 with errors and values, nothing changed; documento of another patient refused', async () => {
    const p = await createPatient(ctx.db, { nombre: 'Rosa' }, { fechaInicio: '2026-10-01' });
    const other = await createPatient(ctx.db);
    const res = await client.post(`/patients/${p.id}/`, validForm({ nombre: 'Rosa María', documento: p.documento, peso: 'abc', fecha_inicio_programa: '2026-01-01' }));
    assert.equal(res.status, 200);
    assert.ok(isInvalid(res.body, 'peso'));
    assert.equal(valueOf(res.body, 'nombre'), 'Rosa María');
    assert.equal((await patientByDocumento(p.documento))!.nombre, 'Rosa');
    assert.equal((await ingresosOf(p.id))[0]!.fecha_inicio, '2026-10-01');
    const dup = await client.post(`/patients/${p.id}/`, validForm({ documento: other.documento.toLowerCase() }));
    assert.equal(dup.status, 200);
    assert.match(errorOf(dup.body, 'documento'), /Ya existe/);
    // Keeping one's own documento (in another case) is fine.
    const own = await client.post(`/patients/${p.id}/`, validForm({ documento: p.documento.toLowerCase() }));
    assert.equal(own.status, 302, errorSummary(own.body));
  });
});

describe('GET /patients/ (list)', () => {
  test('only patients with an ACTIVO Ingreso, each once, ordered by apellido and nombre ignoring accents', async () => {
    const t = uniq();
    const zoe = await createPatient(ctx.db, { nombre: `Zoe ${t}`, apellido: 'Álvarez' });
    const ana = await createPatient(ctx.db, { nombre: `Ana ${t}`, apellido: 'Alvarez' });
    const eva = await createPatient(ctx.db, { nombre: `Eva ${t}`, apellido: 'Ábalos' });
    const inactive = await createPatient(ctx.db, { nombre: `Sin ${t}` }, { fechaInicio: null });
    const res = await client.get(`/patients/?query_search=${t}`);
    assert.equal(res.status, 200);
    assert.deepEqual(listedIds(res.body), [eva.id, ana.id, zoe.id]);
    assert.ok(!listedIds(res.body).includes(inactive.id));
    assert.match(res.body, /data-total="3"/);
    assert.match(res.body, /3 pacientes encontrados/);
    // Row content: documento, full name, programa, entidad, ciudad, mes_capita, fecha_inicio, links.
    const row = new RegExp(`<tr data-patient-id="${ana.id}">([\\s\\S]*?)</tr>`).exec(res.body)![1]!;
    assert.match(row, new RegExp(ana.documento));
    assert.match(row, new RegExp(`Ana ${t} Alvarez`));
    assert.match(row, /Programa AOS/);
    assert.match(row, /ENTITY_A/);
    assert.match(row, /BUCARAMANGA/);
    assert.match(row, /01\/11\/2026/);
    assert.match(row, new RegExp(`href="/patients/${ana.id}/"`));
    assert.match(row, new RegExp(`href="/exams/${ana.id}/"`));
  });

  test('search ignores case and accents, finds the full name and part of the documento', async () => {
    const t = uniq();
    const jose = await createPatient(ctx.db, { nombre: 'José', apellido: `Pérez ${t}`, documento: `${t}-778899` });
    for (const q of ['jose perez', 'JOSE PÉREZ', `pérez ${t.toLowerCase()}`, `${t}-7788`, '778899', 'pere']) {
      const res = await client.get(`/patients/?query_search=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200);
      assert.ok(listedIds(res.body).includes(jose.id), `'${q}' should find José Pérez`);
    }
    const res = await client.get(`/patients/?query_search=${encodeURIComponent(`${t} nadie`)}`);
    assert.deepEqual(listedIds(res.body), []);
    assert.match(res.body, /Ningún paciente activo coincide/);
    assert.equal(valueOf(res.body, 'query_search'), `${t} nadie`);
  });

  test('"maria rodriguez": every word, in any order, on every list that searches and its CSV export (issue 29, decision 0070)', async () => {
    const t = uniq();
    const maria = await createPatient(ctx.db, { nombre: 'María Fernanda', apellido: 'Rodríguez Pérez', documento: `${t}DOC1` });
    const jose = await createPatient(ctx.db, { nombre: 'José Luis', apellido: 'Gómez', documento: `${t}DOC2` });
    for (const path of ['/patients/', '/patients/follow', '/exams/']) {
      for (const [q, expected] of [
        [`maria rodriguez ${t}`, [maria.id]],
        [`RODRÍGUEZ ${t} maría`, [maria.id]],
        [`jose gomez ${t}`, [jose.id]],
        [`jose rodriguez ${t}`, []],
      ] as const) {
        const res = await client.get(`${path}?query_search=${encodeURIComponent(q)}`);
        assert.equal(res.status, 200);
        assert.deepEqual(listedIds(res.body), expected, `${path} '${q}'`);
        assert.equal(valueOf(res.body, 'query_search'), q);
      }
    }
    for (const path of ['/patients/export.csv', '/patients/follow.csv', '/exams/export.csv']) {
      const csv = await client.get(`${path}?query_search=${encodeURIComponent(`rodriguez maria ${t}`)}`);
      assert.equal(csv.status, 200);
      const rows = csv.body.trim().split('\r\n').slice(1);
      assert.deepEqual(rows.map((r) => r.split(';')[0]), [`${t}DOC1`], path);
    }
  });

  test('a cédula typed as printed (1.098.572.175), with hyphens or spaces, finds the patient on the lists; the box keeps what was typed', async () => {
    const digits = String(6_000_000_000 + Math.floor(Math.random() * 999_999_999));
    const dotted = digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
    const p = await createPatient(ctx.db, { nombre: 'Cédula', apellido: 'Con Puntos', documento: digits });
    for (const path of ['/patients/', '/patients/follow', '/exams/']) {
      for (const q of [dotted, digits.replace(/(\d{3})(?=\d)/g, '$1-'), digits.replace(/(\d{3})(?=\d)/g, '$1 ')]) {
        const res = await client.get(`${path}?query_search=${encodeURIComponent(q)}`);
        assert.equal(res.status, 200);
        assert.ok(listedIds(res.body).includes(p.id), `${path} '${q}' should find ${digits}`);
        assert.equal(valueOf(res.body, 'query_search'), q);
      }
    }
  });

  test('SQL-injection-like and wildcard searches are harmless', async () => {
    const t = uniq();
    await createPatient(ctx.db, { nombre: `Control ${t}` });
    for (const q of [`' OR '1'='1`, `"; DROP TABLE patients; --`, '%', '_', '\\', '"', `a" OR "b`, 'NEAR(a b)', '*', `%' --`, '\u00e9\u0301']) {
      const res = await client.get(`/patients/?query_search=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200, q);
    }
    const res = await client.get(`/patients/?query_search=${encodeURIComponent(`' OR 1=1 --`)}`);
    assert.deepEqual(listedIds(res.body), []);
    const check = await client.get(`/patients/?query_search=${t}`);
    assert.equal(listedIds(check.body).length, 1);
  });

  test('mes_filtro: a patient started 6 months ago is in month 7, not 6; out of range or not a number is ignored', async () => {
    const t = uniq();
    const p = await createPatient(ctx.db, { nombre: t }, { fechaInicio: '2026-05-20' });
    const ids = async (mes: string) => listedIds((await client.get(`/patients/?query_search=${t}&mes_filtro=${mes}`)).body);
    assert.deepEqual(await ids('7'), [p.id]);
    assert.deepEqual(await ids('6'), []);
    for (const ignored of ['0', '19', 'abc', '-1', '']) assert.deepEqual(await ids(ignored), [p.id], `mes_filtro=${ignored}`);
    // Ignored, and said so beside the filter.
    const out = await client.get(`/patients/?query_search=${t}&mes_filtro=99`);
    assert.match(decodeEntities(out.body), /<p class="field-error" id="error_mes_filtro">«99» no es un mes del programa \(de 1 a 18\): se muestran todos los meses\.<\/p>/);
    assert.match(out.body, /name="mes_filtro" aria-invalid="true" aria-describedby="error_mes_filtro"/);
    assert.doesNotMatch((await client.get(`/patients/?query_search=${t}&mes_filtro=7`)).body, /field-error/);
    const res = await client.get(`/patients/?query_search=${t}&mes_filtro=7`);
    assert.equal(selectedOf(res.body, 'mes_filtro'), '7');
    const options = [...(/<select[^>]*name="mes_filtro"[\s\S]*?<\/select>/.exec(res.body)![0].matchAll(/<option value="(\d+)"/g))].map((m) => Number(m[1]));
    assert.deepEqual(options, Array.from({ length: 18 }, (_, i) => i + 1));
  });

  test('pagination: 10 a page, page 2, past the end → last page, page=abc → 1, links keep the filters', async () => {
    const t = uniq();
    const ids: number[] = [];
    for (let i = 0; i < 23; i++) ids.push((await createPatient(ctx.db, { nombre: t, apellido: `Ap${String(i).padStart(2, '0')}` }, { fechaInicio: '2026-11-05' })).id);
    const url = (page: string) => `/patients/?query_search=${t}&mes_filtro=1&page=${page}`;
    const p2 = await client.get(url('2'));
    assert.deepEqual(listedIds(p2.body), ids.slice(10, 20));
    assert.match(p2.body, /23 pacientes encontrados/);
    assert.match(p2.body, /Página 2 de 3/);
    const links = [...p2.body.matchAll(/<a href="([^"]*)"[^>]*data-page/g)].map((m) => decodeEntities(m[1]!));
    assert.ok(links.length >= 2);
    for (const link of links) {
      assert.match(link, new RegExp(`query_search=${t}`));
      assert.match(link, /mes_filtro=1/);
    }
    assert.ok(links.some((l) => l.endsWith('page=3')));
    assert.ok(links.some((l) => l.endsWith('page=1')));
    const past = await client.get(url('99'));
    assert.deepEqual(listedIds(past.body), ids.slice(20));
    assert.match(past.body, /Página 3 de 3/);
    const abc = await client.get(url('abc'));
    assert.deepEqual(listedIds(abc.body), ids.slice(0, 10));
    const huge = await client.get(url('999999999999999999999'));
    assert.deepEqual(listedIds(huge.body), ids.slice(20));
  });

  test('the list page offers "Nuevo paciente"; a repeated parameter does not break it', async () => {
    const res = await client.get('/patients/?query_search=a&query_search=b&page=1&page=2');
    assert.equal(res.status, 200);
    assert.match(res.body, /href="\/patients\/create\/"[^>]*>\s*Nuevo paciente/);
  });

  test('requires a login', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/patients/' });
    assert.equal(res.statusCode, 302);
    assert.match(String(res.headers.location), /^\/users\/login\//);
  });
});
