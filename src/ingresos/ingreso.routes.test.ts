// The Ingreso lifecycle endpoints through the real app (decisions §6), on SQLite or PostgreSQL (TEST_PG_URL).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, loggedInClient, messagesIn, TestClient, type TestContext, type TestResponse } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { MSG } from './ingreso.rules.js';

// The test clock says 2026-11-22T15:00Z: 10:00 on 22 Nov 2026 in Bogotá.
const TODAY = '2026-11-22';

let ctx: TestContext;
let client: TestClient;
let user: { id: number; username: string };

before(async () => {
  ctx = await createTestContext();
  ({ client, user } = await loggedInClient(ctx));
});
after(async () => ctx.close());

const estadoUrl = (id: number | string, status: string) => `/patients/ingreso/estado/${id}/${status}/`;
const nuevoUrl = (id: number | string) => `/patients/ingreso/nuevo/${id}/`;

async function ingreso(id: number) {
  return ctx.db.selectFrom('ingresos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
async function history(ingresoId: number) {
  return ctx.db.selectFrom('ingreso_historial').selectAll().where('ingreso_id', '=', ingresoId).orderBy('id').execute();
}
async function audits(action: string, entityId: number) {
  return ctx.db.selectFrom('audit_log').selectAll().where('action', '=', action).where('entity_id', '=', entityId).orderBy('id').execute();
}
async function ingresosOf(patientId: number) {
  return ctx.db.selectFrom('ingresos').selectAll().where('paciente_id', '=', patientId).orderBy('id').execute();
}

/** Another browser tab of the same session (same session and CSRF cookies, its own one-time messages). */
function tabOf(c: TestClient): TestClient {
  const tab = new TestClient(ctx.app);
  for (const [k, v] of c.cookies) if (k !== 'messages') tab.cookies.set(k, v);
  tab.csrfToken = c.csrfToken;
  return tab;
}

type Sent = TestResponse & { tab: TestClient };
/** Posts from a fresh tab of the logged-in session, so the messages seen next are this request's only. */
async function post(url: string, form: Record<string, string | string[]> = {}, options: { csrf?: boolean } = {}): Promise<Sent> {
  const tab = tabOf(client);
  return { ...(await tab.post(url, form, options)), tab };
}

/** Asserts a 302 to /patients/follow and returns the one-time messages of the page it leads to. */
async function redirectMessages(res: Sent, location = '/patients/follow') {
  assert.equal(res.status, 302, res.body.slice(0, 300));
  assert.equal(res.location, location);
  return messagesIn((await res.tab.follow(res)).body);
}

let seq = 0;
/** A patient with a unique first name (messages name it) and, unless fechaInicio is null, an ACTIVO Ingreso. */
async function buildPatient(fechaInicio: string | null = '2026-06-10') {
  const nombre = `Ana${process.pid}x${++seq}`;
  const p = await createPatient(ctx.db, { nombre }, { fechaInicio });
  return { ...p, nombre };
}

/** A patient whose (only) Ingreso is in the given state. */
async function patientIn(estado: 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO', fechaInicio = '2026-06-10') {
  const p = await buildPatient(fechaInicio);
  const id = p.ingresoId!;
  if (estado === 'SUSPENDIDO') {
    await ctx.db.updateTable('ingresos').set({ estado: 'SUSPENDIDO', motivo: 'viaje' }).where('id', '=', id).execute();
  } else if (estado === 'TERMINADO') {
    await ctx.db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: '2026-09-30', motivo: 'alta' }).where('id', '=', id).execute();
  }
  return { ...p, ingresoId: id };
}

