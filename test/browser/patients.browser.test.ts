import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loggedInPage, startBrowserTest, type BrowserContext } from './harness.js';

let b: BrowserContext;
before(async () => {
  b = await startBrowserTest();
});
after(async () => {
  await b?.close();
});

test('a person creates a patient, finds them searching without accents, and filters by program month', async () => {
  const { page } = await loggedInPage(b);
  await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Pacientes' }).click();
  await page.getByRole('link', { name: 'Nuevo paciente' }).click();
  await page.waitForURL('**/patients/create/');

  // A first try with a mistake keeps everything typed and says what is wrong beside the field.
  await page.getByLabel(/^Nombre/).fill('José Ángel');
  await page.getByLabel('Apellido').fill('Pérez Muñoz');
  await page.getByLabel('Tipo de documento').selectOption('CC');
  await page.getByLabel('Número de documento').fill('1098765432');
  await page.getByLabel('Fecha de nacimiento').fill('1961-03-14');
  await page.getByLabel('Género').selectOption('M');
  await page.getByLabel('Estado civil').selectOption('UNIÓN LIBRE');
  await page.getByLabel('Teléfono').fill('6076543210');
  await page.getByLabel('Celular').fill('3001234567');
  // The city list follows the department chosen (narrowed by the page's script).
  await page.getByLabel('Departamento').selectOption('ANTIOQUIA');
  await page.getByLabel('Ciudad o municipio').locator('option[value="MEDELLÍN"]').waitFor({ state: 'attached' });
  const cities = await page.getByLabel('Ciudad o municipio').locator('option').allTextContents();
  assert.ok(cities.includes('MEDELLÍN'));
  assert.ok(!cities.includes('BUCARAMANGA'));
  await page.getByLabel('Ciudad o municipio').selectOption('MEDELLÍN');
  await page.getByLabel('Zona').selectOption('URBANA');
  await page.getByLabel('Estrato').selectOption('3');
  await page.getByLabel('Peso (kg)').fill('82,5');
  await page.getByLabel('Altura (m)').fill('1,7a');
  await page.getByLabel('Médico remitente').fill('Dra. Camila Ríos');
  await page.getByLabel('Especialidad').fill('Neumología');
  await page.getByLabel(/^Programa/).selectOption('PROGRAMA AOS');
  await page.getByLabel('Entidad de salud').selectOption('ENTITY_A');
  await page.getByLabel('Fecha de inicio del programa').fill('2026-05-10');
  await page.getByRole('button', { name: 'Guardar paciente' }).click();

  const altura = page.getByLabel('Altura (m)');
  assert.equal(await altura.getAttribute('aria-invalid'), 'true');
  assert.equal(await page.getByLabel(/^Nombre/).inputValue(), 'José Ángel');
  assert.equal(await page.getByLabel('Ciudad o municipio').inputValue(), 'MEDELLÍN');

  await altura.fill('1,75');
  await page.getByRole('button', { name: 'Guardar paciente' }).click();
  await page.waitForURL('**/patients/');
  assert.equal(await page.locator('[data-message-level="success"]').count(), 1);

  // Search ignoring accents and case, by the full name.
  await page.getByLabel('Buscar').fill('jose angel perez');
  await page.getByRole('button', { name: 'Buscar' }).click();
  const rows = page.locator('[data-patient-id]');
  assert.equal(await rows.count(), 1);
  assert.match((await rows.first().textContent()) ?? '', /Pérez Muñoz/);

  // Started 2026-05-10, today 2026-11-22 in Bogotá: program month 7.
  await page.getByLabel('Buscar').fill('');
  await page.getByLabel('Mes del programa').selectOption('7');
  await page.getByRole('button', { name: 'Buscar' }).click();
  assert.ok(page.url().includes('mes_filtro=7'));
  assert.equal(await page.locator('[data-patient-id]').count(), 1);
  await page.getByLabel('Mes del programa').selectOption('6');
  await page.getByRole('button', { name: 'Buscar' }).click();
  assert.equal(await page.locator('[data-patient-id]').count(), 0);

  // The record shows what was entered, formatted, with age and BMI.
  await page.getByLabel('Mes del programa').selectOption('');
  await page.getByRole('button', { name: 'Buscar' }).click();
  await page.locator('[data-patient-id]').first().getByRole('link').first().click();
  const body = (await page.locator('main').textContent()) ?? '';
  assert.match(body, /José Ángel/);
  assert.match(body, /82,5/);
  assert.match(body, /65 años/);
  assert.match(body, /26,9/);
  await page.context().close();
});
