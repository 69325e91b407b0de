// The users' actions without HTTP (issue 26), on a real database (both engines).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, createUser as insertTestUser, ENGINE, TestClock, type TestDatabase } from '../../test/helpers.js';
import type { ActionContext } from '../platform/writes/action-context.js';
import { changeUserActive, createUser, logIn, USER_MSG } from './user.actions.js';

let database: TestDatabase;
let ctx: ActionContext;

before(async () => {
  database = await createTestDatabase();
  const admin = await insertTestUser(database.handle.db, { isAdmin: true });
  ctx = { db: database.handle.db, clock: new TestClock(), timeZone: 'America/Bogota', actor: { id: admin.id, username: admin.username }, requestId: 'req-user' };
});
after(async () => database.drop());

const auditOf = (action: string, entityId: number) =>
  database.handle.db.selectFrom('audit_log').selectAll().where('action', '=', action).where('entity_id', '=', entityId).execute();

describe(`user actions on ${ENGINE}`, () => {
  test('creating a user writes its user.create entry; the same name in another case is refused beside the field', async () => {
    const created = await createUser(ctx, { username: 'Marta.Ruiz', password: 'una-clave-muy-larga-1', isAdmin: false, origin: 'admin' });
    assert.ok(created.ok);
    const [entry] = await auditOf('user.create', created.id);
    assert.equal(entry!.user_id, ctx.actor!.id);
    assert.deepEqual(JSON.parse(entry!.changes!), { username: [null, 'Marta.Ruiz'], is_admin: [null, false], is_active: [null, true] });
    const again = await createUser(ctx, { username: 'marta.ruiz', password: 'una-clave-muy-larga-2', isAdmin: false, origin: 'admin' });
    assert.deepEqual(again, { ok: false, errors: { username: USER_MSG.taken } });
  });

  test('deactivating ends the account’s logins; an administrator cannot deactivate their own', async () => {
    const user = await insertTestUser(database.handle.db);
    const message = await changeUserActive(ctx, { userId: user.id, active: false });
    assert.deepEqual(message, { level: 'success', text: USER_MSG.deactivated(user.username) });
    assert.equal((await auditOf('user.deactivate', user.id)).length, 1);
    const open = async (): Promise<string> => assert.fail('no session for an inactive user');
    assert.deepEqual(await logIn(ctx, { username: user.username, password: user.password, openSession: open }), { kind: 'refused' });
    assert.deepEqual(await changeUserActive(ctx, { userId: ctx.actor!.id, active: false }), { level: 'error', text: USER_MSG.notSelf });
    assert.equal(await changeUserActive(ctx, { userId: 999_999, active: true }), null);
  });

  test('a login with the right password opens the session in its transaction and writes login', async () => {
    const user = await insertTestUser(database.handle.db);
    const opened: number[] = [];
    const open = async (_trx: unknown, u: { id: number }) => {
      opened.push(u.id);
      return `sesión de ${u.id}`;
    };
    const result = await logIn({ ...ctx, actor: null }, { username: user.username, password: user.password, openSession: open });
    assert.deepEqual(result, { kind: 'accepted', user: { id: user.id, username: user.username }, session: `sesión de ${user.id}` });
    assert.deepEqual(opened, [user.id]);
    assert.equal((await auditOf('login', user.id)).length, 1);
  });
});