describe('status change: to TERMINADO', () => {
  for (const from of ['ACTIVO', 'SUSPENDIDO'] as const) {
    test(`${from} → TERMINADO with a valid date and motivo: finished, history, audit, message with the first name and ✅`, async () => {
      const p = await patientIn(from);
      const before = await ingreso(p.ingresoId);
      const res = await post(estadoUrl(p.ingresoId, 'TERMINADO'), { fecha_terminacion: '2026-11-20', motivo_estado: '  Alta médica  ' });
      const messages = await redirectMessages(res);
      assert.equal(messages.length, 1);
      assert.equal(messages[0]!.level, 'success');
      assert.ok(messages[0]!.text.includes(p.nombre), messages[0]!.text);
      assert.match(messages[0]!.text, /finalizado/);
      assert.match(messages[0]!.text, /archivado/);
      assert.ok(messages[0]!.text.endsWith('✅'));

      const after = await ingreso(p.ingresoId);
      assert.equal(after.estado, 'TERMINADO');
      assert.equal(after.fecha_fin, '2026-11-20');
      assert.equal(after.motivo, 'Alta médica');

      const h = (await history(p.ingresoId)).at(-1)!;
      assert.deepEqual(
        { user_id: h.user_id, desde: h.desde, hacia: h.hacia, motivo: h.motivo, fecha: h.fecha },
        { user_id: user.id, desde: from, hacia: 'TERMINADO', motivo: 'Alta médica', fecha: '2026-11-20' },
      );
      const [audit, ...more] = await audits('ingreso.status', p.ingresoId);
      assert.equal(more.length, 0);
      assert.equal(audit!.user_id, user.id);
      assert.equal(audit!.username, user.username);
      assert.equal(audit!.entity_type, 'ingreso');
      assert.equal(audit!.patient_id, p.id);
      assert.deepEqual(JSON.parse(audit!.changes!), {
        estado: [from, 'TERMINADO'],
        fecha_fin: [null, '2026-11-20'],
        motivo: [before.motivo, 'Alta médica'],
      });
    });
  }

  test('the end date may be the start date or today', async () => {
    const a = await patientIn('ACTIVO', '2026-11-01');
    await post(estadoUrl(a.ingresoId, 'TERMINADO'), { fecha_terminacion: '2026-11-01', motivo_estado: 'x' });
    assert.equal((await ingreso(a.ingresoId)).fecha_fin, '2026-11-01');
    const b = await patientIn('ACTIVO', '2026-11-01');
    await post(estadoUrl(b.ingresoId, 'TERMINADO'), { fecha_terminacion: TODAY, motivo_estado: 'x' });
    assert.equal((await ingreso(b.ingresoId)).fecha_fin, TODAY);
  });

  const refused: { name: string; form: Record<string, string | string[]>; says: RegExp }[] = [
    { name: 'no fields at all', form: {}, says: /Falta la fecha de terminación.*Falta el motivo/ },
    { name: 'missing fecha_terminacion', form: { motivo_estado: 'Alta' }, says: /Falta la fecha de terminación/ },
    { name: 'blank fecha_terminacion', form: { fecha_terminacion: '  ', motivo_estado: 'Alta' }, says: /Falta la fecha de terminación/ },
    { name: 'malformed fecha_terminacion', form: { fecha_terminacion: '20/11/2026', motivo_estado: 'Alta' }, says: /no es una fecha válida/ },
    { name: 'impossible fecha_terminacion', form: { fecha_terminacion: '2026-02-30', motivo_estado: 'Alta' }, says: /no es una fecha válida/ },
    { name: 'fecha_terminacion before fecha_inicio', form: { fecha_terminacion: '2026-06-09', motivo_estado: 'Alta' }, says: /anterior a la fecha de inicio del ciclo \(10\/06\/2026\)/ },
    { name: 'fecha_terminacion after today', form: { fecha_terminacion: '2026-11-23', motivo_estado: 'Alta' }, says: /posterior a hoy/ },
    { name: 'missing motivo_estado', form: { fecha_terminacion: '2026-11-20' }, says: /Falta el motivo/ },
    { name: 'blank motivo_estado', form: { fecha_terminacion: '2026-11-20', motivo_estado: ' \n\t ' }, says: /Falta el motivo/ },
    { name: 'motivo_estado too long', form: { fecha_terminacion: '2026-11-20', motivo_estado: 'x'.repeat(2001) }, says: /no puede superar 2000/ },
    { name: 'a repeated field', form: { fecha_terminacion: '2026-11-20', motivo_estado: ['a', 'b'] }, says: /Motivo: .*más de una vez/ },
    { name: 'an unknown field', form: { fecha_terminacion: '2026-11-20', motivo_estado: 'Alta', estado: 'X' }, says: /campos desconocidos: estado/ },
  ];
  for (const from of ['ACTIVO', 'SUSPENDIDO'] as const) {
    for (const r of refused) {
      test(`${from} → TERMINADO refused (${r.name}): error message naming the problem, nothing changes`, async () => {
        const p = await patientIn(from);
        const before = await ingreso(p.ingresoId);
        const historyBefore = (await history(p.ingresoId)).length;
        const messages = await redirectMessages(await post(estadoUrl(p.ingresoId, 'TERMINADO'), r.form));
        assert.equal(messages.length, 1);
        assert.equal(messages[0]!.level, 'error');
        assert.match(messages[0]!.text, /^No se pudo terminar el ciclo\./);
        assert.match(messages[0]!.text, r.says);
        assert.deepEqual(await ingreso(p.ingresoId), before);
        assert.equal((await history(p.ingresoId)).length, historyBefore);
        assert.equal((await audits('ingreso.status', p.ingresoId)).length, 0);
      });
    }
  }
});

