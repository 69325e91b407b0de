import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestContext, createUser, type TestContext } from '../helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface BrowserContext {
  ctx: TestContext;
  browser: Browser;
  baseUrl: string;
  close(): Promise<void>;
}

/** The real app listening on a free local port, and Debian's chromium driven by playwright-core. */
export async function startBrowserTest(): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH).`);
  }
  const ctx = await createTestContext();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const address = ctx.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    ctx,
    browser,
    baseUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      await browser.close();
      await ctx.close();
    },
  };
}

/** A new page logged in through the real form, as a new user (or the one given). */
export async function loggedInPage(
  b: BrowserContext,
  user?: { username: string; password: string },
  viewport?: { width: number; height: number },
): Promise<{ page: Page; user: { username: string; password: string } }> {
  const who = user ?? (await createUser(b.ctx.db));
  const context = await b.browser.newContext({ locale: 'es-CO', baseURL: b.baseUrl, ...(viewport ? { viewport } : {}) });
  const page = await context.newPage();
  await page.goto('/users/login/');
  await page.getByLabel('Usuario').fill(who.username);
  await page.getByLabel('Contraseña').fill(who.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.waitForURL('**/dashboard/');
  return { page, user: who };
}
