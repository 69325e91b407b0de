// Contact consent, tomorrow's reminders and the calendar feed over HTTP (both engines).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import ICAL from 'ical.js';
import { createTestContext, decodeEntities, ENGINE, loggedInClient, messagesIn, TestClient, type TestContext } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { whatsappLink } from './agenda.rules.js';

let ctx: TestContext;
let client: TestClient;
let userId: number;

before(async () => {
  ctx = await createTestContext(); // today: 2026-11-22
  const logged = await loggedInClient(ctx);
  client = logged.client;
  userId = logged.user.id;
});
after(async () => ctx.close());

const book = (patientId: number, hora: string, fecha = '2026-11-23') =>
  client.post('/agenda/citas/nueva/', { patient_id: String(patientId), tipo: 'CONTROL_CPAP', fecha, hora, duracion_min: '30', profesional: String(userId), recurso: '' });

describe(`contact consent, reminders and the calendar feed on ${ENGINE}`, () => {
  test('the WhatsApp link only for a Colombian mobile number', () => {
    assert.equal(whatsappLink('300 123 4567', 'Hola a.m.'), 'https://wa.me/573001234567?text=Hola%20a.m.');
    assert.equal(whatsappLink('6071234567', 'x'), null);
  });

  test('consent given, audited, withdrawn; a second live consent by the same channel refused', async () => {
    const p = await createPatient(ctx.db, { nombre: 'Consiente' });
    const given = await client.post(`/agenda/consentimiento/${p.id}/`, { canal: 'WHATSAPP', otorgado_el: '2026-11-20' });
    assert.equal(given.status, 302);
    const twice = await client.post(`/agenda/consentimiento/${p.id}/`, { canal: 'WHATSAPP', otorgado_el: '2026-11-21' });
    assert.equal(twice.status, 422);
    assert.match(decodeEntities(twice.body), /Ya hay un consentimiento vigente por WhatsApp/);
    const future = await client.post(`/agenda/consentimiento/${p.id}/`, { canal: 'SMS', otorgado_el: '2026-12-01' });
    assert.equal(future.status, 422);
    const bad = await client.post(`/agenda/consentimiento/${p.id}/`, { canal: 'PALOMA', otorgado_el: '2026-11-20' });
    assert.equal(bad.status, 422);
    const row = await ctx.db.selectFrom('contacto_consentimientos').selectAll().where('paciente_id', '=', p.id).executeTakeFirstOrThrow();
    const early = await client.post(`/agenda/consentimiento/retirar/${row.id}/`, { retirado_el: '2026-11-19' });
    assert.equal(early.status, 422);
    const withdrawn = await client.post(`/agenda/consentimiento/retirar/${row.id}/`, { retirado_el: '2026-11-22' });
    assert.equal(withdrawn.status, 302);
    const actions = await ctx.db.selectFrom('audit_log').select('action').where('patient_id', '=', p.id).where('action', 'like', 'patient.consent%').orderBy('id').execute();
    assert.deepEqual(actions.map((a) => a.action), ['patient.consent_give', 'patient.consent_withdraw']);
  });

  test('tomorrow reminders: the text in es-CO, WhatsApp only with its consent; recordado marks who', async () => {
    const withWa = await createPatient(ctx.db, { nombre: 'Wilma', celular: '3001112233' });
    const smsOnly = await createPatient(ctx.db, { nombre: 'Samuel', celular: '3004445566' });
    const none = await createPatient(ctx.db, { nombre: 'Nadia', celular: '3007778899' });
    await client.post(`/agenda/consentimiento/${withWa.id}/`, { canal: 'WHATSAPP', otorgado_el: '2026-11-01' });
    await client.post(`/agenda/consentimiento/${smsOnly.id}/`, { canal: 'SMS', otorgado_el: '2026-11-01' });
    assert.equal((await book(withWa.id, '08:00')).status, 302);
    assert.equal((await book(smsOnly.id, '09:00')).status, 302);
    assert.equal((await book(none.id, '10:00')).status, 302);
    const page = await client.get('/agenda/recordatorios/');
    assert.equal(page.status, 200);
    const html = decodeEntities(page.body);
    assert.match(html, /Hola Wilma, le recordamos su cita de Control de CPAP el lunes 23 de noviembre de 2026 a las 8:00 a\. m\. en Clínica del sueño Somno\. Por favor traiga:/);
    const links = [...page.body.matchAll(/href="(https:\/\/wa\.me\/[^"]+)"/g)].map((m) => decodeEntities(m[1]!));
    assert.equal(links.length, 1);
    assert.ok(links[0]!.startsWith('https://wa.me/573001112233?text=Hola%20Wilma'));
    assert.doesNotMatch(html, /Hola Nadia/);
    assert.doesNotMatch(html, /wa\.me\/573004445566/);

    const cita = await ctx.db.selectFrom('citas').select('id').where('paciente_id', '=', none.id).where('estado', '=', 'AGENDADA').executeTakeFirstOrThrow();
    const refused = await client.post(`/agenda/citas/${cita.id}/recordado/`, { canal: 'WHATSAPP' });
    assert.match(messagesIn((await client.follow(refused)).body)[0]!.text, /no autorizó/);
    const waCita = await ctx.db.selectFrom('citas').select('id').where('paciente_id', '=', withWa.id).where('estado', '=', 'AGENDADA').executeTakeFirstOrThrow();
    await client.post(`/agenda/citas/${waCita.id}/recordado/`, { canal: 'WHATSAPP' });
    const marked = await ctx.db.selectFrom('citas').select(['recordado_at', 'recordado_por']).where('id', '=', waCita.id).executeTakeFirstOrThrow();
    assert.equal(marked.recordado_por, userId);
    assert.ok(marked.recordado_at);
  });

  test('the calendar feed parses, carries initials and kind only; a revoked address answers 404', async () => {
    const p = await createPatient(ctx.db, { nombre: 'Ana María', apellido: 'Pérez', documento: 'DOC987654' });
    assert.equal((await book(p.id, '14:00', '2026-11-24')).status, 302);
    const created = await client.post('/agenda/calendario/', {});
    assert.equal(created.status, 200);
    const url = /<code>https?:\/\/[^/]+(\/agenda\/ical\/[^<]+)<\/code>/.exec(created.body)?.[1];
    assert.ok(url);
    const anonymous = new TestClient(ctx.app);
    const feed = await anonymous.get(url);
    assert.equal(feed.status, 200);
    assert.match(String(feed.headers['content-type']), /text\/calendar/);
    const cal = new ICAL.Component(ICAL.parse(feed.body));
    const events = cal.getAllSubcomponents('vevent').map((e) => new ICAL.Event(e));
    const ev = events.find((e) => e.summary.includes('A. M. P.'));
    assert.ok(ev, feed.body);
    assert.equal(ev.summary, 'Control de CPAP · A. M. P.');
    assert.equal(ev.startDate.toJSDate().toISOString(), '2026-11-24T19:00:00.000Z'); // 14:00 in Bogotá
    assert.doesNotMatch(feed.body, /DOC987654|Pérez|Ana María|G47/);
    const feedRow = await ctx.db.selectFrom('agenda_feeds').select('id').where('user_id', '=', userId).orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.equal((await client.post(`/agenda/calendario/${feedRow.id}/revocar/`, {})).status, 302);
    assert.equal((await anonymous.get(url)).status, 404);
    assert.equal((await anonymous.get('/agenda/ical/no-existe-este-token-1234.ics')).status, 404);
  });
});
