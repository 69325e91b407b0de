import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.js';
import { loggerOptions } from '../src/web/logging.js';
import { ConfigError, loadConfig } from '../src/config.js';
import {
  createTestContext,
  createUser,
  ENGINE,
  login,
  loggedInClient,
  messagesIn,
  TEST_PASSWORD,
  TEST_PG_URL,
  TestClient,
  type TestContext,
} from './helpers.js';

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

test(`database engine under test is ${ENGINE}`, () => {
  // CI greps for this line to prove the PostgreSQL run really ran on PostgreSQL.
  assert.equal(ctx.database.handle.engine, TEST_PG_URL ? 'postgres' : 'sqlite');
  console.log(`engine=${ctx.database.handle.engine}`);
});

describe('GET /users/login/', () => {
  test('shows the form with username, password and a hidden CSRF token', async () => {
    const res = await new TestClient(ctx.app).get('/users/login/');
    assert.equal(res.status, 200);
    assert.match(res.body, /name="username"/);
    assert.match(res.body, /name="password"/);
    assert.match(res.body, /type="hidden" name="csrfmiddlewaretoken" value="[^"]+"/);
    assert.match(res.body, /<html lang="es-CO">/);
  });
});

describe('POST /users/login/', () => {
  test('good credentials: 302 to /dashboard/ with an HttpOnly SameSite=Lax sessionid cookie', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await client.get('/users/login/');
    const res = await client.post('/users/login/', { username: user.username, password: user.password });
    assert.equal(res.status, 302);
    assert.equal(res.location, '/dashboard/');
    const setCookie = ([] as string[]).concat((res.headers['set-cookie'] as string[] | string) ?? []);
    const session = setCookie.find((c) => c.startsWith('sessionid='));
    assert.ok(session, 'sessionid cookie set');
    assert.match(session, /HttpOnly/i);
    assert.match(session, /SameSite=Lax/i);
    assert.doesNotMatch(session, /Secure/i);
    const dashboard = await client.get('/dashboard/');
    assert.equal(dashboard.status, 200);
    assert.match(dashboard.body, new RegExp(user.username));
  });

  test('user names are matched without regard to case', async () => {
    const user = await createUser(ctx.db, { username: `Mixto${Date.now()}` });
    const client = new TestClient(ctx.app);
    await login(client, user.username.toLowerCase(), user.password);
    assert.equal((await client.get('/dashboard/')).status, 200);
  });

  test('bad credentials: 200, the form again with one generic error, same for unknown users', async () => {
    const user = await createUser(ctx.db);
    const wrong = await new TestClient(ctx.app).post('/users/login/', { username: user.username, password: 'no-es-la-clave-correcta' });
    const unknown = await new TestClient(ctx.app).post('/users/login/', { username: 'nadie-existe-aqui', password: 'no-es-la-clave-correcta' });
    for (const res of [wrong, unknown]) {
      assert.equal(res.status, 200);
      assert.deepEqual(
        messagesIn(res.body).map((m) => m.text),
        ['Usuario o contraseña incorrectos.'],
      );
      assert.equal(res.headers['set-cookie']?.toString().includes('sessionid=') ? 'set' : 'none', 'none');
    }
  });

  test('honours a relative next and refuses open redirects', async () => {
    const user = await createUser(ctx.db);
    const cases: [string, string][] = [
      ['/patients/?page=2', '/patients/?page=2'],
      ['//evil.example', '/dashboard/'],
      ['https://evil.example', '/dashboard/'],
      ['/\\evil.example', '/dashboard/'],
      ['javascript:alert(1)', '/dashboard/'],
    ];
    for (const [next, expected] of cases) {
      const client = new TestClient(ctx.app);
      await client.get(`/users/login/?next=${encodeURIComponent(next)}`);
      const res = await client.post(`/users/login/?next=${encodeURIComponent(next)}`, {
        username: user.username,
        password: user.password,
      });
      assert.equal(res.status, 302, next);
      assert.equal(res.location, expected, next);
    }
  });

  test('renews the session id at login (no fixation)', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    client.cookies.set('sessionid', 'planted-by-an-attacker');
    await login(client, user.username, user.password);
    const after = client.cookies.get('sessionid');
    assert.ok(after && after !== 'planted-by-an-attacker');
  });

  test('after 5 failures for one user name, 429 for 15 minutes even with the right password; others unaffected', async () => {
    const user = await createUser(ctx.db);
    const other = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await client.post('/users/login/', { username: user.username, password: 'clave-equivocada-' + i })).status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200], 'failures 1 to 5 get the form with the generic error');
    const locked = await client.post('/users/login/', { username: user.username, password: user.password });
    assert.equal(locked.status, 429);
    assert.match(messagesIn(locked.body)[0]!.text, /bloqueado durante 15 minutos/);

    const otherClient = new TestClient(ctx.app);
    await login(otherClient, other.username, other.password);

    ctx.clock.advanceMinutes(16);
    const later = new TestClient(ctx.app);
    await login(later, user.username, user.password);
    ctx.clock.advanceMinutes(-16);
  });

  test('absurdly long user names and passwords get the form again, never a 500', async () => {
    const res = await new TestClient(ctx.app).post('/users/login/', { username: 'a'.repeat(5000), password: 'b'.repeat(50000) });
    assert.equal(res.status, 200);
  });
});

