import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createTestContext,
  createUser,
  login,
  loggedInClient,
  messagesIn,
  TestClient,
  type TestContext,
} from '../../test/helpers.js';

const NEW_PASSWORD = 'otra-clave-bastante-larga';

describe('user administration (/users/)', () => {
  let ctx: TestContext;
  let admin: TestClient;
  let adminId: number;

  before(async () => {
    ctx = await createTestContext();
    const a = await loggedInClient(ctx, { isAdmin: true });
    admin = a.client;
    adminId = a.user.id;
  });
  after(async () => ctx.close());

  const lastAudit = (action: string) =>
    ctx.db.selectFrom('audit_log').selectAll().where('action', '=', action).orderBy('id', 'desc').executeTakeFirstOrThrow();

  test('non-administrators get 403 in the layout on every administrator page', async () => {
    const { client } = await loggedInClient(ctx);
    const target = await createUser(ctx.db);
    for (const url of ['/users/', `/users/${target.id}/`, '/users/audit/', '/users/audit/export.csv', '/users/export.csv']) {
      const res = await client.get(url);
      assert.equal(res.status, 403, url);
      assert.match(res.body, /Esta sección es solo para administradores/);
      assert.match(res.body, /<nav aria-label="Principal">/);
    }
    for (const url of ['/users/create/', `/users/${target.id}/deactivate/`, `/users/${target.id}/password/`]) {
      const res = await client.post(url, url.endsWith('create/') ? { username: 'intruso', password: NEW_PASSWORD, password2: NEW_PASSWORD } : {});
      assert.equal(res.status, 403, url);
    }
    assert.equal(await ctx.db.selectFrom('users').select('id').where('username_key', '=', 'intruso').executeTakeFirst(), undefined);
    const row = await ctx.db.selectFrom('users').select('is_active').where('id', '=', target.id).executeTakeFirstOrThrow();
    assert.equal(row.is_active, 1);
  });

  test('the list shows users with admin flag, state and last login', async () => {
    const other = await createUser(ctx.db);
    const res = await admin.get('/users/');
    assert.equal(res.status, 200);
    assert.match(res.body, new RegExp(`data-user-id="${other.id}" data-active="true"`));
    assert.match(res.body, new RegExp(`data-user-id="${adminId}" data-active="true"[^]*?<td data-label="Administrador">Sí</td>`));
    assert.match(res.body, /Último ingreso/);
  });

  test('create a user with the command-line rules, audited', async () => {
    const weak = await admin.post('/users/create/', { username: 'enfermera1', password: 'corta', password2: 'corta' });
    assert.equal(weak.status, 200);
    assert.match(weak.body, /aria-invalid="true"/);
    assert.match(weak.body, /al menos 12 caracteres/);
    assert.match(weak.body, /value="enfermera1"/);

    const same = await admin.post('/users/create/', { username: 'enfermera1', password: 'ENFERMERA1', password2: 'ENFERMERA1' });
    assert.equal(same.status, 200);

    const mismatch = await admin.post('/users/create/', { username: 'enfermera1', password: NEW_PASSWORD, password2: NEW_PASSWORD + 'x' });
    assert.match(mismatch.body, /Las contraseñas no coinciden/);

    const badName = await admin.post('/users/create/', { username: 'con espacio', password: NEW_PASSWORD, password2: NEW_PASSWORD });
    assert.match(badName.body, /sin espacios/);
    assert.equal(await ctx.db.selectFrom('users').select('id').where('username_key', '=', 'enfermera1').executeTakeFirst(), undefined);

    const ok = await admin.post('/users/create/', { username: 'Enfermera1', password: NEW_PASSWORD, password2: NEW_PASSWORD, is_admin: '1' });
    assert.equal(ok.status, 302);
    assert.equal(ok.location, '/users/');
    const page = await admin.follow(ok);
    assert.deepEqual(messagesIn(page.body), [{ level: 'success', text: 'Se creó el usuario Enfermera1.' }]);
    const created = await ctx.db.selectFrom('users').selectAll().where('username_key', '=', 'enfermera1').executeTakeFirstOrThrow();
    assert.equal(created.is_admin, 1);
    assert.notEqual(created.password_hash, NEW_PASSWORD);
    const entry = await lastAudit('user.create');
    assert.equal(entry.entity_id, created.id);
    assert.equal(entry.user_id, adminId);
    assert.deepEqual(JSON.parse(entry.changes!), { username: [null, 'Enfermera1'], is_admin: [null, true], is_active: [null, true] });

    const taken = await admin.post('/users/create/', { username: 'ENFERMERA1', password: NEW_PASSWORD, password2: NEW_PASSWORD });
    assert.equal(taken.status, 200);
    assert.match(taken.body, /Ese nombre de usuario ya existe/);

    const fresh = new TestClient(ctx.app);
    await login(fresh, 'enfermera1', NEW_PASSWORD);
    assert.equal((await fresh.get('/users/')).status, 200);
  });

  test("deactivation ends the user's sessions at once and login is refused; reactivation restores it", async () => {
    const { client: victim, user } = await loggedInClient(ctx);
    assert.equal((await victim.get('/dashboard/')).status, 200);

    const res = await admin.post(`/users/${user.id}/deactivate/`);
    assert.equal(res.status, 302);
    assert.equal(res.location, `/users/${user.id}/`);
    assert.equal(messagesIn((await admin.follow(res)).body)[0]?.level, 'success');
    const sessions = await ctx.db.selectFrom('sessions').select('id_hash').where('user_id', '=', user.id).execute();
    assert.equal(sessions.length, 0);

    const after = await victim.get('/dashboard/');
    assert.equal(after.status, 302);
    assert.match(after.location!, /^\/users\/login\//);

    const again = new TestClient(ctx.app);
    await again.get('/users/login/');
    const refused = await again.post('/users/login/', { username: user.username, password: user.password });
    assert.equal(refused.status, 200);
    assert.match(refused.body, /Usuario o contraseña incorrectos/);

    const entry = await lastAudit('user.deactivate');
    assert.equal(entry.entity_id, user.id);
    assert.deepEqual(JSON.parse(entry.changes!), { is_active: [true, false] });

    const twice = await admin.post(`/users/${user.id}/deactivate/`);
    assert.equal(messagesIn((await admin.follow(twice)).body)[0]?.level, 'info');

    const back = await admin.post(`/users/${user.id}/reactivate/`);
    assert.equal(back.status, 302);
    assert.equal(messagesIn((await admin.follow(back)).body)[0]?.text, `El usuario ${user.username} fue reactivado.`);
    assert.deepEqual(JSON.parse((await lastAudit('user.reactivate')).changes!), { is_active: [false, true] });
    await login(again, user.username, user.password);
    assert.equal((await again.get('/dashboard/')).status, 200);
  });

  test('an administrator cannot deactivate themself', async () => {
    const res = await admin.post(`/users/${adminId}/deactivate/`);
    assert.equal(res.status, 302);
    const page = await admin.follow(res);
    assert.deepEqual(messagesIn(page.body), [{ level: 'error', text: 'No puede desactivar su propia cuenta. Pida a otro administrador que lo haga.' }]);
    const row = await ctx.db.selectFrom('users').select('is_active').where('id', '=', adminId).executeTakeFirstOrThrow();
    assert.equal(row.is_active, 1);
    assert.equal((await admin.get('/users/')).status, 200);
  });

  test("password reset sets the new password and ends the user's sessions, audited without the password", async () => {
    const { client: victim, user } = await loggedInClient(ctx);
    const weak = await admin.post(`/users/${user.id}/password/`, { password: 'corta', password2: 'corta' });
    assert.equal(weak.status, 200);
    assert.match(weak.body, /al menos 12 caracteres/);

    const res = await admin.post(`/users/${user.id}/password/`, { password: NEW_PASSWORD, password2: NEW_PASSWORD });
    assert.equal(res.status, 302);
    assert.equal((await victim.get('/dashboard/')).status, 302);
    const entry = await lastAudit('user.password_reset');
    assert.equal(entry.entity_id, user.id);
    assert.doesNotMatch(entry.changes ?? '', new RegExp(NEW_PASSWORD));

    const fresh = new TestClient(ctx.app);
    await login(fresh, user.username, NEW_PASSWORD);
    assert.equal((await fresh.get('/dashboard/')).status, 200);
  });

  test('unknown or non-numeric user ids: 404', async () => {
    for (const url of ['/users/999999/', '/users/abc/', '/users/0/']) {
      assert.equal((await admin.get(url)).status, 404, url);
    }
    for (const url of ['/users/999999/deactivate/', '/users/999999/reactivate/', '/users/999999/password/', '/users/x/deactivate/']) {
      assert.equal((await admin.post(url, { password: NEW_PASSWORD, password2: NEW_PASSWORD })).status, 404, url);
    }
  });
});