describe('status change: suspend and reactivate', () => {
  test('ACTIVO → SUSPENDIDO with a motivo: suspended, history and audit with the motivo', async () => {
    const p = await patientIn('ACTIVO');
    const messages = await redirectMessages(await post(estadoUrl(p.ingresoId, 'SUSPENDIDO'), { motivo_estado: 'Viaje largo' }));
    assert.deepEqual(messages, [{ level: 'success', text: MSG.suspended(p.nombre) }]);
    const row = await ingreso(p.ingresoId);
    assert.deepEqual([row.estado, row.fecha_fin, row.motivo], ['SUSPENDIDO', null, 'Viaje largo']);
    const h = (await history(p.ingresoId)).at(-1)!;
    assert.deepEqual([h.user_id, h.desde, h.hacia, h.motivo, h.fecha], [user.id, 'ACTIVO', 'SUSPENDIDO', 'Viaje largo', TODAY]);
    const [audit] = await audits('ingreso.status', p.ingresoId);
    assert.deepEqual(JSON.parse(audit!.changes!), { estado: ['ACTIVO', 'SUSPENDIDO'], motivo: [null, 'Viaje largo'] });
  });

  test('ACTIVO → SUSPENDIDO without a motivo (it is optional)', async () => {
    const p = await patientIn('ACTIVO');
    const messages = await redirectMessages(await post(estadoUrl(p.ingresoId, 'SUSPENDIDO')));
    assert.equal(messages[0]!.level, 'success');
    const row = await ingreso(p.ingresoId);
    assert.deepEqual([row.estado, row.motivo], ['SUSPENDIDO', null]);
    assert.equal((await history(p.ingresoId)).at(-1)!.hacia, 'SUSPENDIDO');
  });

  test('SUSPENDIDO → ACTIVO: reactivated, the suspension motivo stays only in the history', async () => {
    const p = await patientIn('ACTIVO');
    await post(estadoUrl(p.ingresoId, 'SUSPENDIDO'), { motivo_estado: 'Cirugía' });
    const messages = await redirectMessages(await post(estadoUrl(p.ingresoId, 'ACTIVO')));
    assert.deepEqual(messages, [{ level: 'success', text: MSG.reactivated(p.nombre) }]);
    const row = await ingreso(p.ingresoId);
    assert.deepEqual([row.estado, row.fecha_fin, row.motivo], ['ACTIVO', null, null]);
    const steps = (await history(p.ingresoId)).map((h) => [h.desde, h.hacia, h.motivo]);
    assert.deepEqual(steps, [
      [null, 'ACTIVO', null],
      ['ACTIVO', 'SUSPENDIDO', 'Cirugía'],
      ['SUSPENDIDO', 'ACTIVO', null],
    ]);
    assert.equal((await audits('ingreso.status', p.ingresoId)).length, 2);
  });
});

