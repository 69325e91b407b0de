// Issue 29, points 5 and 6 in a browser: the import preview at a desktop's 1366 × 900 and a phone's 390 × 844
// (axe clean, no sideways scroll of the page, the problems linked to their rows, the filter, labelled cards on the
// phone), and the patient's record printed as a referral sheet. With SCREENSHOTS=<dir> it writes their
// screenshots there (docs/screenshots/).

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { insertExamRecord } from '../../src/exams/exam.repository.js';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { createUser } from '../helpers.js';
import { csvFile, patientRow } from '../imports/import-helpers.js';
import { axeProblems, loggedInPage, startBrowserTest, type BrowserContext } from './harness.js';

const SIZES = [
  { name: 'escritorio', width: 1366, height: 900 },
  { name: 'telefono', width: 390, height: 844 },
] as const;
const SHOTS = process.env.SCREENSHOTS;

let b: BrowserContext;
before(async () => {
  b = await startBrowserTest();
  if (SHOTS) await mkdir(SHOTS, { recursive: true });
});
after(async () => {
  await b?.close();
});

const loggedInAt = async (size: (typeof SIZES)[number]) => (await loggedInPage(b, undefined, { viewport: { width: size.width, height: size.height }, axe: true })).page;

const HEADER = ['Nombre', 'Apellido', 'Tipo de documento', 'Número de documento', 'Fecha de nacimiento', 'Edad', 'Género', 'Departamento', 'Ciudad',
  'Zona', 'Teléfono', 'Celular', 'Estado civil', 'Entidad de salud', 'Estrato', 'Peso (kg)', 'Altura (m)', 'Médico remitente', 'Especialidad',
  'Diagnóstico clínico', 'Programa', 'Valor cápita'];
const KEYS = ['nombre', 'apellido', 'tipo_documento', 'documento', 'fecha_nacimiento', 'edad', 'genero', 'departamento', 'ciudad', 'zona', 'telefono',
  'celular', 'estado_civil', 'entidad_salud', 'estrato', 'peso', 'altura', 'medico_remitente', 'especialidad', 'diagnostico_clinico', 'programa',
  'valor_capita'];

for (const size of SIZES) {
  test(`the import preview explains itself on a ${size.name} (${size.width} × ${size.height}), axe clean`, async () => {
    const page = await loggedInAt(size);
    const tag = size.name === 'escritorio' ? '81' : '82';
    // Other people on each size (names and birth dates), so that the second size finds no possible duplicate.
    const [g, e] = size.name === 'escritorio' ? ['Gloria', 'Elena'] : ['Beatriz', 'Rocío'];
    const rows = [
      patientRow({ nombre: g, apellido: 'Válida', documento: `${tag}00101`, fecha_nacimiento: `03/04/19${tag === '81' ? 66 : 67}`, edad: '=AÑO(HOY())-1966', valor_capita: '259.783' }),
      patientRow({ nombre: 'Mario', apellido: 'Errado', documento: `${tag}00102`, fecha_nacimiento: '12/10/1959', zona: 'LUNAR', edad: '=AÑO(HOY())-1959', valor_capita: 'mucho' }),
      patientRow({ nombre: e, apellido: 'Válida', documento: `${tag}00103`, fecha_nacimiento: `21/08/19${tag === '81' ? 80 : 81}`, edad: '=AÑO(HOY())-1980', valor_capita: '180.000' }),
    ];
    await page.goto('/patients/import/');
    await page.getByLabel(/^Archivo/).setInputFiles({ name: 'semana.csv', mimeType: 'text/csv', buffer: csvFile(HEADER, rows, { keys: KEYS }) });
    await page.getByRole('button', { name: 'Revisar el archivo' }).click();
    await page.getByRole('heading', { name: 'Vista previa de «semana.csv»' }).waitFor();

    // The formula column is ignored with a notice; the problems are listed and linked to their row.
    assert.match((await page.locator('[data-import-ignored]').textContent()) ?? '', /«Edad» tiene fórmulas/);
    const problems = page.locator('[data-import-problems] li');
    assert.deepEqual(await problems.allTextContents(), [
      'Fila 3 · Zona: Seleccione una opción de la lista.',
      (await problems.nth(1).textContent())!,
    ]);
    assert.match((await problems.nth(1).textContent()) ?? '', /^Fila 3 · Valor cápita: /);
    assert.deepEqual(await axeProblems(page), []);
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
    assert.ok(scrollWidth <= innerWidth, `the page scrolls sideways: ${scrollWidth} > ${innerWidth}`);
    if (SHOTS && size.name === 'escritorio') await page.screenshot({ path: join(SHOTS, `importar-vista-previa-${size.name}.png`), fullPage: false });

    // The link goes to the row, whose result cell says why.
    await page.getByRole('link', { name: 'Fila 3' }).first().click();
    await page.waitForURL('**#fila-3');
    assert.match((await page.locator('#fila-3 .import-result').textContent()) ?? '', /Se omitirá.*Zona: Seleccione una opción de la lista/);
    // The file's values under its own headings; on the phone each value beside its heading.
    const dateCell = page.locator('#fila-3 td[data-field="fecha_nacimiento"]');
    assert.equal((await dateCell.textContent())?.trim(), '12/10/1959');
    if (size.name === 'telefono') {
      const label = await dateCell.evaluate((el) => getComputedStyle(el, '::before').content);
      assert.equal(label, '"Fecha de nacimiento"');
      // The phone's shot: the row the problem's link led to, a card of labelled values.
      if (SHOTS) await page.screenshot({ path: join(SHOTS, `importar-vista-previa-${size.name}.png`), fullPage: false });
    }

    // The filter leaves only the rows with problems.
    assert.equal(await page.locator('tr[data-import-status="crear"]').first().isVisible(), true);
    await page.getByLabel('Mostrar solo las filas con problemas').check();
    assert.equal(await page.locator('tr[data-import-status="crear"]').first().isVisible(), false);
    assert.equal(await page.locator('#fila-3').isVisible(), true);
    assert.deepEqual(await axeProblems(page), []);

    // Confirmed: the import page offers the row left out, to fix and import again.
    await page.getByRole('button', { name: 'Confirmar la importación' }).click();
    await page.waitForURL('**/patients/import/#filas-omitidas');
    await page.getByRole('link', { name: 'Descargar la fila omitida de «semana.csv» (CSV)' }).waitFor();
    assert.deepEqual(await axeProblems(page), []);
    await page.context().close();
  });
}

