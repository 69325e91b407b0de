import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { runInNewContext } from 'node:vm';
import { createTestContext, loggedInClient, TestClient, type TestContext } from './helpers.js';

// decisions §2: sessions end after SESSION_IDLE_MINUTES without a request; pages warn shortly before.
describe('the idle warning', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ env: { SESSION_IDLE_MINUTES: '20' } });
  });
  after(async () => ctx.close());

  test('logged-in pages carry the idle minutes and a hidden warning with «Seguir trabajando»; the login page does not', async () => {
    const { client } = await loggedInClient(ctx);
    const page = (await client.get('/patients/')).body;
    assert.match(page, /<body data-idle-minutes="20">/);
    assert.match(page, /<div id="idle-warning"[^>]*role="alert"[^>]*hidden><p data-idle-text="true">[^<]*inactividad/);
    assert.match(page, /<button type="button" class="button" data-idle-renew="true">Seguir trabajando<\/button>/);
    const anon = (await new TestClient(ctx.app).get('/users/login/')).body;
    assert.doesNotMatch(anon, /data-idle-minutes/);
    assert.doesNotMatch(anon, /idle-warning/);
  });

  /** app.js in a stub page: the timers it sets, the box, the listeners, the requests it makes. */
  function runAppJs() {
    const text = { textContent: '' };
    const button = { hidden: false, addEventListener: () => undefined };
    const box = {
      hidden: true,
      offsetHeight: 60,
      querySelector: (sel: string) => (sel === '[data-idle-text]' ? text : sel === '[data-idle-renew]' ? button : null),
    };
    const timers: { fn: () => void; ms: number }[] = [];
    const listeners: Record<string, ((e: unknown) => void)[]> = {};
    const fetches: { url: string; init: { headers: Record<string, string> } }[] = [];
    const body = { style: { paddingBottom: '' }, getAttribute: (name: string) => (name === 'data-idle-minutes' ? '20' : null) };
    const document = {
      body,
      documentElement: { style: { scrollPaddingBottom: '' } },
      getElementById: (id: string) => (id === 'idle-warning' ? box : null),
      querySelector: (sel: string) => (sel === 'input[name="csrfmiddlewaretoken"]' ? { value: 'tok' } : null),
      querySelectorAll: () => [],
      addEventListener: (type: string, fn: (e: unknown) => void) => (listeners[type] ??= []).push(fn),
    };
    const window = {
      fetch: (url: string, init: { headers: Record<string, string> }) => {
        fetches.push({ url, init });
        return new Promise(() => undefined);
      },
    };
    runInNewContext(readFileSync(new URL('../public/app.js', import.meta.url), 'utf8'), {
      document,
      window,
      setTimeout: (fn: () => void, ms: number) => timers.push({ fn, ms }),
      clearTimeout: () => undefined,
    });
    return { box, text, body, timers, listeners, fetches };
  }

  test('app.js shows the warning shortly before the session ends, saying when, and reserves its space', () => {
    const { box, text, body, timers } = runAppJs();
    assert.equal(timers.length, 1);
    const ms = timers[0]!.ms;
    assert.ok(ms < 20 * 60_000, `warned before the end (${ms} ms)`);
    assert.ok(ms >= 15 * 60_000, `not long before (${ms} ms)`);
    timers[0]!.fn();
    assert.equal(box.hidden, false);
    assert.match(text.textContent, /Su sesión se cerrará por inactividad a las \d/);
    assert.equal(body.style.paddingBottom, '76px', 'the warning\'s height is kept free below the page');
  });

  test('typing in a form counts as activity: the session is renewed instead of warning', () => {
    const { box, timers, listeners, fetches } = runAppJs();
    const inForm = { target: { closest: (sel: string) => (sel === 'form' ? {} : null) } };
    for (const fn of listeners.input ?? []) fn(inForm);
    timers[0]!.fn();
    assert.equal(box.hidden, true);
    assert.equal(fetches.length, 1);
    assert.equal(fetches[0]!.url, '/users/session/renew/');
    assert.equal(fetches[0]!.init.headers['X-CSRFToken'], 'tok');
  });
});
