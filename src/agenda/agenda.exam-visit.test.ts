// Registering an exam offers the patient's visit booked that day (issue 28), over HTTP on both engines: preselected
// when it is the only one of the form's kind; saving the record marks it attended and links it, in the same commit;
// a visit that cannot be the one the record attends refuses the record beside the choice, nothing stored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, decodeEntities, ENGINE, loggedInClient, messagesIn, type TestClient, type TestContext } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { AGENDA_MSG } from './agenda.rules.js';

let ctx: TestContext;
let client: TestClient;
let userId: number;

before(async () => {
  ctx = await createTestContext(); // today: 2026-11-22, 10:00 in Bogotá
  const logged = await loggedInClient(ctx);
  client = logged.client;
  userId = logged.user.id;
});
after(async () => ctx.close());

const fieldError = (html: string, name: string) => {
  const m = new RegExp(`id="error_${name}">([^<]*)<`).exec(html);
  return m ? decodeEntities(m[1]!) : null;
};

async function patientWithPlan(nombre: string): Promise<number> {
  const p = await createPatient(ctx.db, { nombre }, { fechaInicio: null });
  assert.equal((await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: '2026-11-01', query_search: '', page: '' })).status, 302);
  return p.id;
}
async function book(patientId: number, tipo: string, hora: string, fecha = '2026-11-22'): Promise<number> {
  const res = await client.post('/agenda/citas/nueva/', { patient_id: String(patientId), tipo, fecha, hora, duracion_min: '30', profesional: String(userId), recurso: '' });
  assert.equal(res.status, 302, res.body.slice(0, 2000));
  const cita = await ctx.db.selectFrom('citas').select('id').where('paciente_id', '=', patientId).where('tipo', '=', tipo).where('hora', '=', hora).executeTakeFirstOrThrow();
  return cita.id;
}
const monitoreo = (patientId: number, fields: Record<string, string>) =>
  client.post(`/exams/${patientId}/monitoreo/`, { fecha: '2026-11-22', hora: '', tipo: 'DESCARGA_CPAP', iah: '', saturacion_minima: '', horas_uso_promedio: '5', porcentaje_noches_4h: '80', presion_cmh2o: '', fuga_lpm: '', observaciones: '', ...fields });
const visit = (id: number) => ctx.db.selectFrom('citas').select(['estado', 'exam_record_id']).where('id', '=', id).executeTakeFirstOrThrow();
const records = async (patientId: number) =>
  (await ctx.db.selectFrom('exam_records as e').innerJoin('ingresos as i', 'i.id', 'e.ingreso_id').select('e.id').where('i.paciente_id', '=', patientId).execute()).map((r) => r.id);

describe(`an exam registered attends the day's booked visit, on ${ENGINE}`, () => {
  test("the day's visit is offered in its kind's form, preselected; saving the record marks it attended and links it", async () => {
    const id = await patientWithPlan('Control');
    const cita = await book(id, 'CONTROL_CPAP', '11:00');
    const page = await client.get(`/exams/${id}/`);
    assert.match(page.body, /<select id="id_monitoreo_cita_id" name="cita_id"/);
    assert.match(page.body, new RegExp(`<option value="${cita}" selected`));
    assert.doesNotMatch(page.body, /id="id_psicologia_cita_id"/, 'a CPAP control is not offered to the psychology form');

    const res = await monitoreo(id, { cita_id: String(cita) });
    assert.equal(res.status, 302, res.body.slice(0, 2000));
    assert.match(messagesIn((await client.follow(res)).body)[0]!.text, /la cita quedó atendida/);
    const [record] = await records(id);
    assert.deepEqual(await visit(cita), { estado: 'ATENDIDA', exam_record_id: record });
    const audit = await ctx.db.selectFrom('audit_log').select('action').where('entity_type', '=', 'cita').where('entity_id', '=', cita).where('action', '=', 'cita.attend').execute();
    assert.equal(audit.length, 1);
    assert.doesNotMatch((await client.get(`/exams/${id}/`)).body, /id="id_monitoreo_cita_id"/, 'an attended visit is no longer offered');
    // Not choosing a visit keeps the record alone.
    const cita2 = await book(id, 'CONTROL_CPAP', '15:00');
    assert.equal((await monitoreo(id, { cita_id: '' })).status, 302);
    assert.deepEqual(await visit(cita2), { estado: 'AGENDADA', exam_record_id: null });
  });

  test('two visits of the kind: none preselected; a visit of another tipo, day or patient refuses the record beside the choice', async () => {
    const id = await patientWithPlan('Dos');
    const other = await patientWithPlan('Otro');
    const psg = await book(id, 'PSG_BASAL', '08:00');
    const control = await book(id, 'CONTROL_CPAP', '12:00');
    const tomorrow = await book(id, 'CONTROL_CPAP', '09:00', '2026-11-23');
    const foreign = await book(other, 'CONTROL_CPAP', '13:00');
    const page = await client.get(`/exams/${id}/`);
    assert.match(page.body, new RegExp(`<option value="${psg}">`));
    assert.match(page.body, new RegExp(`<option value="${control}">`));
    assert.doesNotMatch(page.body, new RegExp(`<option value="${tomorrow}"`));

    for (const cita of [psg, tomorrow, foreign, 99999999]) {
      const res = await monitoreo(id, { cita_id: String(cita) });
      assert.equal(res.status, 200, String(cita)); // the clinical view again, with the form as posted
      assert.equal(fieldError(res.body, 'monitoreo_cita_id'), AGENDA_MSG.visitNotOffered);
    }
    const bad = await monitoreo(id, { cita_id: 'abc' });
    assert.equal(bad.status, 200);
    assert.equal(fieldError(bad.body, "monitoreo_cita_id"), AGENDA_MSG.visitNotOffered);
    assert.deepEqual(await records(id), [], 'no record stored with a refused visit');
    for (const c of [psg, tomorrow, foreign]) assert.equal((await visit(c)).estado, 'AGENDADA');

    // A polysomnography record attends the polysomnography visit.
    const ok = await monitoreo(id, { tipo: 'POLISOMNOGRAFIA', iah: '22', horas_uso_promedio: '', porcentaje_noches_4h: '', cita_id: String(psg) });
    assert.equal(ok.status, 302, ok.body.slice(0, 2000));
    assert.equal((await visit(psg)).estado, 'ATENDIDA');
    assert.equal((await visit(control)).estado, 'AGENDADA');
  });
});
