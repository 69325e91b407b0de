// The coordinator's morning (issue 28): open the day, see who is due, book two visits, mark one attended and one
// missed, read tomorrow's reminders; every agenda page axe-clean and without sideways scroll on a desktop and a phone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { bookVisit, giveConsent, planCycleVisits } from '../../src/agenda/agenda.actions.js';
import { bookingForm, consentForm } from '../../src/agenda/agenda.schema.js';
import { inTransaction } from '../../src/platform/writes/transaction.js';
import { validateForm } from '../../src/web/form.js';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { createUser } from '../helpers.js';
import { axeProblems, loggedInPage, startBrowserTest, type BrowserContext } from './harness.js';

let b: BrowserContext;
let coordinator: { id: number; username: string; password: string };
const ids: Record<string, number> = {};

before(async () => {
  b = await startBrowserTest();
  const db = b.ctx.db;
  coordinator = await createUser(db);
  const actx = { db, clock: b.ctx.clock, timeZone: 'America/Bogota', actor: { id: coordinator.id, username: coordinator.username } };
  // Today is Sunday 2026-11-22 in Bogotá: two cycles opened today (their first consultation is due today) and a
  // patient booked for tomorrow, who agreed to WhatsApp reminders.
  for (const [key, nombre, apellido] of [['alba', 'Alba', 'Mañanera'], ['bruno', 'Bruno', 'Tardío'], ['celia', 'Celia', 'Recordada']] as const) {
    const p = await createPatient(db, { nombre, apellido, celular: '3001234567' }, { fechaInicio: '2026-11-22' });
    ids[key] = p.id;
    await inTransaction(db, (trx) => planCycleVisits(trx, { pacienteId: p.id, ingresoId: p.ingresoId!, fechaInicio: '2026-11-22', today: '2026-11-22', now: '2026-11-22T12:00:00.000Z', userId: null }));
  }
  assert.ok((await giveConsent(actx, ids.celia!, validateForm({ canal: 'WHATSAPP', otorgado_el: '2026-11-01' }, consentForm))).ok);
  const booked = await bookVisit(actx, validateForm({ patient_id: String(ids.celia), tipo: 'CONSULTA_INGRESO', fecha: '2026-11-23', hora: '08:00', duracion_min: '30', profesional: String(coordinator.id), recurso: '' }, bookingForm));
  assert.ok(booked.ok);
});
after(async () => {
  await b?.close();
});

async function problemsOf(page: Page): Promise<string[]> {
  const out: string[] = [];
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  if (scrollWidth > innerWidth) out.push(`scrolls sideways: ${scrollWidth} > ${innerWidth}`);
  out.push(...(await axeProblems(page)));
  return out;
}

const open = async (viewport: { width: number; height: number }) => (await loggedInPage(b, coordinator, { viewport, axe: true })).page;

test("the coordinator's morning, on a desktop", async () => {
  const page = await open({ width: 1366, height: 900 });
  const found: string[] = [];
  const check = async (label: string) => {
    await page.waitForLoadState('load');
    for (const p of await problemsOf(page)) found.push(`${label}: ${p}`);
  };

  await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Agenda', exact: true }).click();
  await page.waitForURL('**/agenda/');
  await check('day');
  await page.getByRole('link', { name: 'Pendientes', exact: true }).click();
  await check('worklists');
  for (const key of ['alba', 'bruno']) assert.equal(await page.locator(`tr[data-paciente="${ids[key]}"]`).count(), 1, `${key} is due`);

  const book = async (key: string, hora: string) => {
    await page.goto('/agenda/pendientes/');
    await page.locator(`tr[data-paciente="${ids[key]}"]`).getByRole('link', { name: 'Agendar' }).click();
    await page.waitForURL('**/agenda/citas/nueva/**');
    await page.getByLabel(/^Tipo de cita/).selectOption('CONSULTA_INGRESO');
    await page.getByLabel(/^Fecha/).fill('2026-11-22');
    await page.getByLabel(/^Hora/).fill(hora);
    await page.getByLabel(/^Duración/).fill('30');
    await page.getByRole('button', { name: 'Agendar' }).click();
    await page.waitForURL('**/agenda/?fecha=2026-11-22');
  };
  // A time before the clinic opens: the message beside the field, nothing booked.
  await page.goto(`/agenda/citas/nueva/?patient_id=${ids.alba}`);
  await page.getByLabel(/^Tipo de cita/).selectOption('CONSULTA_INGRESO');
  await page.getByLabel(/^Hora/).fill('06:00');
  await page.getByLabel(/^Duración/).fill('30');
  await page.getByRole('button', { name: 'Agendar' }).click();
  assert.match((await page.locator('#error_hora').textContent()) ?? '', /horario de la clínica/);
  await check('booking with errors');

  await book('alba', '15:00');
  await book('bruno', '16:00');
  await check('day with visits');
  const rows = page.locator('table.agenda-table tbody tr');
  assert.equal(await rows.count(), 2);
  assert.equal(await page.getByRole('link', { name: 'Alba Mañanera' }).getAttribute('href'), `/patients/${ids.alba}/`);

  await page.locator('tr', { hasText: 'Alba Mañanera' }).getByRole('link', { name: 'Consulta médica de ingreso' }).click();
  await check('visit');
  await page.getByRole('button', { name: 'Marcar atendida' }).click();
  await page.waitForURL('**/agenda/citas/*/');
  assert.equal(await page.locator('[data-estado]').getAttribute('data-estado'), 'ATENDIDA');
  await page.goto('/agenda/?fecha=2026-11-22');
  await page.locator('tr', { hasText: 'Bruno Tardío' }).getByRole('link', { name: 'Consulta médica de ingreso' }).click();
  await page.getByRole('button', { name: 'No asistió' }).click();
  await page.waitForURL('**/agenda/citas/*/');
  assert.equal(await page.locator('[data-estado]').getAttribute('data-estado'), 'NO_ASISTIO');

  await page.goto('/agenda/pendientes/?lista=inasistencias');
  assert.equal(await page.locator(`tr[data-paciente="${ids.bruno}"]`).count(), 1);

  await page.goto('/agenda/');
  await page.getByRole('link', { name: 'Recordatorios de mañana' }).click();
  await check('reminders');
  const text = (await page.locator('[data-reminder-text]').first().textContent())?.trim() ?? '';
  assert.match(text, /^Hola Celia, le recordamos su cita de Consulta médica de ingreso el lunes 23 de noviembre de 2026 a las 8:00 a\. m\./);
  const wa = await page.locator('[data-whatsapp]').getAttribute('href');
  assert.ok(wa?.startsWith('https://wa.me/573001234567?text=Hola%20Celia'));
  assert.deepEqual(found, []);
});

