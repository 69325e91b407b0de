// Item 5: sessions and accounts. Fixation, logout and deactivation killing every copy of a cookie, idle and absolute
// expiry (TestClock), throttling per user name, password rules of the createuser CLI, and no user enumeration by
// message or by timing.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { hashPassword } from '../../src/users/password.js';
import { insertUser } from '../../src/users/user.repository.js';
import { createUser } from '../helpers.js';
import { Client, type Resp } from './lib/client.js';
import { createReliabilityContext, report, type ReliabilityContext } from './lib/context.js';

const run = promisify(execFile);
let ctx: ReliabilityContext;
const IDLE = 45;

before(async () => {
  ctx = await createReliabilityContext({ env: { SESSION_IDLE_MINUTES: String(IDLE) } });
});
after(async () => ctx.close());

/** A second browser holding a copy of the first one's cookies (a stolen or replayed cookie). */
function cloneOf(client: Client): Client {
  const copy = Client.inject(ctx.app);
  for (const [k, v] of client.cookies) copy.cookies.set(k, v);
  return copy;
}

const isLoginRedirect = (res: Resp) => res.status === 302 && (res.location ?? '').startsWith('/users/login/');

describe('sessions', () => {
  test('fixation: a session id planted before login is replaced, and the planted value stays dead', async () => {
    const user = await createUser(ctx.db);
    const client = Client.inject(ctx.app);
    const planted = randomBytes(32).toString('base64url');
    client.cookies.set('sessionid', planted);
    await client.login(user.username, user.password);
    const after = client.cookies.get('sessionid');
    assert.ok(after && after !== planted, 'the session id changed at login');
    const attacker = Client.inject(ctx.app);
    attacker.cookies.set('sessionid', planted);
    assert.ok(isLoginRedirect(await attacker.get('/dashboard/')), 'the planted id does not log anyone in');
    assert.equal((await client.get('/dashboard/')).status, 200);
  });

  test('fixation: logging in again ends the session the browser came with', async () => {
    const user = await createUser(ctx.db);
    const client = Client.inject(ctx.app);
    await client.login(user.username, user.password);
    const first = cloneOf(client);
    await client.login(user.username, user.password);
    assert.notEqual(client.cookies.get('sessionid'), first.cookies.get('sessionid'));
    assert.ok(isLoginRedirect(await first.get('/dashboard/')), 'the pre-login session is dead');
  });

  test('logout kills every copy of the cookie at once, and only that session', async () => {
    const user = await createUser(ctx.db);
    const client = Client.inject(ctx.app);
    await client.login(user.username, user.password);
    const copy = cloneOf(client);
    const otherDevice = Client.inject(ctx.app);
    await otherDevice.login(user.username, user.password);
    await client.get('/users/logout/');
    const res = await client.post('/users/logout/');
    assert.equal(res.status, 302);
    assert.equal(res.location, '/users/login/');
    assert.ok(isLoginRedirect(await client.get('/dashboard/')));
    assert.ok(isLoginRedirect(await copy.get('/dashboard/')), 'a replayed copy of the cookie is dead');
    assert.equal((await otherDevice.get('/dashboard/')).status, 200, 'other devices keep their own session');
  });

  test('ending the other sessions kills them and keeps the current one', async () => {
    const user = await createUser(ctx.db);
    const [a, b, c] = [Client.inject(ctx.app), Client.inject(ctx.app), Client.inject(ctx.app)];
    for (const x of [a, b, c]) await x.login(user.username, user.password);
    await a.get('/users/password/');
    assert.equal((await a.post('/users/sessions/end-others/')).status, 302);
    assert.equal((await a.get('/dashboard/')).status, 200);
    assert.ok(isLoginRedirect(await b.get('/dashboard/')));
    assert.ok(isLoginRedirect(await c.get('/dashboard/')));
  });

  test('deactivation kills every session of the user at once', async () => {
    const user = await createUser(ctx.db);
    const clients = [Client.inject(ctx.app), Client.inject(ctx.app), Client.inject(ctx.app)];
    for (const x of clients) await x.login(user.username, user.password);
    const copies = clients.map(cloneOf);
    await ctx.db.updateTable('users').set({ is_active: 0 }).where('id', '=', user.id).execute();
    for (const x of [...clients, ...copies]) assert.ok(isLoginRedirect(await x.get('/dashboard/')));
    // And the deactivated user cannot log in again, with the same generic message.
    const again = Client.inject(ctx.app);
    await again.get('/users/login/');
    const res = await again.post('/users/login/', { username: user.username, password: user.password });
    assert.equal(res.status, 200);
    assert.match(res.body, /Usuario o contraseña incorrectos/);
  });

  test(`idle expiry after SESSION_IDLE_MINUTES (${IDLE}) without a request, with a message`, async () => {
    const user = await createUser(ctx.db);
    const client = Client.inject(ctx.app);
    await client.login(user.username, user.password);
    ctx.clock.advanceMinutes(IDLE - 1);
    assert.equal((await client.get('/dashboard/')).status, 200, 'still valid one minute before the limit (and touched)');
    ctx.clock.advanceMinutes(IDLE - 1);
    assert.equal((await client.get('/dashboard/')).status, 200, 'activity keeps it alive');
    ctx.clock.advanceMinutes(IDLE);
    const res = await client.get('/dashboard/');
    assert.ok(isLoginRedirect(res), 'ended after the idle limit');
    const page = await client.follow(res);
    assert.match(page.body, /Su sesión terminó por inactividad o por tiempo/);
  });

  test('absolute expiry after 12 hours, however active the session', async () => {
    const user = await createUser(ctx.db);
    const client = Client.inject(ctx.app);
    await client.login(user.username, user.password);
    let minutes = 0;
    while (minutes + IDLE - 1 < 12 * 60) {
      ctx.clock.advanceMinutes(IDLE - 1);
      minutes += IDLE - 1;
      assert.equal((await client.get('/dashboard/')).status, 200, `still valid after ${minutes} minutes of activity`);
    }
    ctx.clock.advanceMinutes(12 * 60 - minutes);
    assert.ok(isLoginRedirect(await client.get('/dashboard/')), 'ended at 12 hours');
    report(`absolute expiry: a session kept active every ${IDLE - 1} minutes lived ${minutes} minutes and ended at 720`);
  });
});

