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

  test('logged-in pages carry the idle minutes and a hidden warning; the login page does not', async () => {
    const { client } = await loggedInClient(ctx);
    const page = (await client.get('/patients/')).body;
    assert.match(page, /<body data-idle-minutes="20">/);
    assert.match(page, /<div id="idle-warning"[^>]*role="alert"[^>]*hidden>[^<]*inactividad/);
    const anon = (await new TestClient(ctx.app).get('/users/login/')).body;
    assert.doesNotMatch(anon, /data-idle-minutes/);
  });

  test('app.js shows the warning before the session ends, not long before', () => {
    const box = { hidden: true };
    const timers: { fn: () => void; ms: number }[] = [];
    const document = {
      body: { getAttribute: (name: string) => (name === 'data-idle-minutes' ? '20' : null) },
      getElementById: (id: string) => (id === 'idle-warning' ? box : null),
      querySelector: () => null,
      addEventListener: () => undefined,
    };
    runInNewContext(readFileSync(new URL('../public/app.js', import.meta.url), 'utf8'), {
      document,
      window: {},
      setTimeout: (fn: () => void, ms: number) => timers.push({ fn, ms }),
    });
    assert.equal(timers.length, 1);
    const ms = timers[0]!.ms;
    assert.ok(ms < 20 * 60_000, `warned before the end (${ms} ms)`);
    assert.ok(ms >= 15 * 60_000, `not long before (${ms} ms)`);
    timers[0]!.fn();
    assert.equal(box.hidden, false);
  });
});
