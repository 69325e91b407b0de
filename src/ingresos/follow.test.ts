// GET /patients/follow (decisions §5) and the whole cycle journey through the app, on SQLite or PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, decodeEntities, loggedInClient, messagesIn, TestClient, type TestContext } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { MSG } from './ingreso.rules.js';

// The test clock says 2026-11-22T15:00Z: 22 Nov 2026 in Bogotá.
const TODAY = '2026-11-22';

let ctx: TestContext;
let client: TestClient;
let user: { id: number; username: string };

before(async () => {
  ctx = await createTestContext();
  ({ client, user } = await loggedInClient(ctx));
});
after(async () => ctx.close());

let seq = 0;
/** A token no other test uses: search for it to see only this test's patients. */
const token = () => `zq${process.pid.toString(36)}x${(++seq).toString(36)}`;

async function patient(overrides: { nombre?: string; apellido?: string } = {}, fechaInicio: string | null = '2026-06-10') {
  const nombre = overrides.nombre ?? `Ana${token()}`;
  const p = await createPatient(ctx.db, { nombre, apellido: overrides.apellido ?? 'Prueba' }, { fechaInicio });
  return { ...p, nombre };
}

async function setEstado(ingresoId: number, estado: 'SUSPENDIDO' | 'TERMINADO', fechaFin = '2026-09-30') {
  await ctx.db
    .updateTable('ingresos')
    .set(estado === 'TERMINADO' ? { estado, fecha_fin: fechaFin, motivo: 'alta' } : { estado, motivo: 'viaje' })
    .where('id', '=', ingresoId)
    .execute();
}

