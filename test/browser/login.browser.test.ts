import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createUser } from '../helpers.js';
import { loggedInPage, startBrowserTest, type BrowserContext } from './harness.js';

let b: BrowserContext;
before(async () => {
  b = await startBrowserTest();
});
after(async () => {
  await b?.close();
});

test('a person logs in through the form, sees the dashboard, and logs out', async () => {
  const user = await createUser(b.ctx.db);
  const context = await b.browser.newContext({ locale: 'es-CO', baseURL: b.baseUrl });
  const page = await context.newPage();
  await page.goto('/patients/');
  assert.match(page.url(), /\/users\/login\/\?next=\/patients\/$/);
  await page.getByLabel('Usuario').fill(user.username);
  await page.getByLabel('Contraseña').fill('equivocada-de-verdad');
  await page.getByRole('button', { name: 'Entrar' }).click();
  assert.equal(await page.getByRole('alert').first().textContent(), 'Usuario o contraseña incorrectos.');

  await page.getByLabel('Contraseña').fill(user.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.waitForURL('**/patients/');
  const cookies = await context.cookies();
  assert.ok(cookies.some((c) => c.name === 'sessionid' && c.httpOnly));

  await page.goto('/dashboard/');
  assert.equal(await page.getByRole('heading', { level: 1 }).first().textContent(), 'Resumen del programa');
  assert.ok(await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Pacientes' }).isVisible());

  await page.getByRole('button', { name: 'Cerrar sesión' }).click();
  await page.waitForURL('**/users/login/');
  assert.equal(await page.getByRole('status').first().textContent(), 'Sesión cerrada.');
  await context.close();
});

test('the logged-in helper lands on the dashboard', async () => {
  const { page } = await loggedInPage(b);
  assert.match(page.url(), /\/dashboard\/$/);
  await page.context().close();
});