describe('status change: refused without a change', () => {
  for (const target of ['ACTIVO', 'SUSPENDIDO', 'TERMINADO']) {
    test(`TERMINADO → ${target}: error, a finished cycle cannot change`, async () => {
      const p = await patientIn('TERMINADO');
      const before = await ingreso(p.ingresoId);
      const messages = await redirectMessages(
        await post(estadoUrl(p.ingresoId, target), target === 'TERMINADO' ? { fecha_terminacion: TODAY, motivo_estado: 'otra vez' } : {}),
      );
      assert.deepEqual(messages, [{ level: 'error', text: MSG.finished }]);
      assert.deepEqual(await ingreso(p.ingresoId), before);
      assert.equal((await history(p.ingresoId)).length, 1);
    });
  }

  for (const estado of ['ACTIVO', 'SUSPENDIDO'] as const) {
    test(`${estado} → ${estado}: info message, nothing changes`, async () => {
      const p = await patientIn(estado);
      const before = await ingreso(p.ingresoId);
      const messages = await redirectMessages(await post(estadoUrl(p.ingresoId, estado)));
      assert.deepEqual(messages, [{ level: 'info', text: MSG.same(estado) }]);
      assert.deepEqual(await ingreso(p.ingresoId), before);
      assert.equal((await history(p.ingresoId)).length, 1);
      assert.equal((await audits('ingreso.status', p.ingresoId)).length, 0);
    });
  }

  test('unknown or non-numeric entry_id, unknown status word: 404 page, nothing changes', async () => {
    const p = await patientIn('ACTIVO');
    const before = await ingreso(p.ingresoId);
    for (const url of [
      estadoUrl(999999, 'SUSPENDIDO'),
      estadoUrl('abc', 'SUSPENDIDO'),
      estadoUrl('0', 'SUSPENDIDO'),
      estadoUrl('-1', 'SUSPENDIDO'),
      estadoUrl('99999999999999999999', 'SUSPENDIDO'),
      estadoUrl(p.ingresoId, 'suspendido'),
      estadoUrl(p.ingresoId, 'BORRADO'),
      estadoUrl(p.ingresoId, '%20'),
    ]) {
      const res = await post(url, { motivo_estado: 'x' });
      assert.equal(res.status, 404, url);
      assert.match(res.body, /Página no encontrada/);
    }
    assert.deepEqual(await ingreso(p.ingresoId), before);
  });

  test('GET and other methods: 405 with an Allow header, nothing changes', async () => {
    const p = await patientIn('ACTIVO');
    for (const url of [estadoUrl(p.ingresoId, 'SUSPENDIDO'), estadoUrl(p.ingresoId, 'TERMINADO'), nuevoUrl(p.id)]) {
      const res = await client.get(url);
      assert.equal(res.status, 405, url);
      assert.match(String(res.headers.allow), /POST/);
      assert.match(res.body, /Método no permitido/);
      const put = await ctx.app.inject({ method: 'PUT', url, headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'x-csrftoken': client.csrfToken! } });
      assert.equal(put.statusCode, 405, url);
    }
    assert.equal((await ingreso(p.ingresoId)).estado, 'ACTIVO');
    assert.equal((await ingresosOf(p.id)).length, 1);
  });

  test('without a CSRF token: 403, nothing changes; without a session: to the login page', async () => {
    const p = await patientIn('ACTIVO');
    const res = await post(estadoUrl(p.ingresoId, 'SUSPENDIDO'), {}, { csrf: false });
    assert.equal(res.status, 403);
    const anonymous = new TestClient(ctx.app);
    const anon = await anonymous.post(estadoUrl(p.ingresoId, 'SUSPENDIDO'));
    assert.ok(anon.status === 302 || anon.status === 403, String(anon.status));
    assert.equal((await ingreso(p.ingresoId)).estado, 'ACTIVO');
  });

  test('the follow page search and page the form came from are kept in the redirect', async () => {
    const p = await patientIn('ACTIVO');
    const res = await post(estadoUrl(p.ingresoId, 'SUSPENDIDO'), { query_search: 'josé pérez', page: '2' });
    assert.equal(res.status, 302);
    assert.equal(res.location, '/patients/follow?query_search=jos%C3%A9+p%C3%A9rez&page=2');
    const blank = await post(estadoUrl(p.ingresoId, 'ACTIVO'), { query_search: '', page: 'x' });
    assert.equal(blank.location, '/patients/follow');
    assert.equal((await ingreso(p.ingresoId)).estado, 'ACTIVO');
  });
});