describe('CSRF', () => {
  test('a POST without a token gets 403 with an explaining page, and changes nothing', async () => {
    const { client } = await loggedInClient(ctx);
    const res = await client.post('/users/logout/', {}, { csrf: false });
    assert.equal(res.status, 403);
    assert.match(res.body, /CSRF/);
    assert.equal((await client.get('/dashboard/')).status, 200, 'still logged in');
  });

  test('a wrong token gets 403', async () => {
    const { client } = await loggedInClient(ctx);
    const res = await client.post('/users/logout/', { csrfmiddlewaretoken: 'wrong' });
    assert.equal(res.status, 403);
  });

  test('the token is accepted in the X-CSRFToken header', async () => {
    const { client } = await loggedInClient(ctx);
    await client.get('/dashboard/');
    const res = await client.post('/users/logout/', {}, { csrf: false, headers: { 'x-csrftoken': client.csrfToken! } });
    assert.equal(res.status, 302);
    assert.equal(res.location, '/users/login/');
  });

  test('the login form itself needs the token', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await client.get('/users/login/');
    const res = await client.post('/users/login/', { username: user.username, password: user.password }, { csrf: false });
    assert.equal(res.status, 403);
  });
});

describe('logout', () => {
  test('POST /users/logout/ destroys the session: the old cookie no longer works', async () => {
    const { client } = await loggedInClient(ctx);
    const oldCookie = client.cookies.get('sessionid')!;
    const res = await client.post('/users/logout/');
    assert.equal(res.status, 302);
    assert.equal(res.location, '/users/login/');
    const page = await client.follow(res);
    assert.deepEqual(messagesIn(page.body), [{ level: 'info', text: 'Sesión cerrada.' }]);
    const replay = new TestClient(ctx.app);
    replay.cookies.set('sessionid', oldCookie);
    const again = await replay.get('/dashboard/');
    assert.equal(again.status, 302);
    assert.equal(again.location, '/users/login/?next=/dashboard/');
  });

  test('GET /users/logout/ shows a page with a logout button', async () => {
    const { client } = await loggedInClient(ctx);
    const res = await client.get('/users/logout/');
    assert.equal(res.status, 200);
    assert.match(res.body, /action="\/users\/logout\/"/);
  });
});

