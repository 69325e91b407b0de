import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { createUserCommand } from '../src/cli/createuser.command.js';
import { countUsers, findUserByUsername } from '../src/users/user.repository.js';
import { createTestContext, createTestDatabase, login, messagesIn, TestClient, type TestContext, type TestDatabase } from './helpers.js';

describe('first run: /users/setup/', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ setupToken: 'token-de-prueba-123' });
  });
  after(async () => {
    await ctx.close();
  });

  test('a wrong or missing token answers 404', async () => {
    const anon = new TestClient(ctx.app);
    assert.equal((await anon.get('/users/setup/')).status, 404);
    assert.equal((await anon.get('/users/setup/?token=otro')).status, 404);
  });

  test('the printed link creates the first administrator, logs them in, then answers 404', async () => {
    const anon = new TestClient(ctx.app);
    const page = await anon.get('/users/setup/?token=token-de-prueba-123');
    assert.equal(page.status, 200);
    const weak = await anon.post('/users/setup/', { token: 'token-de-prueba-123', username: 'coordinadora', password: 'corta', password2: 'corta' });
    assert.equal(weak.status, 200);
    assert.match(weak.body, /al menos 12 caracteres/);
    assert.equal(await countUsers(ctx.db), 0);

    const res = await anon.post('/users/setup/', {
      token: 'token-de-prueba-123',
      username: 'coordinadora',
      password: 'una-clave-muy-larga',
      password2: 'una-clave-muy-larga',
    });
    assert.equal(res.status, 302);
    assert.equal(res.location, '/dashboard/');
    const dashboard = await anon.follow(res);
    assert.equal(dashboard.status, 200);
    assert.equal(messagesIn(dashboard.body)[0]?.level, 'success');
    const user = await findUserByUsername(ctx.db, 'coordinadora');
    assert.equal(user?.is_admin, 1);

    assert.equal((await new TestClient(ctx.app).get('/users/setup/?token=token-de-prueba-123')).status, 404);
    const again = await new TestClient(ctx.app).post('/users/setup/', {
      token: 'token-de-prueba-123',
      username: 'intrusa',
      password: 'una-clave-muy-larga',
      password2: 'una-clave-muy-larga',
    });
    assert.equal(again.status, 404);
    assert.equal(await countUsers(ctx.db), 1);
  });
});

describe('npm run createuser', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database.drop();
  });

  const run = async (args: string[], answers: string[] | null = null) => {
    const out: string[] = [];
    const err: string[] = [];
    const queue = [...(answers ?? [])];
    const status = await createUserCommand(args, {
      env: { DATABASE_URL: database.url, APP_ENV: 'test', SIGNING_SECRET: 'x'.repeat(40) },
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      prompt: answers ? async () => queue.shift() ?? '' : null,
    });
    return { status, stdout: out.join('\n'), stderr: err.join('\n') };
  };

  test('creates a user in the configured database', async () => {
    const r = await run(['--username', 'ana', '--password', 'una-clave-larga']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Usuario «ana» creado/);
    assert.equal((await findUserByUsername(database.handle.db, 'ana'))?.is_admin, 0);
  });

  test('--admin makes an administrator; without --password it asks twice, hidden', async () => {
    const r = await run(['--username', 'jefa', '--admin'], ['una-clave-larga', 'una-clave-larga']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal((await findUserByUsername(database.handle.db, 'jefa'))?.is_admin, 1);
    const mismatch = await run(['--username', 'jefa2'], ['una-clave-larga', 'otra-clave-larga']);
    assert.equal(mismatch.status, 1);
    assert.match(mismatch.stderr, /no coinciden/);
  });

  test('refuses a taken name, a weak password, one equal to the name, and bad flags, with exit code 1', async () => {
    const cases: [string[], RegExp][] = [
      [['--username', 'ANA', '--password', 'otra-clave-larga'], /ya existe/],
      [['--username', 'pedro', '--password', 'corta'], /al menos 12 caracteres/],
      [['--username', 'pedro-largo-1', '--password', 'PEDRO-LARGO-1'], /igual al nombre de usuario/],
      [['--username', 'pedro', '--password', 'x'.repeat(129)], /hasta 128/],
      [['--password', 'una-clave-larga'], /nombre de usuario/],
      [['--username', 'pedro', '--pasword', 'una-clave-larga'], /Uso: npm run createuser/],
      [['--username', 'pedro'], /Falta --password/],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      assert.equal(r.status, 1, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
    }
    assert.equal(await findUserByUsername(database.handle.db, 'pedro'), undefined);
  });
});

describe('login after createuser', () => {
  test('the real command (a child process) exits 0, and the user logs in through the form', async () => {
    const ctx = await createTestContext();
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/createuser.ts', '--username', 'ana', '--password', 'una-clave-larga'], {
        env: { ...process.env, DATABASE_URL: ctx.database.url, APP_ENV: 'test', SIGNING_SECRET: 'x'.repeat(40) },
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      const client = new TestClient(ctx.app);
      await login(client, 'ana', 'una-clave-larga');
      assert.equal((await client.get('/dashboard/')).status, 200);
    } finally {
      await ctx.close();
    }
  });
});
