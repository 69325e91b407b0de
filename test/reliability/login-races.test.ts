// Issue 25, points 4 and 6: the login lock and the end of sessions hold under concurrency, on both engines.
// The application is built with its login's password check wrapped (the `checkPassword` option): to count the
// passwords checked, and to hold checked logins until a password change has committed, which forces the worst
// interleaving every time instead of hoping a race finds it. Nothing is timed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { verifyPassword } from '../../src/users/password.js';
import { createTestContext, createUser, login, TestClient, type TestContext } from '../helpers.js';
import { report } from './lib/context.js';

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext();
});
after(async () => ctx.close());

/** The application on the test's database and clock, with its login's password check replaced. */
async function appWith(checkPassword: (password: string, stored: string) => Promise<boolean>): Promise<FastifyInstance> {
  const app = await buildApp({
    config: ctx.config,
    db: ctx.db,
    engine: ctx.database.handle.engine,
    clock: ctx.clock,
    logger: false,
    loginAttemptsPerMinute: 100_000,
    checkPassword,
  });
  await app.ready();
  return app;
}

/** `n` browsers that have each loaded the login page (so their posts leave at once, each with its token). */
const browsers = (app: FastifyInstance, n: number): Promise<TestClient[]> =>
  Promise.all(
    Array.from({ length: n }, async () => {
      const client = new TestClient(app);
      await client.get('/users/login/');
      return client;
    }),
  );

const isLoggedIn = async (client: TestClient) => (await client.get('/dashboard/')).status === 200;