describe('sessions expire', () => {
  test(`after ${30} idle minutes (injected clock), but not while in use`, async () => {
    const { client } = await loggedInClient(ctx);
    ctx.clock.advanceMinutes(20);
    assert.equal((await client.get('/dashboard/')).status, 200);
    ctx.clock.advanceMinutes(20);
    assert.equal((await client.get('/dashboard/')).status, 200, '40 minutes old but active');
    ctx.clock.advanceMinutes(31);
    const res = await client.get('/dashboard/');
    assert.equal(res.status, 302);
    const loginPage = await client.follow(res);
    assert.match(messagesIn(loginPage.body)[0]!.text, /sesión terminó/);
  });

  test('after 12 hours in any case', async () => {
    const { client } = await loggedInClient(ctx);
    for (let i = 0; i < 25; i++) {
      ctx.clock.advanceMinutes(29);
      const res = await client.get('/dashboard/');
      if (i < 24) assert.equal(res.status, 200, `at ${(i + 1) * 29} minutes`);
      else assert.equal(res.status, 302, 'past 12 hours');
    }
  });

  test('a user can end their other open sessions', async () => {
    const user = await createUser(ctx.db);
    const laptop = new TestClient(ctx.app);
    const phone = new TestClient(ctx.app);
    await login(laptop, user.username, user.password);
    await login(phone, user.username, user.password);
    const page = await laptop.get('/users/password/');
    assert.match(page.body, /Cerrar la otra sesión/);
    const res = await laptop.post('/users/sessions/end-others/');
    assert.equal(res.status, 302);
    assert.equal((await phone.get('/dashboard/')).status, 302);
    assert.equal((await laptop.get('/dashboard/')).status, 200);
  });
});

describe('the guard', () => {
  test('protected paths redirect to the login page with next', async () => {
    const anon = new TestClient(ctx.app);
    for (const path of ['/patients/', '/patients/follow', '/exams/', '/dashboard/', '/users/password/']) {
      const res = await anon.get(path);
      assert.equal(res.status, 302, path);
      assert.equal(res.location, `/users/login/?next=${path}`);
    }
  });

  test('GET / goes to the login page, or to the dashboard when logged in', async () => {
    assert.equal((await new TestClient(ctx.app).get('/')).location, '/users/login/');
    const { client } = await loggedInClient(ctx);
    assert.equal((await client.get('/')).location, '/dashboard/');
  });

  test('public paths: login, healthz and static assets', async () => {
    const anon = new TestClient(ctx.app);
    assert.equal((await anon.get('/users/login/')).status, 200);
    const health = await anon.get('/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.body, 'ok');
    const css = await anon.get('/static/app.css');
    assert.equal(css.status, 200);
    assert.match(String(css.headers['content-type']), /text\/css/);
    // Browsers ask for it on their own: an icon, not a 404 in their console.
    const icon = await anon.get('/favicon.ico');
    assert.equal(icon.status, 200);
    assert.equal(icon.headers['content-type'], 'image/x-icon');
  });

  test('the setup page answers 404 once a user exists, and without the right token', async () => {
    const anon = new TestClient(ctx.app);
    assert.equal((await anon.get('/users/setup/?token=cualquiera')).status, 404);
  });
});

describe('the site frame', () => {
  test('the layout has the navigation, the user name and a logout button', async () => {
    const { client, user } = await loggedInClient(ctx);
    const res = await client.get('/dashboard/');
    for (const label of ['Pacientes', 'Seguimiento', 'Exámenes', 'Dashboard', 'Cerrar sesión', user.username]) {
      assert.ok(res.body.includes(label), label);
    }
  });

  test('unknown paths: 404 page in the layout', async () => {
    const { client } = await loggedInClient(ctx);
    const res = await client.get('/no/existe/');
    assert.equal(res.status, 404);
    assert.match(res.body, /Página no encontrada/);
    assert.match(res.body, /Cerrar sesión/);
  });

  test('wrong method on a known path: 405 page with Allow', async () => {
    const { client } = await loggedInClient(ctx);
    const res = await client.post('/dashboard/');
    assert.equal(res.status, 405);
    assert.match(String(res.headers.allow), /GET/);
    assert.match(res.body, /Método no permitido/);
  });

  test('bodies over 1 MB: 413 page', async () => {
    const { client } = await loggedInClient(ctx);
    const res = await client.post('/users/password/', { old_password: 'x'.repeat(1_100_000) });
    assert.equal(res.status, 413);
    assert.match(res.body, /demasiado grande/);
  });

  test('JSON bodies are refused without a 500', async () => {
    const { client } = await loggedInClient(ctx);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/users/password/',
      headers: { cookie: `sessionid=${client.cookies.get('sessionid')}`, 'content-type': 'application/json' },
      payload: '{"a":1}',
    });
    assert.equal(res.statusCode, 415);
  });

  test('bodies that are not valid UTF-8 get a 400 page that says so, and change nothing', async () => {
    const { client, user } = await loggedInClient(ctx);
    const before = await ctx.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    const token = encodeURIComponent(client.csrfToken!);
    const bodies: (string | Buffer)[] = [
      `csrfmiddlewaretoken=${token}&old_password=${TEST_PASSWORD}&new_password1=clave%C3%28nueva-larga-1&new_password2=clave%C3%28nueva-larga-1`,
      Buffer.concat([Buffer.from(`csrfmiddlewaretoken=${token}&old_password=${TEST_PASSWORD}&new_password1=`), Buffer.from([0xff, 0xfe]), Buffer.from('&new_password2=x')]),
      `csrfmiddlewaretoken=${token}&old_password=%`,
    ];
    for (const payload of bodies) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/users/password/',
        headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /UTF-8/);
    }
    const after = await ctx.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(after.password_hash, before.password_hash);
  });

  test('pages carry no-store and the security headers', async () => {
    const { client } = await loggedInClient(ctx);
    const res = await client.get('/dashboard/');
    assert.equal(res.headers['cache-control'], 'no-store');
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.ok(res.headers['referrer-policy']);
    assert.equal(res.headers['strict-transport-security'], undefined, 'no HSTS outside production');
  });
});

