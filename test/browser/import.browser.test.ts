import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { IMPORT_FIELDS } from '../../src/imports/import.rules.js';
import { csvFile, patientRow } from '../imports/import-helpers.js';
import { loggedInPage, startBrowserTest, type BrowserContext } from './harness.js';

let b: BrowserContext;
before(async () => {
  b = await startBrowserTest();
});
after(async () => {
  await b?.close();
});

test('a person imports the clinic spreadsheet: a bad file first, then the preview with a row error, then the confirm', async () => {
  const { page } = await loggedInPage(b);
  await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Pacientes' }).click();
  await page.getByRole('link', { name: 'Importar desde hoja de cálculo' }).click();
  await page.waitForURL('**/patients/import/');

  // A file that is not a spreadsheet: a message, and the form again.
  await page.getByLabel(/^Archivo/).setInputFiles({ name: 'informe.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4') });
  await page.getByRole('button', { name: 'Revisar el archivo' }).click();
  await page.getByRole('alert').filter({ hasText: 'Solo se aceptan archivos .csv o .xlsx' }).waitFor();

  const file = csvFile([...IMPORT_FIELDS], [
    patientRow({ nombre: 'Gloria', apellido: 'Navegador', documento: '9001001', fecha_nacimiento: '03/04/1966' }),
    patientRow({ nombre: 'Mario', apellido: 'Navegador', documento: '9001002', zona: 'LUNAR' }),
  ]);
  await page.getByLabel(/^Archivo/).setInputFiles({ name: 'clinica.csv', mimeType: 'text/csv', buffer: file });
  await page.getByRole('button', { name: 'Revisar el archivo' }).click();
  await page.getByRole('heading', { name: 'Vista previa de «clinica.csv»' }).waitFor();
  assert.equal(await page.locator('[data-count="crear"]').textContent(), '1');
  assert.equal(await page.locator('[data-count="omitir"]').textContent(), '1');
  const badCell = page.locator('tr[data-import-line="3"] td[data-field="zona"]');
  assert.match((await badCell.textContent()) ?? '', /LUNAR.*Seleccione una opción de la lista/);

  await page.getByRole('button', { name: 'Confirmar la importación' }).click();
  // A row was left out: the import page, with the row to download, fix and import again.
  await page.waitForURL('**/patients/import/#filas-omitidas');
  assert.match((await page.locator('[data-message-level="success"]').textContent()) ?? '', /1 paciente creado, 1 fila omitida/);
  await page.getByRole('link', { name: 'Descargar la fila omitida de «clinica.csv» (CSV)' }).waitFor();
  await page.goto('/patients/');
  await page.getByRole('searchbox').fill('navegador');
  await page.getByRole('searchbox').press('Enter');
  await page.getByRole('link', { name: /Gloria/ }).waitFor();
  assert.equal(await page.getByRole('link', { name: /Mario/ }).count(), 0);
});
