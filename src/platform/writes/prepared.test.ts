import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, ENGINE, type TestDatabase } from '../../../test/helpers.js';
import { createUser } from '../../../test/helpers.js';
import type { Db, Executor } from '../../db/database.js';
import { sql } from 'kysely';
import { insertRow, insertRowReturningId, precompiled, type CheckingPlugin } from './prepared.js';

let tdb: TestDatabase;
let db: Db;

before(async () => {
  tdb = await createTestDatabase();
  db = tdb.handle.db;
});
after(async () => tdb.drop());

describe(`precompiled statements (engine=${ENGINE})`, () => {
  const usersNamed = precompiled((q: Executor, username: string, active: number) =>
    q.selectFrom('users').select(['id', 'username']).where('username', '=', username).where('is_active', '=', active).where('is_admin', '=', 0),
  );

  test('each call runs with its own arguments, constants kept, inside transactions too', async () => {
    const ana = await createUser(db, { username: 'ana.prep' });
    const luis = await createUser(db, { username: 'luis.prep' });
    assert.deepEqual(await usersNamed(db, 'ana.prep', 1), [{ id: ana.id, username: 'ana.prep' }]);
    assert.deepEqual(await usersNamed(db, 'luis.prep', 1), [{ id: luis.id, username: 'luis.prep' }]);
    assert.deepEqual(await usersNamed(db, 'luis.prep', 0), []);
    assert.deepEqual(await usersNamed(db, "x' or '1'='1", 1), [], 'arguments are parameters, never SQL');
    const inside = await db.transaction().execute((trx) => usersNamed(trx, 'ana.prep', 1));
    assert.deepEqual(inside, [{ id: ana.id, username: 'ana.prep' }]);
  });

  test('under a plugin that only checks, the statement is shown to it once, and what it refuses stays refused', async () => {
    const seen: string[] = [];
    const check = (refuse: boolean): CheckingPlugin => ({
      checksOnly: true,
      transformQuery: (args) => {
        seen.push(args.node.kind);
        if (refuse) throw new Error('refused by the check');
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const ana = await createUser(db, { username: 'ana.check' });
    const allowing = db.withPlugin(check(false));
    assert.deepEqual(await usersNamed(allowing, 'ana.check', 1), [{ id: ana.id, username: 'ana.check' }]);
    assert.deepEqual(await usersNamed(allowing, 'nadie.check', 1), []);
    assert.deepEqual(seen, ['SelectQueryNode'], 'checked once, on the first call');
    const refusing = db.withPlugin(check(true));
    await assert.rejects(usersNamed(refusing, 'ana.check', 1), /refused by the check/);
    await assert.rejects(usersNamed(refusing, 'ana.check', 1), /refused by the check/);
  });

  test('an argument that does not reach the statement as a parameter is refused', async () => {
    const unused = precompiled((q: Executor, _name: string) => q.selectFrom('users').select('id'));
    await assert.rejects(unused(db, 'ana'), /argument 0 is not a parameter/);
  });
});

describe(`inserts compiled once (engine=${ENGINE})`, () => {
  const user = (username: string, lastLogin?: string | null) => ({
    username,
    username_key: username,
    password_hash: 'x',
    is_admin: 0,
    is_active: 1,
    created_at: '2026-11-26T10:00:00.000Z',
    ...(lastLogin === undefined ? {} : { last_login_at: lastLogin }),
  });
  const stored = (id: number) => db.selectFrom('users').select(['username', 'last_login_at']).where('id', '=', id).executeTakeFirstOrThrow();

  test('each row is stored with its own values, whichever columns it names, inside transactions too', async () => {
    const a = await insertRowReturningId(db, 'users', user('ins.a'));
    const b = await insertRowReturningId(db, 'users', user('ins.b', '2026-11-26T11:00:00.000Z'));
    const c = await insertRowReturningId(db, 'users', user('ins.c'));
    const d = await db.transaction().execute((trx) => insertRowReturningId(trx, 'users', user('ins.d', null)));
    assert.equal(new Set([a, b, c, d]).size, 4, 'each insert answers its own new id');
    assert.deepEqual(await stored(a), { username: 'ins.a', last_login_at: null });
    assert.deepEqual(await stored(b), { username: 'ins.b', last_login_at: '2026-11-26T11:00:00.000Z' });
    assert.deepEqual(await stored(c), { username: 'ins.c', last_login_at: null });
    assert.deepEqual(await stored(d), { username: 'ins.d', last_login_at: null });
    // The same columns in another order are another statement, bound in that order.
    const { username, ...rest } = user('ins.e');
    const e = await insertRowReturningId(db, 'users', { ...rest, username });
    assert.deepEqual(await stored(e), { username: 'ins.e', last_login_at: null });
    await insertRow(db, 'login_failures', { username_key: "ins.f' or '1'='1", at: '2026-11-26T12:00:00.000Z' });
    const failures = await db.selectFrom('login_failures').select('username_key').where('at', '=', '2026-11-26T12:00:00.000Z').execute();
    assert.deepEqual(failures, [{ username_key: "ins.f' or '1'='1" }], 'values are parameters, never SQL');
  });

  test('a row with an expression for a value is built by Kysely each time, the expression in the statement', async () => {
    for (const day of ['2026-11-27', '2026-11-28']) {
      await insertRow(db, 'login_failures', { username_key: 'ins.g', at: sql<string>`${sql.lit(day)} || 'T00:00:00.000Z'` as unknown as string });
    }
    const rows = await db.selectFrom('login_failures').select('at').where('username_key', '=', 'ins.g').orderBy('id').execute();
    assert.deepEqual(rows, [{ at: '2026-11-27T00:00:00.000Z' }, { at: '2026-11-28T00:00:00.000Z' }]);
  });
});