describe('one-time messages', () => {
  test('appear once, with level and role', async () => {
    const { client } = await loggedInClient(ctx);
    const res = await client.post('/users/sessions/end-others/');
    const first = await client.follow(res);
    assert.match(first.body, /data-message-level="success" role="status"/);
    const second = await client.get(res.location!);
    assert.deepEqual(messagesIn(second.body), []);
  });
});

describe('/users/password/', () => {
  test('changes the password after checking the current one and the rules', async () => {
    const { client, user } = await loggedInClient(ctx);
    const weak = await client.post('/users/password/', { old_password: user.password, new_password1: 'corta', new_password2: 'corta' });
    assert.equal(weak.status, 200);
    assert.match(weak.body, /al menos 12 caracteres/);
    assert.match(weak.body, /aria-invalid="true"/);
    const wrongOld = await client.post('/users/password/', { old_password: 'no-es-esta-clave', new_password1: 'otra-clave-bien-larga', new_password2: 'otra-clave-bien-larga' });
    assert.match(wrongOld.body, /contraseña actual no es correcta/);
    const ok = await client.post('/users/password/', { old_password: user.password, new_password1: 'otra-clave-bien-larga', new_password2: 'otra-clave-bien-larga' });
    assert.equal(ok.status, 302);
    const fresh = new TestClient(ctx.app);
    await login(fresh, user.username, 'otra-clave-bien-larga');
  });
});

describe('audit of logins', () => {
  test('login, failed login and logout are written to the audit trail', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await client.post('/users/login/', { username: user.username, password: 'clave-equivocada-x' });
    await login(client, user.username, user.password);
    await client.post('/users/logout/');
    const rows = await ctx.db.selectFrom('audit_log').select('action').where('entity_id', '=', user.id).where('entity_type', '=', 'user').orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => r.action),
      ['login_failed', 'login', 'logout'],
    );
  });

  test('the audit trail cannot be edited or deleted, even in SQL', async () => {
    await assert.rejects(ctx.db.deleteFrom('audit_log').execute());
    await assert.rejects(ctx.db.updateTable('audit_log').set({ action: 'x' }).execute());
  });
});

