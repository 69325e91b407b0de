// The agenda's administration over HTTP (both engines): plan editions, the clinic's hours and place, the resources.
// Administrators only; bad input is refused beside its field with nothing stored; every change is audited.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, decodeEntities, ENGINE, loggedInClient, messagesIn, type TestClient, type TestContext } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { ADMIN_MSG } from './agenda.admin.rules.js';
import { AGENDA_MSG } from './agenda.rules.js';

let ctx: TestContext;
let admin: TestClient;
let staff: TestClient;
let staffId: number;

before(async () => {
  ctx = await createTestContext(); // today: 2026-11-22, 10:00 in Bogotá
  admin = (await loggedInClient(ctx, { isAdmin: true })).client;
  const logged = await loggedInClient(ctx);
  staff = logged.client;
  staffId = logged.user.id;
});
after(async () => ctx.close());

const fieldError = (html: string, name: string) => {
  const m = new RegExp(`id="error_${name}">([^<]*)<`).exec(html);
  return m ? decodeEntities(m[1]!) : null;
};

/** A patient whose cycle starting `fechaInicio` is opened through the follow page, so its plan is made. */
async function patientWithPlan(fechaInicio: string, overrides: Record<string, string> = {}): Promise<number> {
  const p = await createPatient(ctx.db, overrides, { fechaInicio: null });
  const res = await staff.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: fechaInicio, query_search: '', page: '' });
  assert.equal(res.status, 302);
  return p.id;
}
const visitsOf = async (patientId: number) =>
  (await ctx.db.selectFrom('citas').select(['tipo', 'vence_el']).where('paciente_id', '=', patientId).orderBy('vence_el').orderBy('tipo').execute()).map((c) => `${c.tipo}@${c.vence_el}`);
const auditCount = async (action: string) => (await ctx.db.selectFrom('audit_log').select('id').where('action', '=', action).execute()).length;

const edition = (fields: Record<string, string>) =>
  admin.post('/users/agenda/planes/', {
    programa: 'PROGRAMA AOS',
    vigente_desde: '2026-11-22',
    tipo_1: 'CONSULTA_INGRESO',
    dia_1: '0',
    repeticiones_1: '1',
    intervalo_1: '0',
    tipo_2: 'CONTROL_CPAP',
    dia_2: '30',
    repeticiones_2: '3',
    intervalo_2: '14',
    ...fields,
  });