test('every agenda page on a phone (390 × 844): no sideways scroll, axe clean', async () => {
  const page = await open({ width: 390, height: 844 });
  const found: string[] = [];
  const cita = await b.ctx.db.selectFrom('citas').select('id').where('paciente_id', '=', ids.celia!).where('estado', '=', 'AGENDADA').executeTakeFirstOrThrow();
  for (const url of [
    '/agenda/?fecha=2026-11-22',
    '/agenda/?fecha=2026-11-23&vista=semana',
    '/agenda/pendientes/',
    '/agenda/pendientes/?lista=inasistencias',
    `/agenda/citas/nueva/?patient_id=${ids.alba}`,
    `/agenda/citas/${cita.id}/`,
    '/agenda/recordatorios/',
    `/agenda/consentimiento/${ids.celia}/`,
    '/agenda/calendario/',
  ]) {
    await page.goto(url);
    await page.waitForLoadState('load');
    for (const p of await problemsOf(page)) found.push(`${url}: ${p}`);
  }
  assert.deepEqual(found, []);
});

test("a whole clinic's day of more than a hundred visits, paged: the page links on a phone and a desktop", async () => {
  // 150 visits on Wednesday 2026-12-02, two minutes each from 07:00, straight into the table (the bookings' forms
  // are tested above): two pages of the whole clinic's day.
  const ingreso = await b.ctx.db.selectFrom('ingresos').select(['id', 'paciente_id']).where('paciente_id', '=', ids.alba!).executeTakeFirstOrThrow();
  const now = b.ctx.clock.now().toISOString();
  const base = Date.UTC(2026, 11, 2) / 60_000;
  for (let i = 0; i < 150; i++) {
    const min = 7 * 60 + 2 * i;
    await b.ctx.db
      .insertInto('citas')
      .values({
        paciente_id: ingreso.paciente_id,
        ingreso_id: ingreso.id,
        tipo: 'CONTROL_CPAP',
        estado: 'AGENDADA',
        plan_visita_id: null,
        vence_el: null,
        fecha: '2026-12-02',
        hora: `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`,
        duracion_min: 2,
        inicio_min: base + min,
        fin_min: base + min + 2,
        profesional_id: coordinator.id,
        recurso_id: null,
        exam_record_id: null,
        motivo: null,
        recordado_at: null,
        recordado_por: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  for (const viewport of [{ width: 390, height: 844 }, { width: 1366, height: 900 }]) {
    const page = await open(viewport);
    const found: string[] = [];
    await page.goto('/agenda/?fecha=2026-12-02');
    assert.match((await page.locator('.result-count').textContent()) ?? '', /150 citas · página 1 de 2/);
    await page.getByRole('link', { name: 'Siguiente ›' }).click();
    await page.waitForURL('**/agenda/?fecha=2026-12-02&pagina=2');
    assert.equal(await page.locator('tr[data-cita]').count(), 50);
    for (const p of await problemsOf(page)) found.push(`${viewport.width}: ${p}`);
    assert.deepEqual(found, []);
  }
});
