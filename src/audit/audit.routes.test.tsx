import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, createUser, decodeEntities, loggedInClient, messagesIn, type TestClient, type TestContext } from '../../test/helpers.js';
import { recordAudit } from './audit.repository.js';

const rowsIn = (html: string): number[] => [...html.matchAll(/data-audit-id="(\d+)"/g)].map((m) => Number(m[1]));

describe('audit trail (/users/audit/)', () => {
  let ctx: TestContext;
  let admin: TestClient;
  let nurse: { id: number; username: string };
  const PATIENT = 424242;

  before(async () => {
    ctx = await createTestContext();
    ({ client: admin } = await loggedInClient(ctx, { isAdmin: true }));
    nurse = await createUser(ctx.db);
    const actor = { id: nurse.id, username: nurse.username };
    // 31 October 23:00 and 1 November 01:00 in Bogota.
    await recordAudit(ctx.db, { at: new Date('2026-11-01T04:00:00.000Z'), actor, action: 'patient.update', entityType: 'patient', entityId: PATIENT, patientId: PATIENT, changes: { telefono: ['6070000', '6071111'], peso: [null, 8000] } });
    await recordAudit(ctx.db, { at: new Date('2026-11-01T06:00:00.000Z'), actor, action: 'ingreso.status', entityType: 'ingreso', entityId: 77, patientId: PATIENT, changes: { estado: ['ACTIVO', 'SUSPENDIDO'] } });
    await recordAudit(ctx.db, { at: new Date('2026-11-02T06:00:00.000Z'), actor: null, action: 'login_failed', entityType: 'user', changes: { username: 'nadie' } });
  });
  after(async () => ctx.close());

  test('entries newest first, with Spanish labels and fields before and after', async () => {
    const res = await admin.get(`/users/audit/?paciente=${PATIENT}`);
    assert.equal(res.status, 200);
    const ids = rowsIn(res.body);
    assert.equal(ids.length, 2);
    assert.ok(ids[0]! > ids[1]!);
    assert.match(res.body, /01\/11\/2026 01:00/);
    assert.match(res.body, /31\/10\/2026 23:00/);
    assert.match(res.body, /Estado del ciclo cambiado/);
    assert.match(res.body, /Paciente modificado/);
    // Fields by their form's label, values as typed: 80 kg, not the stored 8000 hundredths.
    assert.match(res.body, /<strong>Teléfono<\/strong>: <del>6070000<\/del> → <ins>6071111<\/ins>/);
    assert.match(res.body, /<strong>Peso<\/strong>: <del>—<\/del> → <ins>80 kg<\/ins>/);
    // Ingreso 77 does not exist: the entry names a cycle without an internal id.
    assert.match(res.body, /<td data-label="Registro">Ciclo <a/);
    assert.doesNotMatch(res.body, /#77/);
  });

  test('a monitoring record reads as staff typed it: 32,4 where 32,4 was typed, choices by their label', async () => {
    const id = 737373;
    await recordAudit(ctx.db, {
      at: new Date('2026-11-03T15:00:00.000Z'),
      actor: null,
      action: 'exam.create',
      entityType: 'exam_record',
      entityId: 5,
      patientId: id,
      changes: { kind: [null, 'MONITOREO'], fecha: [null, '2026-11-03'], tipo: [null, 'POLIGRAFIA'], iah: [null, 3240], saturacion_minima: [null, 8850] },
    });
    await recordAudit(ctx.db, {
      at: new Date('2026-11-03T16:00:00.000Z'),
      actor: null,
      action: 'patient.update',
      entityType: 'patient',
      entityId: id,
      patientId: id,
      changes: { valor_capita: [25978300, 26000000], genero: ['M', 'F'], fecha_nacimiento: ['1961-03-14', '1961-04-14'] },
    });
    const body = decodeEntities((await admin.get(`/users/audit/?paciente=${id}`)).body);
    assert.match(body, /<strong>IAH<\/strong>: <del>—<\/del> → <ins>32,4 eventos\/h<\/ins>/);
    assert.match(body, /<strong>Saturación mínima<\/strong>: <del>—<\/del> → <ins>88,5 %<\/ins>/);
    assert.match(body, /<strong>Clase de registro<\/strong>: <del>—<\/del> → <ins>Monitoreo<\/ins>/);
    assert.match(body, /<strong>Tipo<\/strong>: <del>—<\/del> → <ins>Poligrafía respiratoria<\/ins>/);
    assert.match(body, /<strong>Fecha<\/strong>: <del>—<\/del> → <ins>03\/11\/2026<\/ins>/);
    assert.match(body, /<strong>Valor cápita<\/strong>: <del>\$ 259\.783<\/del> → <ins>\$ 260\.000<\/ins>/);
    assert.match(body, /<strong>Género<\/strong>: <del>Masculino<\/del> → <ins>Femenino<\/ins>/);
    assert.match(body, /<strong>Fecha de nacimiento<\/strong>: <del>14\/03\/1961<\/del> → <ins>14\/04\/1961<\/ins>/);
    // The rows only: the page's user filter lists usernames, which carry the process id and so any digits.
    const rows = body.slice(body.indexOf('<tbody'), body.lastIndexOf('</tbody>'));
    assert.match(rows, /data-audit-id=/);
    assert.doesNotMatch(rows, /3240|25978300|MONITOREO<|valor_capita</);
  });

  test('filters: user, action, record, date range in the configured time zone', async () => {
    const byUser = rowsIn((await admin.get(`/users/audit/?usuario=${nurse.id}`)).body);
    assert.equal(byUser.length, 2);
    const byAction = (await admin.get('/users/audit/?accion=login_failed')).body;
    assert.equal(rowsIn(byAction).length, 1);
    assert.match(byAction, /Inicio de sesión fallido/);
    assert.equal(rowsIn((await admin.get('/users/audit/?entidad=ingreso&registro=77')).body).length, 1);
    assert.equal(rowsIn((await admin.get('/users/audit/?entidad=patient&registro=77')).body).length, 0);
    const nov1 = (await admin.get(`/users/audit/?paciente=${PATIENT}&desde=2026-11-01&hasta=2026-11-01`)).body;
    assert.equal(rowsIn(nov1).length, 1);
    assert.match(nov1, /Estado del ciclo cambiado/);
    const oct31 = (await admin.get(`/users/audit/?paciente=${PATIENT}&hasta=2026-10-31`)).body;
    assert.equal(rowsIn(oct31).length, 1);
    assert.match(oct31, /Paciente modificado/);
  });

  test('bad filter values: a clear message, the filter ignored, the page still renders', async () => {
    const res = await admin.get(`/users/audit/?paciente=${PATIENT}&desde=2026-02-30&hasta=ayer&usuario=abc`);
    assert.equal(res.status, 200);
    const texts = messagesIn(res.body).map((m) => m.text);
    assert.ok(texts.some((t) => t.includes('La fecha inicial «2026-02-30» no es válida')), texts.join('\n'));
    assert.ok(texts.some((t) => t.includes('La fecha final «ayer» no es válida')));
    assert.ok(texts.some((t) => t.includes('El usuario «abc» no es un número válido')));
    assert.equal(rowsIn(res.body).length, 2);
    const reversed = await admin.get('/users/audit/?desde=2026-11-05&hasta=2026-11-01');
    assert.equal(reversed.status, 200);
    assert.ok(messagesIn(reversed.body).some((m) => m.text.includes('posterior a la final')));
    const repeated = await admin.get('/users/audit/?accion=login&accion=logout&accion=%3Cscript%3E');
    assert.equal(repeated.status, 200);
    const odd = await admin.get('/users/audit/?accion=%3Cscript%3E&entidad=DROP%20TABLE');
    assert.equal(odd.status, 200);
    assert.equal(messagesIn(odd.body).filter((m) => m.level === 'warning').length, 2);
  });

  test('pages of 50, older entries through a cursor that keeps the filters', async () => {
    const patient = 515151;
    for (let i = 0; i < 55; i++) {
      await recordAudit(ctx.db, { at: new Date(Date.UTC(2026, 10, 10, 12, i)), actor: null, action: 'patient.view', entityType: 'patient', entityId: patient, patientId: patient });
    }
    const first = await admin.get(`/users/audit/?paciente=${patient}`);
    const firstIds = rowsIn(first.body);
    assert.equal(firstIds.length, 50);
    const next = /href="([^"]+)" rel="next"/.exec(first.body)?.[1];
    assert.ok(next);
    const second = await admin.get(decodeEntities(next));
    const secondIds = rowsIn(second.body);
    assert.equal(secondIds.length, 5);
    assert.equal(new Set([...firstIds, ...secondIds]).size, 55);
    assert.ok(Math.min(...firstIds) > Math.max(...secondIds));
    assert.doesNotMatch(second.body, /rel="next"/);
    assert.match(second.body, /Más recientes/);
  });

  test('the application offers no way to edit or delete entries', async () => {
    const before = await ctx.db.selectFrom('audit_log').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const url of ['/users/audit/', '/users/audit/1/', '/users/audit/1/delete/']) {
      const res = await admin.post(url, {});
      assert.ok([404, 405].includes(res.status), `${url} ${res.status}`);
    }
    const after = await ctx.db.selectFrom('audit_log').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });
});