describe(`agenda administration on ${ENGINE}`, () => {
  test('only administrators: 403 for everyone else, on every page and form', async () => {
    for (const url of ['/users/agenda/', '/users/agenda/planes/']) {
      assert.equal((await staff.get(url)).status, 403, url);
      assert.equal((await admin.get(url)).status, 200, url);
    }
    for (const url of ['/users/agenda/', '/users/agenda/planes/', '/users/agenda/recursos/', '/users/agenda/recursos/1/']) {
      assert.equal((await staff.post(url, { nombre: 'X', clase: 'SALA', lugar: 'X', hora_apertura: '00:00', hora_cierre: '23:59' })).status, 403, url);
    }
    const users = await admin.get('/users/');
    assert.match(users.body, /href="\/users\/agenda\/"/);
  });

  test('the plans: each program with its editions and visits; a new edition applies to cycles from its date, never to planned ones', async () => {
    const page = await admin.get('/users/agenda/planes/');
    assert.match(page.body, /data-programa="PROGRAMA AOS"/);
    assert.match(page.body, /data-programa="PROGRAMA INSOMNIO"/);
    assert.match(decodeEntities(page.body), /Sesión de TCC-I<\/td>[\s\S]*?8 veces, cada 14 días/);
    // The form starts from the program's latest edition.
    assert.match(page.body, /<option value="CONTROL_CPAP" selected/);
    const insomnio = await admin.get('/users/agenda/planes/?programa=PROGRAMA+INSOMNIO');
    assert.match(insomnio.body, /<option value="SESION_TCC_I" selected/);

    const earlier = await patientWithPlan('2026-11-20');
    const planned = await visitsOf(earlier);
    assert.ok(planned.includes('PSG_BASAL@2026-12-04'));

    const before = await auditCount('agenda.plan_edition');
    const res = await edition({});
    assert.equal(res.status, 302, res.body.slice(0, 3000));
    const listed = await admin.follow(res);
    assert.match(messagesIn(listed.body)[0]!.text, /Nueva edición del plan de PROGRAMA AOS publicada/);
    assert.match(listed.body, /data-estado="vigente"/);
    assert.match(listed.body, /3 veces, cada 14 días/);
    assert.equal(await auditCount('agenda.plan_edition'), before + 1);

    // Decision 0101: a cycle started before keeps its plan; one starting on the new edition's date follows it.
    assert.deepEqual(await visitsOf(earlier), planned);
    const later = await patientWithPlan('2026-11-22');
    assert.deepEqual(await visitsOf(later), ['CONSULTA_INGRESO@2026-11-22', 'CONTROL_CPAP@2026-12-22', 'CONTROL_CPAP@2027-01-05', 'CONTROL_CPAP@2027-01-19']);
  });

  test('a bad edition: each message beside its field, nothing stored', async () => {
    const count = async () => (await ctx.db.selectFrom('agenda_planes').select('id').execute()).length;
    const n = await count();
    const cases: [Record<string, string>, string, string][] = [
      [{ programa: 'PROGRAMA X' }, 'programa', ADMIN_MSG.programa],
      [{ programa: 'PROGRAMA INSOMNIO', vigente_desde: '2026-11-21' }, 'vigente_desde', ADMIN_MSG.pastEdition],
      [{ programa: 'PROGRAMA INSOMNIO', vigente_desde: '2026-02-30' }, 'vigente_desde', 'Ingrese la fecha como AAAA-MM-DD.'],
      [{ tipo_2: 'NO_EXISTE' }, 'tipo_2', ADMIN_MSG.tipo],
      [{ tipo_2: '<b>' }, 'tipo_2', ADMIN_MSG.tipo],
      [{ dia_2: '' }, 'dia_2', ADMIN_MSG.lineIncomplete],
      [{ dia_2: '-3' }, 'dia_2', ADMIN_MSG.dia],
      [{ repeticiones_2: '99' }, 'repeticiones_2', ADMIN_MSG.repeticiones],
      [{ intervalo_2: '0' }, 'intervalo_2', ADMIN_MSG.intervaloNeeded],
      [{ tipo_3: '', dia_3: '5' }, 'tipo_3', ADMIN_MSG.lineIncomplete],
      [{ tipo_1: '', dia_1: '', repeticiones_1: '', intervalo_1: '', tipo_2: '', dia_2: '', repeticiones_2: '', intervalo_2: '' }, 'tipo_1', ADMIN_MSG.noLines],
    ];
    for (const [fields, name, message] of cases) {
      const res = await edition({ vigente_desde: '2026-12-01', ...fields });
      assert.equal(res.status, 422, JSON.stringify(fields));
      assert.equal(fieldError(res.body, name), message, JSON.stringify(fields));
      // The form comes back as typed.
      if (fields.programa === undefined) assert.match(res.body, /value="2026-12-01"/);
    }
    // AOS already has an edition from today (the test above, or the seed's 2000-01-01 when run alone).
    const latest = await ctx.db.selectFrom('agenda_planes').select('vigente_desde').where('programa', '=', 'PROGRAMA AOS').orderBy('vigente_desde', 'desc').executeTakeFirstOrThrow();
    const same = await edition({ vigente_desde: latest.vigente_desde < '2026-11-22' ? '2026-11-22' : latest.vigente_desde });
    if (latest.vigente_desde >= '2026-11-22') {
      assert.equal(same.status, 422);
      assert.equal(fieldError(same.body, 'vigente_desde'), ADMIN_MSG.notAfterLatest(latest.vigente_desde));
    }
    assert.equal((await edition({ extra: '1' })).status, 422);
    assert.equal(await count(), n + (latest.vigente_desde < '2026-11-22' ? 1 : 0));
  });

  test('hours and place: a booking outside the new hours is refused; reminders say the new place; bad input changes nothing', async () => {
    const saved = await admin.post('/users/agenda/', { hora_apertura: '08:00', hora_cierre: '12:00', lugar: 'Sede Cabecera, consultorio 3' });
    assert.equal(saved.status, 302);
    assert.equal(await auditCount('agenda.settings'), 1);
    const page = await admin.follow(saved);
    assert.match(page.body, /value="Sede Cabecera, consultorio 3"/);

    const id = await patientWithPlan('2026-11-20');
    const book = (hora: string) =>
      staff.post('/agenda/citas/nueva/', { patient_id: String(id), tipo: 'CONSULTA_INGRESO', fecha: '2026-11-23', hora, duracion_min: '30', profesional: String(staffId), recurso: '' });
    const early = await book('07:30');
    assert.equal(early.status, 422);
    assert.equal(fieldError(early.body, 'hora'), AGENDA_MSG.outsideHours('08:00', '12:00'));
    const late = await book('11:45');
    assert.equal(fieldError(late.body, 'hora'), AGENDA_MSG.outsideHours('08:00', '12:00'));
    assert.equal((await book('08:00')).status, 302);
    await staff.post(`/agenda/consentimiento/${id}/`, { canal: 'WHATSAPP', otorgado_el: '2026-11-22' });
    const reminders = await staff.get('/agenda/recordatorios/?fecha=2026-11-23');
    assert.match(decodeEntities(reminders.body), /en Sede Cabecera, consultorio 3\./);

    const cases: [Record<string, string>, string, string][] = [
      [{ hora_apertura: '8', hora_cierre: '12:00', lugar: 'X' }, 'hora_apertura', ADMIN_MSG.hora],
      [{ hora_apertura: '12:00', hora_cierre: '08:00', lugar: 'X' }, 'hora_cierre', ADMIN_MSG.closesBeforeOpens],
      [{ hora_apertura: '08:00', hora_cierre: '25:00', lugar: 'X' }, 'hora_cierre', ADMIN_MSG.hora],
      [{ hora_apertura: '08:00', hora_cierre: '12:00', lugar: '   ' }, 'lugar', ADMIN_MSG.lugar],
    ];
    for (const [fields, name, message] of cases) {
      const res = await admin.post('/users/agenda/', fields);
      assert.equal(res.status, 422, JSON.stringify(fields));
      assert.equal(fieldError(res.body, name), message);
    }
    const row = await ctx.db.selectFrom('agenda_ajustes').selectAll().executeTakeFirstOrThrow();
    assert.deepEqual(row, { id: 1, hora_apertura: '08:00', hora_cierre: '12:00', lugar: 'Sede Cabecera, consultorio 3' });
    assert.equal(await auditCount('agenda.settings'), 1);
    await admin.post('/users/agenda/', { hora_apertura: '07:00', hora_cierre: '19:00', lugar: 'Sede Cabecera, consultorio 3' });
  });

  test('resources: added, renamed, deactivated (not offered for new bookings; its visits keep it), names unique', async () => {
    const added = await admin.post('/users/agenda/recursos/', { nombre: 'Polígrafo 2', clase: 'POLIGRAFO' });
    assert.equal(added.status, 302);
    const recurso = await ctx.db.selectFrom('agenda_recursos').selectAll().where('nombre', '=', 'Polígrafo 2').executeTakeFirstOrThrow();
    assert.equal(recurso.activo, 1);
    const dup = await admin.post('/users/agenda/recursos/', { nombre: 'Polígrafo 2', clase: 'SALA' });
    assert.equal(dup.status, 422);
    assert.equal(fieldError(dup.body, 'nuevo_nombre'), ADMIN_MSG.nombreTaken);
    assert.equal(fieldError((await admin.post('/users/agenda/recursos/', { nombre: 'Otro', clase: 'NAVE' })).body, 'nuevo_clase'), ADMIN_MSG.clase);

    const id = await patientWithPlan('2026-11-20');
    const book = (hora: string) =>
      staff.post('/agenda/citas/nueva/', { patient_id: String(id), tipo: 'PSG_BASAL', fecha: '2026-11-24', hora, duracion_min: '60', profesional: String(staffId), recurso: String(recurso.id) });
    assert.equal((await book('09:00')).status, 302);
    const cita = await ctx.db.selectFrom('citas').select('id').where('paciente_id', '=', id).where('recurso_id', '=', recurso.id).executeTakeFirstOrThrow();

    const renamed = await admin.post(`/users/agenda/recursos/${recurso.id}/`, { nombre: 'Polígrafo portátil 2', activo: '1' });
    assert.equal(renamed.status, 302);
    assert.match(messagesIn((await admin.follow(renamed)).body)[0]!.text, /Recurso «Polígrafo portátil 2» guardado\./);
    const off = await admin.post(`/users/agenda/recursos/${recurso.id}/`, { nombre: 'Polígrafo portátil 2' });
    assert.equal(off.status, 302);
    assert.match(messagesIn((await admin.follow(off)).body)[0]!.text, /desactivado/);
    const form = await staff.get(`/agenda/citas/nueva/?patient_id=${id}`);
    assert.doesNotMatch(form.body, new RegExp(`<option value="${recurso.id}"`));
    const refused = await book('14:00');
    assert.equal(refused.status, 422);
    assert.equal(fieldError(refused.body, 'recurso'), AGENDA_MSG.unknownRecurso);
    const visit = await staff.get(`/agenda/citas/${cita.id}/`);
    assert.match(decodeEntities(visit.body), /Polígrafo portátil 2/);
    assert.equal(await auditCount('agenda.resource_create'), 1);
    assert.equal(await auditCount('agenda.resource_update'), 2);

    const taken = await admin.post(`/users/agenda/recursos/${recurso.id}/`, { nombre: 'Consultorio 1', activo: '1' });
    assert.equal(taken.status, 422);
    assert.equal(fieldError(taken.body, `r${recurso.id}_nombre`), ADMIN_MSG.nombreTaken);
    assert.equal((await admin.post('/users/agenda/recursos/99999/', { nombre: 'X', activo: '1' })).status, 404);
    assert.equal((await admin.post('/users/agenda/recursos/abc/', { nombre: 'X' })).status, 404);
    assert.equal((await admin.post(`/users/agenda/recursos/${recurso.id}/`, { nombre: '' })).status, 422);
  });

  test('no 500 on nonsense: repeated, unknown, control characters, absurd lengths and ids answer 302, 404 or 422', async () => {
    const before = await ctx.db.selectFrom('agenda_ajustes').selectAll().executeTakeFirstOrThrow();
    const posts: [string, Record<string, string | string[]>][] = [
      ['/users/agenda/', { hora_apertura: ['07:00', '08:00'], hora_cierre: '19:00', lugar: 'X' }],
      ['/users/agenda/', { hora_apertura: '07:00', hora_cierre: '19:00', lugar: 'a\u0000b' }],
      ['/users/agenda/', { hora_apertura: '07:00', hora_cierre: '19:00', lugar: 'x'.repeat(20_000) }],
      ['/users/agenda/planes/', { programa: ['PROGRAMA AOS', 'PROGRAMA AOS'], vigente_desde: '2026-12-01' }],
      ['/users/agenda/planes/', { programa: 'PROGRAMA AOS', vigente_desde: '9999-99-99', tipo_1: 'CONSULTA_INGRESO', dia_1: '99999999999' }],
      ['/users/agenda/planes/', { programa: 'PROGRAMA AOS', vigente_desde: '2026-12-01', tipo_13: 'CONSULTA_INGRESO', dia_13: '0' }],
      ['/users/agenda/recursos/', { nombre: 'x'.repeat(81), clase: 'SALA' }],
      ['/users/agenda/recursos/0/', { nombre: 'X', activo: '1' }],
      ['/users/agenda/recursos/99999999999/', { nombre: 'X', activo: '1' }],
    ];
    for (const [url, body] of posts) {
      const res = await admin.post(url, body);
      assert.ok([302, 404, 422].includes(res.status), `${url} ${JSON.stringify(body).slice(0, 120)}: ${res.status}`);
    }
    assert.equal((await admin.get('/users/agenda/planes/?programa=%00&programa=x')).status, 200);
    assert.deepEqual(await ctx.db.selectFrom('agenda_ajustes').selectAll().executeTakeFirstOrThrow(), before);
  });
});