describe('status change: concurrency', () => {
  test('concurrent terminations and suspensions of one Ingreso: exactly one applies, no 500', async () => {
    const p = await patientIn('ACTIVO');
    const posts = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0
        ? post(estadoUrl(p.ingresoId, 'TERMINADO'), { fecha_terminacion: TODAY, motivo_estado: `fin ${i}` })
        : post(estadoUrl(p.ingresoId, 'SUSPENDIDO'), { motivo_estado: `pausa ${i}` }),
    );
    const results = await Promise.all(posts);
    for (const r of results) assert.equal(r.status, 302);
    const row = await ingreso(p.ingresoId);
    const steps = (await history(p.ingresoId)).slice(1);
    // Either a termination won straight away, or a suspension won and a later termination finished it.
    assert.equal(row.estado === 'TERMINADO' || row.estado === 'SUSPENDIDO', true);
    assert.ok(steps.filter((h) => h.hacia === 'TERMINADO').length <= 1);
    assert.ok(steps.filter((h) => h.hacia === 'SUSPENDIDO').length <= 1);
    for (let i = 1; i < steps.length; i++) assert.equal(steps[i]!.desde, steps[i - 1]!.hacia);
    assert.equal((await audits('ingreso.status', p.ingresoId)).length, steps.length);
  });
});

