// Issue 15, holes 5 and 6: CSRF tokens bound to the session and renewed at login and logout, the origin of every
// unsafe request checked, frames denied, and the login lock counted as decisions §2 says.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createTestContext, createUser, login, loggedInClient, messagesIn, TestClient, type TestContext } from './helpers.js';

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext({ env: { TRUSTED_ORIGINS: 'https://portal.example.co' } });
});
after(async () => {
  await ctx.close();
});


/** Whether the user is still logged in with this client's cookies. */
async function isLoggedIn(client: TestClient): Promise<boolean> {
  return (await client.get('/dashboard/')).status === 200;
}

describe('the CSRF token belongs to the session', () => {
  test('a token taken from the login page before login is refused after it', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await client.get('/users/login/');
    const before = client.csrfToken!;
    await login(client, user.username, user.password);
    const res = await client.post('/users/logout/', { csrfmiddlewaretoken: before });
    assert.equal(res.status, 403);
    assert.match(res.body, /CSRF/);
    assert.ok(await isLoggedIn(client), 'the refused logout changed nothing');
  });

  test('the CSRF secret cookie is renewed at login and at logout', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await client.get('/users/login/');
    const anonymous = client.cookies.get('csrftoken');
    await login(client, user.username, user.password);
    const loggedIn = client.cookies.get('csrftoken');
    assert.ok(anonymous && loggedIn && loggedIn !== anonymous, 'new secret at login');
    await client.get('/users/password/');
    const token = client.csrfToken!;
    const out = await client.post('/users/logout/');
    assert.equal(out.status, 302);
    const afterLogout = client.cookies.get('csrftoken');
    assert.ok(afterLogout && afterLogout !== loggedIn, 'new secret at logout');
    // The logged-in page's token does not work on the login form after logout.
    const res = await client.post('/users/login/', { username: user.username, password: user.password, csrfmiddlewaretoken: token });
    assert.equal(res.status, 403);
  });

  test("another session's cookie-and-token pair is refused in this session", async () => {
    const { client: mallory } = await loggedInClient(ctx);
    await mallory.get('/users/password/');
    const { client: victim } = await loggedInClient(ctx);
    // The attacker plants their own secret cookie in the victim's browser and sends their own token.
    victim.cookies.set('csrftoken', mallory.cookies.get('csrftoken')!);
    const res = await victim.post('/users/logout/', { csrfmiddlewaretoken: mallory.csrfToken! });
    assert.equal(res.status, 403);
    assert.ok(await isLoggedIn(victim));
  });
});