test('the patient record prints as a referral sheet: header, latest results, no history, no navigation', async () => {
  const db = b.ctx.db;
  const user = await createUser(db);
  const p = await createPatient(db, { nombre: 'Lucía', apellido: 'Fernández Quintero', documento: 'RS-1', medico_remitente: 'Dra. Olga Pérez' }, { fechaInicio: '2026-05-10' });
  await db.transaction().execute(async (trx) => {
    await insertExamRecord(trx, {
      ingreso_id: p.ingresoId!, kind: 'MONITOREO', fecha: '2026-06-01', registrado_por: user.id, created_at: '2026-11-01T00:00:00.000Z',
      tipo: 'POLISOMNOGRAFIA', iah: 3240, saturacion_minima: 8450, observaciones: null,
    });
    await insertExamRecord(trx, {
      ingreso_id: p.ingresoId!, kind: 'MONITOREO', fecha: '2026-11-10', registrado_por: user.id, created_at: '2026-11-11T00:00:00.000Z',
      tipo: 'DESCARGA_CPAP', horas_uso_promedio: 610, porcentaje_noches_4h: 8000, observaciones: null,
    });
    await insertExamRecord(trx, {
      ingreso_id: p.ingresoId!, kind: 'PSICOLOGIA', fecha: '2026-10-20', registrado_por: user.id, created_at: '2026-11-11T00:00:00.000Z',
      tipo_sesion: 'SEGUIMIENTO', numero_sesion: 2, isi: 12, epworth: 9, observaciones: null,
    });
  });
  const { page } = await loggedInPage(b, user, { viewport: { width: 1000, height: 1300 } });
  await page.goto(`/patients/${p.id}/`);
  // On screen: the record; the sheet waits for paper.
  assert.equal(await page.locator('[data-referral-sheet]').isVisible(), false);
  await page.emulateMedia({ media: 'print' });
  assert.equal(await page.locator('[data-referral-sheet]').isVisible(), true);
  for (const hidden of ['#historial', '.topbar', '#ficha', '#editar', '.section-nav', '.page-head']) {
    assert.equal(await page.locator(hidden).first().isVisible(), false, `${hidden} is printed`);
  }
  const sheet = (await page.locator('[data-referral-sheet]').innerText()).replace(/\s+/g, ' ');
  assert.match(sheet, /Somno · Hoja de remisión/);
  assert.match(sheet, /Ciclo 1 · activo desde el 10\/05\/2026 · mes 7 de 18/);
  assert.match(sheet, /Dra\. Olga Pérez/);
  assert.match(sheet, /IAH \(última polisomnografía\) 32,4 eventos\/h 01\/06\/2026/);
  assert.match(sheet, /Horas de uso del CPAP \(promedio\) 6,1 h 10\/11\/2026/);
  // The sheet as the browser prints it; its first page as a PNG: pdftoppm -png -r 80 -singlefile hoja-remision.pdf hoja-remision
  if (SHOTS) await page.pdf({ path: join(SHOTS, 'hoja-remision.pdf'), format: 'A4', printBackground: true });
  await page.context().close();
});
