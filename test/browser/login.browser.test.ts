import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createUser } from '../helpers.js';
import { loggedInPage, newPage, startBrowserTest, submitLogin, type BrowserContext } from './harness.js';

let b: BrowserContext;
before(async () => {
  b = await startBrowserTest();
});
after(async () => {
  await b?.close();
});

test('a person logs in through the form, sees the dashboard, and logs out', async () => {
  const user = await createUser(b.ctx.db);
  const page = await newPage(b);
  const context = page.context();
  await page.goto('/patients/');
  assert.match(page.url(), /\/users\/login\/\?next=\/patients\/$/);
  await submitLogin(page, { username: user.username, password: 'equivocada-de-verdad' });
  assert.equal(await page.getByRole('alert').first().textContent(), 'Usuario o contraseña incorrectos.');

  await submitLogin(page, user);
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
