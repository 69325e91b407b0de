import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { loggedInPage, startBrowserTest, type BrowserContext } from './harness.js';

let b: BrowserContext;
before(async () => {
  b = await startBrowserTest();
});
after(async () => {
  await b?.close();
});

test('a person adds one record of each kind from the clinical view and sees them newest first', async () => {
  const patient = await createPatient(b.ctx.db, { nombre: 'Lucía', apellido: 'Navegador' }, { fechaInicio: '2026-09-10' });
  const { page } = await loggedInPage(b);

  await page.goto('/exams/');
  await page.getByRole('searchbox').fill('lucia navegador');
  await page.getByRole('button', { name: 'Buscar' }).click();
  await page.getByRole('link', { name: 'Navegador, Lucía' }).click();
  await page.waitForURL(`**/exams/${patient.id}/`);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Vista clínica: Lucía Navegador');

  const monitoreo = page.locator('form[data-exam-form="MONITOREO"]');
  await monitoreo.getByLabel('Fecha').fill('2026-11-10');
  await monitoreo.getByRole('combobox', { name: 'Tipo', exact: true }).selectOption('POLISOMNOGRAFIA');
  await monitoreo.getByLabel('IAH (eventos/h)').fill('32,4');
  await monitoreo.getByRole('button', { name: 'Guardar' }).click();
  await page.waitForURL(`**/exams/${patient.id}/`);
  assert.equal(await page.getByRole('status').first().textContent(), 'Registro de monitoreo guardado en el ingreso activo.');

  const psicologia = page.locator('form[data-exam-form="PSICOLOGIA"]');
  await psicologia.getByLabel('Tipo de sesión').selectOption('EVALUACION_INICIAL');
  await psicologia.getByLabel('ISI (índice de severidad del insomnio)').fill('18');
  await psicologia.getByRole('button', { name: 'Guardar' }).click();
  await page.waitForURL(`**/exams/${patient.id}/`);

  const otro = page.locator('form[data-exam-form="OTRO"]');
  await otro.getByLabel('Nombre del examen').fill('Espirometría');
  await otro.getByLabel('Resultado').fill('Sin alteraciones');
  await otro.getByRole('button', { name: 'Guardar' }).click();
  await page.waitForURL(`**/exams/${patient.id}/`);
  assert.equal(await page.getByRole('status').first().textContent(), 'Registro de otro examen guardado en el ingreso activo.');

  const kinds = await page.locator('article[data-exam-kind]').evaluateAll((els) => els.map((e) => e.getAttribute('data-exam-kind')));
  assert.deepEqual(kinds, ['OTRO', 'PSICOLOGIA', 'MONITOREO']);
  const ids = await page.locator('article[data-exam-kind]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-exam-id'))));
  assert.deepEqual([...ids].sort((x, y) => y - x), ids);
  assert.ok(await page.locator('article[data-exam-kind="MONITOREO"]').getByText('Severa').isVisible());
  assert.ok(await page.locator('article[data-exam-kind="PSICOLOGIA"]').getByText('Insomnio clínico moderado').isVisible());
  await page.context().close();
});
