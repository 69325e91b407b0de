// Issue 29, point 2, in a real browser at a desktop's 1366 × 900 and a phone's 390 × 844: the idle warning covers no
// control and says when the session ends; «Seguir trabajando» keeps the session without leaving the page; a form
// posted after the session ended comes back filled after the person logs in again, and nothing was saved.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { loggedInPage, startBrowserTest, submitLogin, type BrowserContext } from './harness.js';

let b: BrowserContext;
before(async () => {
  b = await startBrowserTest();
});
after(async () => {
  await b?.close();
});

const SIZES = [
  { name: 'desktop', viewport: { width: 1366, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
];

/** A logged-in page whose clock the test moves (the server's clock moves with it, by hand). */
async function pageWithClock(viewport: { width: number; height: number }) {
  return loggedInPage(b, undefined, { viewport, clockAt: b.ctx.clock.now() });
}

/** Each control of the page, scrolled into view, that the idle warning covers at its centre. */
function controlsCovered(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const warning = document.getElementById('idle-warning')!;
    const covered: string[] = [];
    const controls = document.querySelectorAll<HTMLElement>('main a[href], main button, main input:not([type=hidden]), main select, main textarea, main summary');
    for (const el of controls) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      el.scrollIntoView({ block: 'nearest' });
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (hit && warning.contains(hit)) covered.push(`${el.tagName} ${el.getAttribute('name') ?? el.textContent?.trim().slice(0, 30)}`);
    }
    return covered;
  });
}

for (const { name, viewport } of SIZES) {
  describe(`the idle warning (${name})`, () => {
    test('covers no control, says when the session ends, and «Seguir trabajando» keeps the session', async () => {
      const { page } = await pageWithClock(viewport);
      await page.goto('/patients/create/');
      const warning = page.locator('#idle-warning');
      assert.equal(await warning.isVisible(), false);
      await page.clock.fastForward('28:30');
      b.ctx.clock.advanceMinutes(28.5);
      await warning.waitFor({ state: 'visible' });
      assert.match((await warning.textContent()) ?? '', /Su sesión se cerrará por inactividad a las \d{1,2}:\d{2}/);
      assert.deepEqual(await controlsCovered(page), []);
      // The form's own buttons can be clicked with the warning shown.
      await page.getByRole('button', { name: 'Guardar paciente' }).click({ trial: true });

      await page.getByRole('button', { name: 'Seguir trabajando' }).click();
      await warning.waitFor({ state: 'hidden' });
      assert.match(page.url(), /\/patients\/create\/$/, 'still on the page');
      b.ctx.clock.advanceMinutes(20); // 48.5 minutes since the page was loaded, 20 since the renewal
      await page.reload();
      assert.match(page.url(), /\/patients\/create\/$/, 'the session was kept');
      await page.context().close();
    });
  });
}

test('a form posted after the session ended comes back filled after logging in again, and nothing was saved', async () => {
  const { page, user } = await pageWithClock({ width: 1366, height: 900 });
  await page.goto('/patients/create/');
  await page.getByLabel(/^Nombre/).fill('Luz Marina');
  await page.getByLabel('Apellido').fill('Quintero Díaz');
  await page.getByLabel('Tipo de documento').selectOption('CC');
  await page.getByLabel('Número de documento').fill('63456789');
  await page.getByLabel('Fecha de nacimiento').fill('1958-07-21');
  await page.getByLabel('Estado civil').selectOption('CASADO');
  await page.getByLabel('Departamento').selectOption('ANTIOQUIA');
  await page.getByLabel('Ciudad o municipio').locator('option[value="MEDELLÍN"]').waitFor({ state: 'attached' });
  await page.getByLabel('Ciudad o municipio').selectOption('MEDELLÍN');
  await page.getByLabel('Médico remitente').fill('Dra. Camila Ríos');
  b.ctx.clock.advanceMinutes(45);
  await page.clock.fastForward('45:00');
  await page.getByRole('button', { name: 'Guardar paciente' }).click();
  await page.waitForURL('**/users/login/**');
  assert.match((await page.locator('[data-message-level]').allTextContents()).join(' '), /No se guardó nada/);
  const stored = await b.ctx.db.selectFrom('patients').select('id').where('documento', '=', '63456789').execute();
  assert.deepEqual(stored, []);

  await submitLogin(page, user);
  await page.waitForURL('**/patients/create/');
  assert.match((await page.locator('[data-message-level]').allTextContents()).join(' '), /Aún no se ha guardado/);
  assert.equal(await page.getByLabel(/^Nombre/).inputValue(), 'Luz Marina');
  assert.equal(await page.getByLabel('Apellido').inputValue(), 'Quintero Díaz');
  assert.equal(await page.getByLabel('Número de documento').inputValue(), '63456789');
  assert.equal(await page.getByLabel('Fecha de nacimiento').inputValue(), '1958-07-21');
  assert.equal(await page.getByLabel('Estado civil').inputValue(), 'CASADO');
  assert.equal(await page.getByLabel('Departamento').inputValue(), 'ANTIOQUIA');
  await page.getByLabel('Ciudad o municipio').locator('option[value="MEDELLÍN"]').waitFor({ state: 'attached' });
  assert.equal(await page.getByLabel('Ciudad o municipio').inputValue(), 'MEDELLÍN');
  assert.equal(await page.getByLabel('Médico remitente').inputValue(), 'Dra. Camila Ríos');
  assert.deepEqual(await b.ctx.db.selectFrom('patients').select('id').where('documento', '=', '63456789').execute(), []);
  await page.context().close();
});