async function addCycle(pacienteId: number, fechaInicio: string) {
  const row = await ctx.db
    .insertInto('ingresos')
    .values({ paciente_id: pacienteId, fecha_inicio: fechaInicio, fecha_fin: null, estado: 'ACTIVO', motivo: null, created_at: 'x', updated_at: 'x' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const follow = async (query = '') => {
  const res = await client.get(`/patients/follow${query}`);
  assert.equal(res.status, 200);
  return res.body;
};

const patientIds = (html: string) => [...html.matchAll(/data-patient-id="(\d+)"/g)].map((m) => Number(m[1]));
const ingresoIds = (html: string) => [...html.matchAll(/data-ingreso-id="(\d+)"/g)].map((m) => Number(m[1]));

/** The HTML of one patient's section. */
function patientBlock(html: string, id: number): string {
  const start = html.indexOf(`data-patient-id="${id}"`);
  assert.ok(start >= 0, `patient ${id} not shown`);
  return html.slice(start, html.indexOf('</section>', start));
}

/** The HTML of one Ingreso's item. */
function ingresoBlock(html: string, id: number): string {
  const start = html.indexOf(`data-ingreso-id="${id}"`);
  assert.ok(start >= 0, `ingreso ${id} not shown`);
  return html.slice(start, html.indexOf('</article>', start));
}

/** The forms in a piece of HTML: action, attributes of the form tag, and its inner HTML. */
function formsIn(html: string) {
  return [...html.matchAll(/<form([^>]*)>([\s\S]*?)<\/form>/g)].map((m) => ({
    action: /action="([^"]*)"/.exec(m[1]!)?.[1] ?? '',
    attrs: m[1]!,
    body: m[2]!,
  }));
}

describe('GET /patients/follow', () => {
  test('each patient with all its Ingresos, newest first, with the data hooks; also at /patients/follow/', async () => {
    const t = token();
    const p = await patient({ apellido: `Ruiz${t}` });
    await setEstado(p.ingresoId!, 'TERMINADO', '2026-07-31');
    const second = await addCycle(p.id, '2026-08-01');
    await setEstado(second, 'TERMINADO', '2026-09-30');
    const third = await addCycle(p.id, '2026-10-01');

    for (const path of [`?query_search=${t}`, `/?query_search=${t}`]) {
      const html = await follow(path);
      assert.deepEqual(patientIds(html), [p.id]);
      const block = patientBlock(html, p.id);
      assert.deepEqual(ingresoIds(block), [third, second, p.ingresoId]);
      assert.match(ingresoBlock(block, third), /data-estado="ACTIVO"/);
      assert.match(ingresoBlock(block, second), /data-estado="TERMINADO"/);
      assert.match(ingresoBlock(block, p.ingresoId!), /data-estado="TERMINADO"/);
      assert.match(html, /data-total-count="1"/);
      assert.match(block, new RegExp(`href="/patients/${p.id}/"`));
    }
  });

  test('shows every patient, whatever its state, with total_count; searching ignores case and accents', async () => {
    const t = token();
    const active = await patient({ nombre: 'José', apellido: `Pérez${t}` });
    const suspended = await patient({ nombre: 'Lucía', apellido: `Pérez${t}` });
    await setEstado(suspended.ingresoId!, 'SUSPENDIDO');
    const finished = await patient({ nombre: 'Óscar', apellido: `Pérez${t}` });
    await setEstado(finished.ingresoId!, 'TERMINADO');
    const none = await patient({ nombre: 'Zoe', apellido: `Pérez${t}` }, null);
    await patient({ nombre: 'Otro', apellido: `Distinto${t}` });

    const html = await follow(`?query_search=PEREZ${t.toUpperCase()}`);
    // Ordered by apellido, nombre: José, Lucía, Óscar, Zoe.
    assert.deepEqual(patientIds(html), [active.id, suspended.id, finished.id, none.id]);
    assert.match(html, /data-total-count="4"/);
    assert.match(html, /4 pacientes encontrados/);
    assert.deepEqual(patientIds(await follow(`?query_search=${encodeURIComponent(`jose perez${t}`)}`)), [active.id]);
    assert.match(patientBlock(html, none.id), /no tiene ingresos registrados/);
    // The search box keeps what was typed.
    assert.match(html, new RegExp(`name="query_search" value="PEREZ${t.toUpperCase()}"`));
  });

  test('10 patients a page, pagination links keep query_search, out-of-range pages show the last page', async () => {
    const t = token();
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await patient({ nombre: `N${String(i).padStart(2, '0')}`, apellido: `Lista${t}` })).id);
    const first = await follow(`?query_search=${t}`);
    assert.deepEqual(patientIds(first), ids.slice(0, 10));
    assert.match(first, /data-total-count="12"/);
    assert.ok(first.includes(`href="/patients/follow?query_search=${t}&amp;page=2"`), 'next page link keeps the search');
    const second = await follow(`?query_search=${t}&page=2`);
    assert.deepEqual(patientIds(second), ids.slice(10));
    assert.ok(second.includes(`href="/patients/follow?query_search=${t}&amp;page=1"`), 'previous page link keeps the search');
    assert.deepEqual(patientIds(await follow(`?query_search=${t}&page=99`)), ids.slice(10));
    assert.deepEqual(patientIds(await follow(`?query_search=${t}&page=abc`)), ids.slice(0, 10));
    // Forms on page 2 bring the person back to page 2 of the same search.
    const forms = formsIn(patientBlock(second, ids[10]!));
    assert.ok(forms.length > 0);
    for (const f of forms) {
      assert.match(f.body, new RegExp(`name="query_search" value="${t}"`));
      assert.match(f.body, /name="page" value="2"/);
    }
  });

  test('an empty search result says so', async () => {
    const html = await follow(`?query_search=${token()}nadie`);
    assert.deepEqual(patientIds(html), []);
    assert.match(html, /data-total-count="0"/);
    assert.match(html, /Ningún paciente coincide/);
  });

  test('the actions each state allows, each form with the CSRF field', async () => {
    const t = token();
    const a = await patient({ apellido: `Acc${t}` });
    const s = await patient({ apellido: `Acc${t}` });
    await setEstado(s.ingresoId!, 'SUSPENDIDO');
    const f = await patient({ apellido: `Acc${t}` });
    await setEstado(f.ingresoId!, 'TERMINADO');
    const html = await follow(`?query_search=${t}`);

    const actionsOf = (ingresoId: number) => formsIn(ingresoBlock(html, ingresoId)).map((x) => x.action);
    const estado = (id: number, e: string) => `/patients/ingreso/estado/${id}/${e}/`;
    assert.deepEqual(actionsOf(a.ingresoId!), [estado(a.ingresoId!, 'SUSPENDIDO')]);
    assert.deepEqual(actionsOf(s.ingresoId!), [estado(s.ingresoId!, 'ACTIVO')]);
    assert.deepEqual(actionsOf(f.ingresoId!), []);
    // Terminating is asked on a page of its own, which keeps the search to come back to.
    const terminateLink = (id: number) => `href="/patients/ingreso/terminar/${id}/?query_search=${t}"`;
    assert.ok(ingresoBlock(html, a.ingresoId!).includes(terminateLink(a.ingresoId!)));
    assert.ok(ingresoBlock(html, s.ingresoId!).includes(terminateLink(s.ingresoId!)));
    assert.ok(!ingresoBlock(html, f.ingresoId!).includes('/patients/ingreso/terminar/'));

    // Nuevo ingreso only for the patient without an open cycle.
    const nuevo = (p: { id: number }) => formsIn(patientBlock(html, p.id)).filter((x) => x.action === `/patients/ingreso/nuevo/${p.id}/`);
    assert.equal(nuevo(a).length, 0);
    assert.equal(nuevo(s).length, 0);
    const [newCycle] = nuevo(f);
    assert.ok(newCycle);
    assert.match(newCycle.body, /<input[^>]*name="fecha_inicio"[^>]*type="date"/);
    assert.match(newCycle.body, /min="2026-09-30"/);

    // The page that asks before terminating: the question naming the patient, a date defaulting to today, a
    // required motivo, and the browser's own validation off (the server's Spanish messages are the only ones).
    const asked = (await client.get(`/patients/ingreso/terminar/${a.ingresoId}/?query_search=${t}`)).body;
    assert.match(decodeEntities(asked), new RegExp(`<h1>¿Terminar el ciclo de ${a.nombre}\\?</h1>`));
    const terminate = formsIn(asked).find((x) => x.action.endsWith('/TERMINADO/'))!;
    assert.match(terminate.attrs, /novalidate/);
    assert.match(terminate.body, new RegExp(`<input[^>]*name="fecha_terminacion"[^>]*type="date"[^>]*value="${TODAY}"`));
    assert.match(terminate.body, /<input[^>]*name="motivo_estado"[^>]*required/);
    assert.match(terminate.body, new RegExp(`name="query_search" value="${t}"`));
    assert.match(terminate.body, /name="csrfmiddlewaretoken" value="[^"]+"/);
    const done = await client.get(`/patients/ingreso/terminar/${f.ingresoId}/`);
    assert.equal(done.status, 302, 'a finished cycle is not asked about again');
    const suspend = formsIn(ingresoBlock(html, a.ingresoId!)).find((x) => x.action.endsWith('/SUSPENDIDO/'))!;
    assert.match(suspend.body, /name="motivo_estado"/);
    assert.doesNotMatch(suspend.body, /required/);

    for (const form of formsIn(html).filter((x) => /method="post"/.test(x.attrs))) {
      assert.match(form.body, /name="csrfmiddlewaretoken" value="[^"]+"/, form.action);
    }
  });

  test('estado, dates, mes_capita, motivo, and the month-18 flag', async () => {
    const t = token();
    const recent = await patient({ apellido: `Mes${t}` }, '2026-09-15');
    const old = await patient({ apellido: `Mes${t}` }, '2025-05-02');
    const finished = await patient({ apellido: `Mes${t}` }, '2024-01-10');
    await setEstado(finished.ingresoId!, 'TERMINADO', '2025-07-01');
    const html = await follow(`?query_search=${t}`);

    const r = ingresoBlock(html, recent.ingresoId!);
    assert.match(r, /15\/09\/2026/);
    assert.match(r, /data-mes-capita="3"/);
    assert.doesNotMatch(r, /Revisar/);
    const o = ingresoBlock(html, old.ingresoId!);
    assert.match(o, /data-mes-capita="18"/);
    assert.match(o, /Revisar: llegó al mes 18/);
    const f = ingresoBlock(html, finished.ingresoId!);
    assert.match(f, /01\/07\/2025/);
    assert.match(f, /alta/);
    assert.doesNotMatch(f, /data-mes-capita/);
    assert.doesNotMatch(f, /Revisar/);
  });

  test('the status history of each Ingreso inline: when, who, from, to, motivo', async () => {
    const p = await patient({ apellido: `Hist${token()}` });
    await client.post(`/patients/ingreso/estado/${p.ingresoId}/SUSPENDIDO/`, { motivo_estado: 'Viaje a la costa' });
    const html = await follow(`?query_search=${encodeURIComponent(p.nombre)}`);
    const block = ingresoBlock(html, p.ingresoId!);
    const details = /<details class="ingreso-history"[\s\S]*?<\/details>/.exec(block)?.[0];
    assert.ok(details, 'history in a <details> element');
    assert.match(details, /Historial de estados \(2\)/);
    const rows = [...details.matchAll(/<tr data-history-id[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
      [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => decodeEntities(c[1]!)),
    );
    assert.deepEqual(rows[0], ['31/12/2025 19:00', '—', 'Apertura', 'ACTIVO', '10/06/2026', '—']);
    assert.deepEqual(rows[1], ['22/11/2026 10:00', user.username, 'ACTIVO', 'SUSPENDIDO', '22/11/2026', 'Viaje a la costa']);
  });

  test('names and motivos are rendered escaped', async () => {
    const p = await patient({ nombre: `<b>Eva${token()}</b>` });
    await ctx.db.updateTable('ingresos').set({ motivo: '<script>alert(1)</script>' }).where('id', '=', p.ingresoId!).execute();
    const html = await follow(`?query_search=${encodeURIComponent(p.nombre.slice(3, -4))}`);
    assert.ok(!html.includes('<script>alert(1)</script>'));
    assert.ok(!html.includes(p.nombre));
    assert.ok(html.includes('&lt;script>alert(1)&lt;/script>') || html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  });

  test('POST and other methods: 405', async () => {
    for (const path of ['/patients/follow', '/patients/follow/']) {
      const res = await client.post(path, {});
      assert.equal(res.status, 405, path);
      assert.match(String(res.headers.allow), /GET/);
    }
  });

  test('without a session: to the login page', async () => {
    const res = await new TestClient(ctx.app).get('/patients/follow');
    assert.equal(res.status, 302);
    assert.match(res.location!, /^\/users\/login\/\?next=/);
  });
});

describe('journey: create → suspend → reactivate → terminate → new cycle', () => {
  test('the whole cycle through the forms of the app', async () => {
    const t = token();
    const nombre = `Rosa${t}`;
    const created = await client.post('/patients/create/', {
      nombre,
      apellido: 'Martínez',
      tipo_documento: 'PA',
      documento: `J${t}`.slice(0, 20),
      fecha_nacimiento: '1968-02-03',
      genero: 'F',
      departamento: 'SANTANDER',
      ciudad: 'BUCARAMANGA',
      zona: 'URBANA',
      telefono: '6076000000',
      celular: '3150000000',
      estado_civil: 'CASADO',
      entidad_salud: 'ENTITY_B',
      estrato: '2',
      medico_remitente: 'Dr. Sueño',
      especialidad: 'Neumología',
      diagnostico_clinico: 'G47.3',
      programa: 'PROGRAMA AOS',
      fecha_inicio_programa: '2026-03-02',
    });
    assert.equal(created.status, 302, created.body.slice(0, 500));
    await client.follow(created);

    const search = `?query_search=${encodeURIComponent(nombre)}`;
    let html = await follow(search);
    const [patientId] = patientIds(html);
    const [ingresoId] = ingresoIds(html);
    assert.ok(patientId && ingresoId);
    assert.match(ingresoBlock(html, ingresoId), /data-estado="ACTIVO"/);

    /** Submits the form with this action as the page renders it, adding the given fields. */
    const submit = async (action: string, fields: Record<string, string> = {}) => {
      const form = formsIn(html).find((f) => f.action === action);
      assert.ok(form, `form ${action} offered`);
      const hidden = Object.fromEntries(
        [...form.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, decodeEntities(m[2]!)]),
      );
      const res = await client.post(action, { ...hidden, ...fields });
      assert.equal(res.status, 302);
      assert.equal(res.location, `/patients/follow${search.replace('%20', '+')}`);
      const page = await client.follow(res);
      html = page.body;
      return messagesIn(page.body);
    };

    assert.deepEqual(await submit(`/patients/ingreso/estado/${ingresoId}/SUSPENDIDO/`, { motivo_estado: 'Hospitalización' }), [
      { level: 'success', text: MSG.suspended(nombre) },
    ]);
    assert.match(ingresoBlock(html, ingresoId), /data-estado="SUSPENDIDO"/);

    assert.deepEqual(await submit(`/patients/ingreso/estado/${ingresoId}/ACTIVO/`), [{ level: 'success', text: MSG.reactivated(nombre) }]);
    assert.match(ingresoBlock(html, ingresoId), /data-estado="ACTIVO"/);

    // The page that asks first: an empty reason comes back to it with the message beside the field.
    const asked = await client.get(`/patients/ingreso/terminar/${ingresoId}/${search}`);
    assert.equal(asked.status, 200);
    html = asked.body;
    const askedForm = formsIn(html).find((f) => f.action === `/patients/ingreso/estado/${ingresoId}/TERMINADO/`);
    assert.ok(askedForm);
    const hidden = Object.fromEntries(
      [...askedForm.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, decodeEntities(m[2]!)]),
    );
    const invalid = await client.post(askedForm.action, { ...hidden, fecha_terminacion: '2026-11-15', motivo_estado: ' ' });
    assert.equal(invalid.status, 200);
    assert.match(invalid.body, /id="error_motivo_estado">Falta el motivo de la terminación\.</);
    // Suspended and reactivated today: the cycle cannot end before that (decision 0063).
    assert.match(invalid.body, /id="error_fecha_terminacion">La fecha de terminación no puede ser anterior al 22\/11\/2026, fecha del último cambio de estado\.</);
    assert.match(invalid.body, /value="2026-11-15"/);
    assert.match(ingresoBlock(await follow(search), ingresoId), /data-estado="ACTIVO"/);
    const terminated = await submit(`/patients/ingreso/estado/${ingresoId}/TERMINADO/`, { fecha_terminacion: TODAY, motivo_estado: 'Cumplió objetivos' });
    assert.equal(terminated.length, 1);
    assert.equal(terminated[0]!.level, 'success');
    assert.ok(terminated[0]!.text.includes(nombre));
    assert.ok(terminated[0]!.text.endsWith('✅'));
    assert.match(ingresoBlock(html, ingresoId), /data-estado="TERMINADO"/);

    assert.deepEqual(await submit(`/patients/ingreso/nuevo/${patientId}/`, { fecha_inicio: TODAY }), [
      { level: 'success', text: MSG.newCycleCreated(nombre) },
    ]);
    const ids = ingresoIds(patientBlock(html, patientId));
    assert.equal(ids.length, 2);
    assert.equal(ids[1], ingresoId);
    assert.match(ingresoBlock(html, ids[0]!), /data-estado="ACTIVO"/);
    assert.match(ingresoBlock(html, ids[0]!), /data-mes-capita="1"/);

    const steps = await ctx.db
      .selectFrom('ingreso_historial')
      .select(['ingreso_id', 'desde', 'hacia', 'user_id'])
      .where('ingreso_id', 'in', [ingresoId, ids[0]!])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      steps.map((s) => [s.ingreso_id, s.desde, s.hacia, s.user_id]),
      [
        [ingresoId, null, 'ACTIVO', user.id],
        [ingresoId, 'ACTIVO', 'SUSPENDIDO', user.id],
        [ingresoId, 'SUSPENDIDO', 'ACTIVO', user.id],
        [ingresoId, 'ACTIVO', 'TERMINADO', user.id],
        [ids[0], null, 'ACTIVO', user.id],
      ],
    );
  });
});
