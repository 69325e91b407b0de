// Issue 29, points 8 and 9, in a real browser at 1366 × 900 and 390 × 844: typing «CC» in tipo de documento lands on
// CC; a refused login and a refused setup put the focus on their errors; a phone card's actions and the capitation's
// amounts keep to one line; the import preview's scroll area is reached by keyboard and a voided record reads at
// 4.5:1 or better (axe: no serious violation there).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { insertExamRecord } from '../../src/exams/exam.repository.js';
import { IMPORT_FIELDS } from '../../src/imports/import.rules.js';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { createUser } from '../helpers.js';
import { csvFile, patientRow } from '../imports/import-helpers.js';
import { axeProblems, loggedInPage, newPage, startBrowserTest, submitLogin, type BrowserContext } from './harness.js';

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

let b: BrowserContext;
before(async () => {
  b = await startBrowserTest();
});
after(async () => {
  await b?.close();
});

/** How many lines the element's text takes. */
const linesOf = (page: Page, selector: string) =>
  page.locator(selector).first().evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  });

describe('tipo de documento', () => {
  test('typing the codes people type lands on them', async () => {
    const { page } = await loggedInPage(b, undefined, { viewport: DESKTOP });
    await page.goto('/patients/create/');
    const select = page.getByLabel('Tipo de documento');
    for (const code of ['CC', 'CE', 'TI', 'RC', 'PA', 'PE']) {
      await select.evaluate((el: HTMLSelectElement) => (el.value = ''));
      await select.focus();
      await page.keyboard.type(code, { delay: 40 });
      assert.equal(await select.inputValue(), code, `typed ${code}`);
      await page.waitForTimeout(1100); // the type-ahead forgets what was typed after a second
    }
    await page.context().close();
  });
});

describe('errors take the focus', () => {
  test('a refused login', async () => {
    const page = await newPage(b);
    await page.goto('/users/login/');
    await submitLogin(page, { username: 'alguien', password: 'equivocada-de-verdad' });
    await page.locator('[data-error-summary]').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.hasAttribute('data-error-summary')), true);
    await page.context().close();
  });
});

describe('on a phone', () => {
  test("a listed patient's actions and the capitation's amounts keep to one line", async () => {
    await createPatient(b.ctx.db, { nombre: 'Ofelia', apellido: 'Telefono', documento: 'TEL-1', valor_capita: 123456789 }, { fechaInicio: '2026-11-02' });
    const { page } = await loggedInPage(b, await createUser(b.ctx.db, { isAdmin: true }), { viewport: PHONE });
    await page.goto('/patients/?query_search=ofelia+telefono');
    assert.equal(await linesOf(page, 'td[data-label="Acciones"] .links-inline'), 1, 'Ficha · Vista clínica on one line');
    await page.goto('/dashboard/');
    const amounts = await page.locator('[data-table="capita"] td.money').count();
    assert.ok(amounts > 0);
    for (let i = 0; i < amounts; i++) {
      const lines = await page.locator('[data-table="capita"] td.money').nth(i).evaluate((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      });
      assert.equal(lines, 1, `amount ${i} on one line`);
    }
    await page.context().close();
  });
});

describe('axe (point 9)', () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    test(`the import preview's scroll area is reachable by keyboard (${name})`, async () => {
      const { page } = await loggedInPage(b, undefined, { viewport, axe: true });
      await page.goto('/patients/import/');
      const file = csvFile([...IMPORT_FIELDS], [patientRow({ nombre: 'Rita', apellido: 'Axe', documento: `880${viewport.width}` }), patientRow({ nombre: 'Raúl', apellido: 'Axe', zona: 'LUNAR' })]);
      await page.getByLabel(/^Archivo/).setInputFiles({ name: 'axe.csv', mimeType: 'text/csv', buffer: file });
      await page.getByRole('button', { name: 'Revisar el archivo' }).click();
      await page.getByRole('heading', { name: 'Vista previa de «axe.csv»' }).waitFor();
      assert.deepEqual(await axeProblems(page, ['scrollable-region-focusable', 'aria-allowed-role', 'region']), []);
      assert.equal(await page.getByRole('region', { name: 'Vista previa de las filas del archivo' }).getAttribute('tabindex'), '0');
      await page.context().close();
    });
  }

  test('a voided exam record reads at 4.5:1 or better', async () => {
    const user = await createUser(b.ctx.db);
    const p = await createPatient(b.ctx.db, { nombre: 'Vilma', apellido: 'Anulada', documento: 'VOID-1' }, { fechaInicio: '2026-06-01' });
    await b.ctx.db.transaction().execute((trx) =>
      insertExamRecord(trx, {
        ingreso_id: p.ingresoId!, kind: 'MONITOREO', fecha: '2026-07-01', registrado_por: user.id, created_at: '2026-07-01T12:00:00.000Z',
        tipo: 'POLISOMNOGRAFIA', iah: 1520, observaciones: 'Registrado en el paciente equivocado',
        anulado_at: '2026-07-02T12:00:00.000Z', anulado_por: user.id, motivo_anulacion: 'Paciente equivocado',
      } as never),
    );
    const { page } = await loggedInPage(b, user, { viewport: DESKTOP, axe: true });
    await page.goto(`/exams/${p.id}/ingreso/${p.ingresoId}/`);
    await page.locator('.exam-anulado').first().waitFor();
    const problems = await axeProblems(page, ['color-contrast']);
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
