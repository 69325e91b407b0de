import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPatient } from '../../src/patients/patient.fixtures.js';
import { loggedInPage, startBrowserTest, type BrowserContext } from './harness.js';

let b: BrowserContext;
before(async () => {
  b = await startBrowserTest();
});
after(async () => {
  await b?.close();
});

test('a person suspends, reactivates and terminates a cycle from the follow page, then starts a new one', async () => {
  const patient = await createPatient(b.ctx.db, { nombre: 'Ramón', apellido: 'Seguimiento' }, { fechaInicio: '2026-05-04' });
  const { page } = await loggedInPage(b);

  await page.goto('/dashboard/');
  await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Seguimiento', exact: true }).click();
  await page.getByRole('searchbox').fill('ramon seguimiento');
  await page.getByRole('button', { name: 'Buscar' }).click();
  await page.waitForURL('**/patients/follow?query_search=ramon+seguimiento');
  const card = page.locator(`[data-patient-id="${patient.id}"]`);
  const cycle = card.locator(`[data-ingreso-id="${patient.ingresoId}"]`);
  assert.equal(await cycle.getAttribute('data-estado'), 'ACTIVO');

  await cycle.getByLabel('Motivo de la suspensión (opcional)').fill('Viaje');
  await cycle.getByRole('button', { name: 'Suspender' }).click();
  await page.waitForURL('**/patients/follow?query_search=ramon+seguimiento');
  assert.equal(await page.getByRole('status').first().textContent(), 'El ciclo de Ramón quedó suspendido.');
  assert.equal(await cycle.getAttribute('data-estado'), 'SUSPENDIDO');

  await cycle.getByRole('button', { name: 'Reactivar' }).click();
  await page.waitForURL('**/patients/follow?query_search=ramon+seguimiento');
  assert.equal(await page.getByRole('status').first().textContent(), 'El ciclo de Ramón fue reactivado.');
  assert.equal(await cycle.getAttribute('data-estado'), 'ACTIVO');

  // Terminating asks first; dismissing the question sends nothing.
  const questions: string[] = [];
  let accept = false;
  page.on('dialog', (dialog) => {
    questions.push(dialog.message());
    void (accept ? dialog.accept() : dialog.dismiss());
  });
  await cycle.getByText('Terminar…').click();
  await cycle.getByLabel('Fecha de terminación').fill('2026-11-20');
  await cycle.getByLabel('Motivo', { exact: true }).fill('Cumplió los objetivos');
  await cycle.getByRole('button', { name: 'Terminar ciclo' }).click();
  assert.equal(questions.length, 1);
  assert.match(questions[0]!, /^¿Terminar el ciclo de Ramón\?/);
  assert.equal(await cycle.getAttribute('data-estado'), 'ACTIVO');

  accept = true;
  await cycle.getByRole('button', { name: 'Terminar ciclo' }).click();
  await page.waitForURL('**/patients/follow?query_search=ramon+seguimiento');
  assert.equal(await page.getByRole('status').first().textContent(), 'El ciclo de Ramón ha finalizado y fue archivado ✅');
  assert.equal(await cycle.getAttribute('data-estado'), 'TERMINADO');

  await card.getByLabel('Fecha de inicio del nuevo ingreso').fill('2026-11-22');
  await card.getByRole('button', { name: 'Nuevo ingreso' }).click();
  await page.waitForURL('**/patients/follow?query_search=ramon+seguimiento');
  assert.equal(await page.getByRole('status').first().textContent(), 'Se inició un nuevo ciclo para Ramón.');
  const estados = await card.locator('[data-ingreso-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-estado')));
  assert.deepEqual(estados, ['ACTIVO', 'TERMINADO']);

  await card.locator(`[data-ingreso-id="${patient.ingresoId}"]`).getByText(/Historial de estados/).click();
  assert.ok(await cycle.getByRole('cell', { name: 'Cumplió los objetivos' }).isVisible());
  if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT, fullPage: true });
});
