// What every browser test needs: the app and Chromium, a page (logged in or not, with axe-core or a clock of its
// own), the login form sent as a person sends it, and axe-core's serious findings.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import type * as AxeCore from 'axe-core';
import { createTestContext, createUser, type TestContext } from '../helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

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

export interface PageOptions {
  viewport?: { width: number; height: number };
  /**
   * axe-core loaded with every document, before its own scripts: one page's check is then ~0.2 s, not the ~1.3 s
   * of injecting it anew and finishing the run in a blank page (as @axe-core/playwright does).
   */
  axe?: boolean;
  /** The browser's clock installed at this time, for a test that moves it (the server's clock by hand). */
  clockAt?: Date;
}

/** A new page in a browser context of its own (Spanish, Colombia), logged in as nobody. */
export async function newPage(b: BrowserContext, { viewport, axe = false, clockAt }: PageOptions = {}): Promise<Page> {
  const context = await b.browser.newContext({ locale: 'es-CO', baseURL: b.baseUrl, ...(viewport ? { viewport } : {}) });
  if (axe) await context.addInitScript({ path: AXE_SOURCE });
  if (clockAt) await context.clock.install({ time: clockAt });
  return context.newPage();
}

/** The login form the page shows, filled and sent as a person does (what follows is the caller's to wait for). */
export async function submitLogin(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.getByLabel('Usuario').fill(who.username);
  await page.getByLabel('Contraseña').fill(who.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
}

/** A new page logged in through the real form, as a new user (or the one given), on the dashboard. */
export async function loggedInPage(
  b: BrowserContext,
  user?: { username: string; password: string },
  options: PageOptions = {},
): Promise<{ page: Page; user: { username: string; password: string } }> {
  const who = user ?? (await createUser(b.ctx.db));
  const page = await newPage(b, options);
  await page.goto('/users/login/');
  await submitLogin(page, who);
  await page.waitForURL('**/dashboard/');
  return { page, user: who };
}

/** The page's serious or critical axe-core violations (only the rules given, or all), as lines; needs `axe` of newPage. */
export async function axeProblems(page: Page, rules?: string[]): Promise<string[]> {
  return page.evaluate(async (only) => {
    const { axe } = window as unknown as { axe: typeof AxeCore };
    const result = await axe.run(document, { resultTypes: ['violations'], ...(only ? { runOnly: only } : {}) });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `axe ${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`);
  }, rules ?? null);
}