describe('configuration', () => {
  test('production refuses to start without SIGNING_SECRET, naming it', () => {
    assert.throws(() => loadConfig({ APP_ENV: 'production', ALLOWED_HOSTS: 'somno.example' }, '/nonexistent'), (err: unknown) => {
      return err instanceof ConfigError && /SIGNING_SECRET/.test(err.message);
    });
  });

  test('a bad value stops the start with a message naming the variable', () => {
    for (const [name, value] of [
      ['PORT', 'ochenta'],
      ['PORT', ''],
      ['PORT', '70000'],
      ['TIME_ZONE', 'Marte/Olympus'],
      ['DATABASE_URL', 'mysql://x'],
      ['SESSION_IDLE_MINUTES', '0'],
      ['APP_ENV', 'staging'],
      ['LOG_REQUESTS', 'quizás'],
    ] as const) {
      assert.throws(
        () => loadConfig({ APP_ENV: 'test', SIGNING_SECRET: 'x'.repeat(40), [name]: value }, '/nonexistent'),
        (err: unknown) => err instanceof ConfigError && err.message.includes(name),
        name,
      );
    }
  });

  test('production: unknown Host gets 400, Secure cookies, HSTS, foreign Origin refused', async () => {
    const config = loadConfig(
      {
        APP_ENV: 'production',
        SIGNING_SECRET: 's'.repeat(40),
        ALLOWED_HOSTS: 'somno.example.co',
        TRUSTED_ORIGINS: 'https://somno.example.co',
      },
      '/nonexistent',
    );
    const app = await buildApp({ config, db: ctx.db, engine: ctx.database.handle.engine, clock: ctx.clock, logger: false });
    try {
      const bad = await app.inject({ method: 'GET', url: '/users/login/', headers: { host: 'evil.example' } });
      assert.equal(bad.statusCode, 400);
      const good = await app.inject({ method: 'GET', url: '/users/login/', headers: { host: 'somno.example.co' } });
      assert.equal(good.statusCode, 200);
      assert.match(String(good.headers['strict-transport-security']), /max-age=/);
      const cookies = ([] as string[]).concat((good.headers['set-cookie'] as string[] | string) ?? []);
      assert.ok(cookies.length > 0 && cookies.every((c) => /;\s*Secure/i.test(c)), 'every cookie is Secure');
      const cross = await app.inject({
        method: 'POST',
        url: '/users/login/',
        headers: { host: 'somno.example.co', origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'username=a&password=b',
      });
      assert.equal(cross.statusCode, 403);
      assert.doesNotMatch(good.body, /at .*\.ts:\d+/);
    } finally {
      await app.close();
    }
  });
});

describe('CSRF for Django-style clients', () => {
  test('the csrftoken cookie echoed in X-CSRFToken is not a token: tokens are bound to the session', async () => {
    const { client } = await loggedInClient(ctx);
    const cookie = client.cookies.get('csrftoken')!;
    const refused = await client.post('/users/sessions/end-others/', {}, { csrf: false, headers: { 'x-csrftoken': cookie } });
    assert.equal(refused.status, 403);
    await client.get('/users/password/');
    const ok = await client.post('/users/sessions/end-others/', {}, { csrf: false, headers: { 'x-csrftoken': client.csrfToken! } });
    assert.equal(ok.status, 302);
  });
});

describe('request log', () => {
  const logged = async (env: Record<string, string>) => {
    let log = '';
    const stream = new Writable({
      write(chunk, _enc, cb) {
        log += String(chunk);
        cb();
      },
    });
    const ctx = await createTestContext({ env });
    const app = await buildApp({
      config: ctx.config,
      db: ctx.db,
      engine: ctx.database.handle.engine,
      clock: ctx.clock,
      logger: { ...(loggerOptions('production') as object), stream },
    });
    try {
      await app.inject('/healthz');
      await app.inject('/users/login/');
    } finally {
      await app.close();
      await ctx.close();
    }
    return log;
  };

  test('one line a request with LOG_REQUESTS=true, none by default', async () => {
    assert.equal((await logged({ LOG_REQUESTS: 'true' })).split('\n').filter((l) => l.includes('request completed')).length, 2);
    assert.doesNotMatch(await logged({}), /request completed/);
  });
});