/** A promise and the function that resolves it. */
function latch(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('the login lock under concurrency (point 4)', () => {
  test('59 wrong passwords at once, then the right one: 5 passwords checked, 54 refused with 429, the right one refused', async () => {
    const checked: string[] = [];
    const fiveChecked = latch();
    const app = await appWith(async (password, stored) => {
      checked.push(password);
      if (checked.length === 5) fiveChecked.open();
      return verifyPassword(password, stored);
    });
    try {
      const user = await createUser(ctx.db);
      const clients = await browsers(app, 60);
      const wrong = clients.slice(0, 59).map((c, i) => c.post('/users/login/', { username: user.username, password: `clave-equivocada-${i}` }));
      // The right password leaves while the first attempts are being checked (or, without the lock, once all are).
      await Promise.race([fiveChecked.promise, Promise.all(wrong)]);
      const right = await clients[59]!.post('/users/login/', { username: user.username, password: user.password });
      const statuses = (await Promise.all(wrong)).map((r) => r.status);
      const count = (s: number) => statuses.filter((x) => x === s).length;
      report(`login lock: 60 simultaneous attempts on one name → ${checked.length} passwords checked, ${count(200)} × 200, ${count(429)} × 429, the right password → ${right.status}`);
      assert.equal(checked.length, 5, 'five passwords checked, whatever the parallelism');
      assert.deepEqual({ ok: count(200), locked: count(429) }, { ok: 5, locked: 54 });
      assert.equal(right.status, 429, 'the right password is refused while the name is locked');
      assert.match(right.body, /bloqueado durante 15 minutos/);
      assert.equal(await isLoggedIn(clients[59]!), false);
      const failed = await ctx.db.selectFrom('audit_log').select('id').where('action', '=', 'login_failed').where('entity_id', '=', user.id).execute();
      assert.equal(failed.length, 5, 'the trail shows the five failed logins');
      // The lock still lifts 15 minutes after the fifth failure.
      ctx.clock.advanceMinutes(15);
      assert.equal((await clients[59]!.post('/users/login/', { username: user.username, password: user.password })).status, 302);
      assert.equal(checked.length, 6);
    } finally {
      await app.close();
    }
  });

  test('60 wrong passwords at once on an unknown name: 5 checked (as many as for a real one), the others 429; other names unaffected', async () => {
    let checks = 0;
    const app = await appWith(async (password, stored) => {
      checks++;
      return verifyPassword(password, stored);
    });
    try {
      const bystander = await createUser(ctx.db);
      const clients = await browsers(app, 60);
      const name = `nadie${Date.now()}`;
      const statuses = (await Promise.all(clients.map((c, i) => c.post('/users/login/', { username: name, password: `clave-${i}` })))).map((r) => r.status);
      assert.equal(checks, 5);
      assert.deepEqual([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length], [5, 55]);
      const other = await browsers(app, 1);
      assert.equal((await other[0]!.post('/users/login/', { username: bystander.username, password: bystander.password })).status, 302);
    } finally {
      await app.close();
    }
  });
});

/** Rounds of five logins (the most the lock lets through at once); 8 rounds make the 40 logins of the report. */
const ROUNDS = 8;
const AT_ONCE = 5;
const passwordOf = (round: number) => `clave-de-la-ronda-${round}-larga`;

describe('sessions end with their password, whatever the order (point 6)', () => {
  for (const how of ['own change', 'administrator reset'] as const) {
    test(`${ROUNDS * AT_ONCE} logins racing a password change (${how}): no session of an old password stays valid`, async () => {
      let gate = latch();
      let arrived = 0;
      let allArrived = latch();
      const app = await appWith(async (password, stored) => {
        const ok = await verifyPassword(password, stored);
        if (++arrived === AT_ONCE) allArrived.open();
        await gate.promise;
        return ok;
      });
      try {
        const user = await createUser(ctx.db, { password: passwordOf(0) });
        const admin = await createUser(ctx.db, { isAdmin: true });
        const changer = new TestClient(app);
        gate.open();
        await login(changer, how === 'own change' ? user.username : admin.username, how === 'own change' ? passwordOf(0) : admin.password);
        let succeeded = 0;
        for (let round = 0; round < ROUNDS; round++) {
          [gate, allArrived, arrived] = [latch(), latch(), 0];
          const clients = await browsers(app, AT_ONCE);
          const logins = clients.map((c) => c.post('/users/login/', { username: user.username, password: passwordOf(round) }));
          // Even rounds: the five passwords are checked (right) and held until the change has committed, the
          // window a login must not slip through. Odd rounds: released as the change starts, a free race.
          await Promise.race([allArrived.promise, Promise.all(logins)]);
          if (round % 2 === 1) gate.open();
          const next = passwordOf(round + 1);
          const change =
            how === 'own change'
              ? await changer.post('/users/password/', { old_password: passwordOf(round), new_password1: next, new_password2: next })
              : await changer.post(`/users/${user.id}/password/`, { password: next, password2: next });
          assert.equal(change.status, 302, `the change of round ${round}`);
          gate.open();
          const answers = await Promise.all(logins);
          for (const [i, answer] of answers.entries()) {
            assert.ok(answer.status === 200 || answer.status === 302, `round ${round}, login ${i}: ${answer.status}`);
            if (answer.status === 302) succeeded++;
            assert.equal(await isLoggedIn(clients[i]!), false, `round ${round}, login ${i} (${answer.status}) still has a session of the old password`);
          }
          // Refused logins count as failures: the next round comes after the lock.
          ctx.clock.advanceMinutes(16);
        }
        const stale = await ctx.db
          .selectFrom('sessions')
          .innerJoin('users', 'users.id', 'sessions.user_id')
          .select('sessions.id_hash')
          .where('sessions.user_id', '=', user.id)
          .whereRef('sessions.password_generation', '<>', 'users.password_generation')
          .execute();
        assert.deepEqual(stale, [], 'no session row of an old password left');
        const open = await ctx.db.selectFrom('sessions').select('id_hash').where('user_id', '=', user.id).execute();
        assert.equal(open.length, how === 'own change' ? 1 : 0, 'only the session that changed its own password stays');
        assert.equal(await isLoggedIn(changer), true, 'the one who changed the password stays logged in');
        report(`sessions (${how}): ${ROUNDS * AT_ONCE} logins raced ${ROUNDS} changes; ${succeeded} answered 302 before their change, none left a valid session`);
      } finally {
        gate.open();
        await app.close();
      }
    });
  }

  test('a deactivation racing logins leaves no session, and a reactivation revives none', async () => {
    let gate = latch();
    let arrived = 0;
    const allArrived = latch();
    const app = await appWith(async (password, stored) => {
      const ok = await verifyPassword(password, stored);
      if (++arrived === AT_ONCE) allArrived.open();
      await gate.promise;
      return ok;
    });
    try {
      const user = await createUser(ctx.db);
      const admin = new TestClient(app);
      const adminUser = await createUser(ctx.db, { isAdmin: true });
      gate.open();
      await login(admin, adminUser.username, adminUser.password);
      [gate, arrived] = [latch(), 0];
      const clients = await browsers(app, AT_ONCE);
      const logins = clients.map((c) => c.post('/users/login/', { username: user.username, password: user.password }));
      await Promise.race([allArrived.promise, Promise.all(logins)]);
      assert.equal((await admin.post(`/users/${user.id}/deactivate/`)).status, 302);
      gate.open();
      await Promise.all(logins);
      assert.equal((await admin.post(`/users/${user.id}/reactivate/`)).status, 302);
      for (const c of clients) assert.equal(await isLoggedIn(c), false);
      ctx.clock.advanceMinutes(16);
    } finally {
      gate.open();
      await app.close();
    }
  });
});
