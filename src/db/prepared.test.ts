import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, ENGINE, type TestDatabase } from '../../test/helpers.js';
import { createUser } from '../../test/helpers.js';
import type { Db, Executor } from './database.js';
import { precompiled } from './prepared.js';

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

  test('an argument that does not reach the statement as a parameter is refused', async () => {
    const unused = precompiled((q: Executor, _name: string) => q.selectFrom('users').select('id'));
    await assert.rejects(unused(db, 'ana'), /argument 0 is not a parameter/);
  });
});