describe('accounts', () => {
  const attempt = async (username: string, password: string) => {
    const client = Client.inject(ctx.app);
    await client.get('/users/login/');
    return client.post('/users/login/', { username, password });
  };

  test('5 failures lock that user name for 15 minutes, even with the right password; other names are unaffected', async () => {
    const victim = await createUser(ctx.db);
    const bystander = await createUser(ctx.db);
    for (let i = 1; i <= 5; i++) {
      const res = await attempt(victim.username, `wrong-password-${i}`);
      assert.equal(res.status, 200, `failure ${i} gets the form with the generic error (decisions §2)`);
    }
    const locked = await attempt(victim.username, victim.password);
    assert.equal(locked.status, 429, 'the right password is refused while locked');
    assert.match(locked.body, /Demasiados intentos fallidos/);
    assert.match(locked.body, /15 minutos/);
    assert.equal((await attempt(victim.username.toUpperCase(), victim.password)).status, 429, 'the lock ignores case');
    assert.equal((await attempt(bystander.username, bystander.password)).status, 302, 'another user name still logs in');
    ctx.clock.advanceMinutes(14);
    assert.equal((await attempt(victim.username, victim.password)).status, 429, 'still locked after 14 minutes');
    ctx.clock.advanceMinutes(1);
    assert.equal((await attempt(victim.username, victim.password)).status, 302, 'lifted after 15 minutes');
  });

  test('no enumeration by message: unknown user and wrong password get the same page', async () => {
    const user = await createUser(ctx.db);
    const normalise = (r: Resp) => r.body.replace(/value="[^"]*"/g, 'value=""').replace(/[0-9a-f-]{36}/g, 'ID');
    const wrong = await attempt(user.username, 'not-the-password-1');
    const unknown = await attempt(`nadie${user.username}`, 'not-the-password-1');
    assert.equal(wrong.status, unknown.status);
    assert.equal(normalise(wrong), normalise(unknown));
    const inactive = await createUser(ctx.db);
    await ctx.db.updateTable('users').set({ is_active: 0 }).where('id', '=', inactive.id).execute();
    assert.equal(normalise(await attempt(inactive.username, inactive.password)), normalise(unknown), 'an inactive user is not told apart either');
  });

  test('no enumeration by timing: an unknown user costs about as much as a wrong password (same work)', async () => {
    const tries = 10;
    // One hash for all: the accounts differ only by name (hashing each would cost more than the measurement).
    const passwordHash = await hashPassword('the-real-password-of-all');
    const stamp = Date.now().toString(36);
    const users = await Promise.all(
      Array.from({ length: tries }, async (_, i) => ({ username: `tiempo${stamp}${i}`, id: await insertUser(ctx.db, { username: `tiempo${stamp}${i}`, passwordHash, isAdmin: false, now: new Date().toISOString() }) })),
    );
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const time = async (username: string) => {
      const client = Client.inject(ctx.app);
      await client.get('/users/login/');
      const t0 = process.hrtime.bigint();
      const res = await client.post('/users/login/', { username, password: 'not-the-password-1' });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      assert.equal(res.status, 200);
      return ms;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    // Interleaved, one try per user name (no lock), so load spikes hit both series alike.
    for (let i = 0; i < tries; i++) {
      known.push(await time(users[i]!.username));
      unknown.push(await time(`desconocido${i}x${users[i]!.username}`));
    }
    const [k, u] = [median(known), median(unknown)];
    report(`login timing over ${tries} tries each: wrong password median ${k.toFixed(1)} ms, unknown user median ${u.toFixed(1)} ms (ratio ${(u / k).toFixed(2)})`);
    assert.ok(u > k / 3 && u < k * 3, `unknown user ${u.toFixed(1)} ms vs wrong password ${k.toFixed(1)} ms: not the same work`);
  });

  describe('createuser CLI password rules', () => {
    const createuser = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/createuser.ts', ...args], {
          env: { ...process.env, DATABASE_URL: ctx.database.url, SIGNING_SECRET: 'x'.repeat(40), APP_ENV: 'test' },
          timeout: 60_000,
        });
        return { code: 0, out: stdout + stderr };
      } catch (err) {
        const e = err as { code?: number; stdout?: string; stderr?: string };
        return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
      }
    };

    test('exit codes and messages: weak, equal to the name, over 128, taken (any case), and the limits that pass', async () => {
      const name = `cli${randomBytes(4).toString('hex')}`;
      const cases = [
        { args: ['--username', `${name}a`, '--password', 'corta'], code: 1, out: /al menos 12 caracteres/ },
        { args: ['--username', `${name}lonname1`, '--password', `${name}LONNAME1`], code: 1, out: /no puede ser igual al nombre de usuario/ },
        { args: ['--username', `${name}c`, '--password', 'x'.repeat(129)], code: 1, out: /hasta 128 caracteres/ },
        { args: ['--username', `${name}d`], code: 1, out: /Falta --password/ },
        { args: ['--username', `${name}e`, '--password', 'x'.repeat(128)], code: 0, out: /creado/ },
      ];
      const results = await Promise.all(cases.map((c) => createuser(...c.args)));
      cases.forEach((c, i) => {
        assert.equal(results[i]!.code, c.code, `${c.args.join(' ')} → ${results[i]!.out}`);
        assert.match(results[i]!.out, c.out, c.args.join(' '));
      });
      // Taken, in another case: refused with its message, and no second row.
      const taken = await createuser('--username', `${name}E`.toUpperCase(), '--password', 'otra-clave-larga-1');
      assert.equal(taken.code, 1);
      assert.match(taken.out, /ya existe/);
      const rows = await ctx.db.selectFrom('users').select('id').where('username_key', '=', `${name}e`).execute();
      assert.equal(rows.length, 1);
      report(`createuser: ${cases.length + 1} invocations, exit codes and messages as decided`);
    });
  });
});