describe('the origin of unsafe requests', () => {
  const refusedHeaders: Record<string, Record<string, string>> = {
    'Origin: https://evil.example': { origin: 'https://evil.example' },
    'Origin: null': { origin: 'null' },
    'Sec-Fetch-Site: cross-site': { 'sec-fetch-site': 'cross-site' },
    'Referer from another site': { referer: 'https://evil.example/form.html' },
    'Origin of the site with another port': { origin: 'http://localhost:9999' },
  };
  for (const [name, headers] of Object.entries(refusedHeaders)) {
    test(`${name} with a valid token: the same 403 page, nothing changes`, async () => {
      const { client } = await loggedInClient(ctx);
      await client.get('/users/password/');
      const res = await client.post('/users/logout/', {}, { headers });
      assert.equal(res.status, 403);
      assert.match(res.body, /token de seguridad válido \(CSRF\)/);
      assert.ok(await isLoggedIn(client), 'still logged in');
    });
  }

  test("the site's own origin, a Referer on the site, and a trusted origin are accepted", async () => {
    for (const headers of <Record<string, string>[]>[
      { origin: 'http://localhost:80', host: 'localhost:80' },
      { referer: 'http://localhost:80/users/logout/', host: 'localhost:80' },
      { origin: 'https://portal.example.co', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-origin' },
    ]) {
      const { client } = await loggedInClient(ctx);
      await client.get('/users/password/');
      const res = await client.post('/users/logout/', {}, { headers });
      assert.equal(res.status, 302, JSON.stringify(headers));
      assert.equal(await isLoggedIn(client), false);
    }
  });

  test('production over HTTPS: a POST with neither Origin nor Referer is refused, with the own origin accepted', async () => {
    const config = loadConfig(
      { APP_ENV: 'production', SIGNING_SECRET: 's'.repeat(40), ALLOWED_HOSTS: 'somno.example.co', TRUST_PROXY: 'true' },
      '/nonexistent',
    );
    const app = await buildApp({ config, db: ctx.db, engine: ctx.database.handle.engine, clock: ctx.clock, logger: false });
    try {
      const base = { host: 'somno.example.co', 'x-forwarded-proto': 'https' };
      const page = await app.inject({ method: 'GET', url: '/users/login/', headers: base });
      const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(page.body)![1]!;
      const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      const post = (extra: Record<string, string>) =>
        app.inject({
          method: 'POST',
          url: '/users/login/',
          headers: { ...base, cookie, 'content-type': 'application/x-www-form-urlencoded', ...extra },
          payload: new URLSearchParams({ username: 'nadie', password: 'clave-equivocada', csrfmiddlewaretoken: token }).toString(),
        });
      assert.equal((await post({})).statusCode, 403);
      assert.equal((await post({ origin: 'https://somno.example.co' })).statusCode, 200);
    } finally {
      await app.close();
    }
  });
});

test('frames are denied as strictly as the CSP says', async () => {
  const res = await new TestClient(ctx.app).get('/users/login/');
  assert.equal(res.headers['x-frame-options'], 'DENY');
  assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
});

describe('the login lock', () => {
  for (const known of [true, false]) {
    test(`${known ? 'a user name' : 'an unknown user name'}: failures 1-5 get 200 and the generic error, the 6th gets 429`, async () => {
      const user = known ? await createUser(ctx.db) : { username: `nadie${Date.now()}`, password: 'x' };
      const client = new TestClient(ctx.app);
      for (let i = 1; i <= 5; i++) {
        const res = await client.post('/users/login/', { username: user.username, password: `clave-equivocada-${i}` });
        assert.equal(res.status, 200, `attempt ${i}`);
        assert.match(messagesIn(res.body).map((m) => m.text).join(' ') + res.body, /Usuario o contraseña incorrectos/);
      }
      const sixth = await client.post('/users/login/', { username: user.username, password: user.password });
      assert.equal(sixth.status, 429);
      assert.match(sixth.body, /bloqueado durante 15 minutos/);
      ctx.clock.advanceMinutes(16);
      try {
        const later = await client.post('/users/login/', { username: user.username, password: user.password });
        assert.equal(later.status, known ? 302 : 200);
      } finally {
        ctx.clock.advanceMinutes(-16);
      }
    });
  }

  test('LOGIN_ATTEMPTS_PER_MINUTE limits the attempts from one address', async () => {
    const config = loadConfig({ APP_ENV: 'test', SIGNING_SECRET: 'x'.repeat(40), LOGIN_ATTEMPTS_PER_MINUTE: '3' }, ctx.config.dataDir);
    assert.equal(config.loginAttemptsPerMinute, 3);
    const app = await buildApp({ config, db: ctx.db, engine: ctx.database.handle.engine, clock: ctx.clock, logger: false });
    try {
      const client = new TestClient(app);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await client.post('/users/login/', { username: `x${i}`, password: 'y' })).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
    } finally {
      await app.close();
    }
    assert.throws(() => loadConfig({ APP_ENV: 'test', SIGNING_SECRET: 'x'.repeat(40), LOGIN_ATTEMPTS_PER_MINUTE: 'muchos' }, ctx.config.dataDir), /LOGIN_ATTEMPTS_PER_MINUTE/);
  });
});