describe('new cycle', () => {
  /** A patient whose only cycle ended on 2026-09-30. */
  const finishedPatient = () => patientIn('TERMINADO');

  for (const estado of ['ACTIVO', 'SUSPENDIDO'] as const) {
    test(`refused while the patient has a ${estado} Ingreso: pending-process error, nothing created`, async () => {
      const p = await patientIn(estado);
      const messages = await redirectMessages(await post(nuevoUrl(p.id), { fecha_inicio: TODAY }));
      assert.deepEqual(messages, [{ level: 'error', text: MSG.pendingProcess }]);
      assert.equal((await ingresosOf(p.id)).length, 1);
    });
  }

  for (const [name, form] of [
    ['missing', {}],
    ['blank', { fecha_inicio: '' }],
    ['malformed', { fecha_inicio: '1/12/2026' }],
    ['impossible', { fecha_inicio: '2026-11-31' }],
  ] as const) {
    test(`fecha_inicio ${name}: error, nothing created`, async () => {
      const p = await finishedPatient();
      const messages = await redirectMessages(await post(nuevoUrl(p.id), form));
      assert.deepEqual(messages, [{ level: 'error', text: MSG.newCycleInvalidDate }]);
      assert.equal((await ingresosOf(p.id)).length, 1);
    });
  }

  test('fecha_inicio before the end of the latest finished cycle: error, nothing created', async () => {
    const p = await finishedPatient();
    const messages = await redirectMessages(await post(nuevoUrl(p.id), { fecha_inicio: '2026-09-29' }));
    assert.deepEqual(messages, [{ level: 'error', text: MSG.newCycleBeforeLastEnd('2026-09-30') }]);
    assert.match(messages[0]!.text, /30\/09\/2026/);
    assert.equal((await ingresosOf(p.id)).length, 1);
  });

  test('an unknown field: error, nothing created', async () => {
    const p = await finishedPatient();
    const messages = await redirectMessages(await post(nuevoUrl(p.id), { fecha_inicio: TODAY, estado: 'ACTIVO' }));
    assert.equal(messages[0]!.level, 'error');
    assert.match(messages[0]!.text, /campos desconocidos: estado/);
    assert.equal((await ingresosOf(p.id)).length, 1);
  });

  test('success: a new ACTIVO Ingreso (may start the day the last one ended), history and audit', async () => {
    const p = await finishedPatient();
    const messages = await redirectMessages(await post(nuevoUrl(p.id), { fecha_inicio: '2026-09-30', query_search: p.documento }), `/patients/follow?query_search=${p.documento}`);
    assert.deepEqual(messages, [{ level: 'success', text: MSG.newCycleCreated(p.nombre) }]);
    const rows = await ingresosOf(p.id);
    assert.equal(rows.length, 2);
    const fresh = rows[1]!;
    assert.deepEqual([fresh.estado, fresh.fecha_inicio, fresh.fecha_fin, fresh.motivo], ['ACTIVO', '2026-09-30', null, null]);
    const [h] = await history(fresh.id);
    assert.deepEqual([h!.user_id, h!.desde, h!.hacia, h!.fecha], [user.id, null, 'ACTIVO', '2026-09-30']);
    const [audit] = await audits('ingreso.open', fresh.id);
    assert.equal(audit!.patient_id, p.id);
    assert.equal(audit!.user_id, user.id);
    assert.deepEqual(JSON.parse(audit!.changes!), { estado: [null, 'ACTIVO'], fecha_inicio: [null, '2026-09-30'] });
  });

  test('a patient with no Ingreso at all can start one today; a start after today is refused (it would be billed now)', async () => {
    const p = await buildPatient(null);
    const future = await redirectMessages(await post(nuevoUrl(p.id), { fecha_inicio: '2027-01-15' }));
    assert.equal(future[0]!.level, 'error');
    assert.match(future[0]!.text, /no puede ser posterior a hoy/);
    assert.deepEqual(await ingresosOf(p.id), []);
    const messages = await redirectMessages(await post(nuevoUrl(p.id), { fecha_inicio: TODAY }));
    assert.equal(messages[0]!.level, 'success');
    const rows = await ingresosOf(p.id);
    assert.deepEqual(rows.map((r) => [r.estado, r.fecha_inicio]), [['ACTIVO', TODAY]]);
  });

  test('unknown or non-numeric patient: 404', async () => {
    for (const id of ['999999', 'abc', '0', '1.5']) {
      const res = await post(nuevoUrl(id), { fecha_inicio: TODAY });
      assert.equal(res.status, 404, id);
    }
  });

  test('20 concurrent new-cycle requests for one patient: exactly one new Ingreso, the others a pending-process error, no 500', async () => {
    const p = await patientIn('ACTIVO');
    await post(estadoUrl(p.ingresoId, 'TERMINADO'), { fecha_terminacion: '2026-11-01', motivo_estado: 'Fin del primer ciclo' });
    assert.equal((await ingreso(p.ingresoId)).estado, 'TERMINADO');
    // 20 tabs of one session, each with its own cookie jar so each one sees its own message.
    const clients = Array.from({ length: 20 }, () => tabOf(client));
    const results = await Promise.all(clients.map((c) => c.post(nuevoUrl(p.id), { fecha_inicio: TODAY })));
    for (const r of results) {
      assert.equal(r.status, 302);
      assert.equal(r.location, '/patients/follow');
    }
    const rows = await ingresosOf(p.id);
    assert.equal(rows.length, 2);
    assert.equal(rows.filter((r) => r.estado === 'ACTIVO').length, 1);
    assert.equal((await audits('ingreso.open', rows[1]!.id)).length, 1);
    const texts = await Promise.all(clients.map(async (c, i) => messagesIn((await c.follow(results[i]!)).body)[0]));
    assert.equal(texts.filter((m) => m?.level === 'success').length, 1);
    assert.equal(texts.filter((m) => m?.level === 'error' && m.text === MSG.pendingProcess).length, 19);
  });
});
