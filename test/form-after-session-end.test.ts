// Issue 29, point 2: sessions that respect work. «Seguir trabajando» renews the session without leaving the page,
// and a form posted after its session ended is kept for that user only, brought back filled on its page after
// they log in again, and nothing of it is saved until they send it again (decisions 0110, 0111).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newPatientForm } from './fixtures/patient.fixtures.js';
import { createTestContext, createUser, decodeEntities, login, loggedInClient, messagesIn, TestClient, type TestContext } from './helpers.js';

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext({ env: { SESSION_IDLE_MINUTES: '20' } });
});
after(async () => ctx.close());

const patientForm = (documento: string) => newPatientForm({ tipo_documento: 'CC', documento });

const restoredFields = (html: string): [string, string][] | null => {
  const m = /<div id="restored-form" hidden data-action="([^"]*)" data-fields="([^"]*)"/.exec(html);
  return m ? (JSON.parse(decodeEntities(m[2]!)) as [string, string][]) : null;
};
const patientsWith = (documento: string) => ctx.db.selectFrom('patients').select('id').where('documento', '=', documento).execute();

describe('«Seguir trabajando»', () => {
  test('renews the session without leaving the page; without it the session ends', async () => {
    const { client } = await loggedInClient(ctx);
    await client.get('/patients/');
    ctx.clock.advanceMinutes(18);
    const renewed = await client.post('/users/session/renew/', {}, { headers: { origin: 'http://localhost' } });
    assert.equal(renewed.status, 204);
    ctx.clock.advanceMinutes(18); // 36 minutes since the page, 18 since the renewal
    assert.equal((await client.get('/patients/')).status, 200);
    ctx.clock.advanceMinutes(21);
    const gone = await client.get('/patients/');
    assert.equal(gone.status, 302);
    assert.match(gone.location ?? '', /^\/users\/login\//);
  });

  test('a renewal without the CSRF token is refused', async () => {
    const { client } = await loggedInClient(ctx);
    const res = await client.post('/users/session/renew/', {}, { csrf: false });
    assert.equal(res.status, 403);
  });
});

describe('a form posted after its session ended', () => {
  test('is not saved, and comes back filled on its page after the same user logs in again', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await login(client, user.username, user.password);
    await client.get('/patients/create/');
    ctx.clock.advanceMinutes(25);
    const form = patientForm('52998877');
    const posted = await client.post('/patients/create/', form, { headers: { referer: 'http://localhost/patients/create/' } });
    assert.equal(posted.status, 302);
    assert.equal(posted.location, '/users/login/?next=/patients/create/');
    assert.deepEqual(await patientsWith('52998877'), [], 'nothing saved');
    const loginPage = await client.follow(posted);
    assert.match(messagesIn(loginPage.body).map((m) => m.text).join(' '), /No se guardó nada: inicie sesión de nuevo y el formulario volverá/);

    const back = await client.post('/users/login/?next=/patients/create/', { username: user.username, password: user.password });
    assert.equal(back.status, 302, messagesIn(back.body).map((m) => m.text).join() + back.body.slice(0, 3000));
    assert.equal(back.location, '/patients/create/');
    const page = await client.follow(back);
    assert.equal(page.status, 200);
    assert.match(messagesIn(page.body).map((m) => m.text).join(' '), /Aún no se ha guardado: revíselo y envíelo de nuevo/);
    const fields = restoredFields(page.body);
    assert.ok(fields, 'the page carries the kept form');
    assert.deepEqual(Object.fromEntries(fields), form);
    assert.match(page.body, /data-action="\/patients\/create\/"/);
    assert.deepEqual(await patientsWith('52998877'), [], 'still nothing saved');

    // Brought back once: the next visit shows an empty form.
    assert.equal(restoredFields((await client.get('/patients/create/')).body), null);
    // Sent again, it is saved.
    const saved = await client.post('/patients/create/', form);
    assert.equal(saved.status, 302, [...saved.body.matchAll(/class="field-error"[^>]*>([^<]*)/g)].map((m) => m[1]).join(' | '));
    assert.equal((await patientsWith('52998877')).length, 1);
  });

  test('is never shown to another account logging in on that browser', async () => {
    const owner = await createUser(ctx.db);
    const other = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await login(client, owner.username, owner.password);
    await client.get('/patients/create/');
    ctx.clock.advanceMinutes(25);
    await client.follow(await client.post('/patients/create/', patientForm('52998878'), { headers: { referer: 'http://localhost/patients/create/' } }));
    const res = await client.post('/users/login/?next=/patients/create/', { username: other.username, password: other.password });
    assert.equal(res.status, 302);
    const page = await client.get('/patients/create/');
    assert.equal(restoredFields(page.body), null);
    assert.doesNotMatch(page.body, /52998878/);
    // Its owner still gets it.
    const owners = new TestClient(ctx.app);
    await login(owners, owner.username, owner.password);
    const ownPage = await owners.get('/patients/create/');
    assert.ok(restoredFields(ownPage.body)?.some(([k, v]) => k === 'documento' && v === '52998878'));
  });

  test('is kept only briefly', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await login(client, user.username, user.password);
    await client.get('/patients/create/');
    ctx.clock.advanceMinutes(25);
    await client.follow(await client.post('/patients/create/', patientForm('52998879'), { headers: { referer: 'http://localhost/patients/create/' } }));
    ctx.clock.advanceMinutes(31);
    const res = await client.post('/users/login/', { username: user.username, password: user.password });
    assert.equal(res.location, '/dashboard/');
    assert.equal(restoredFields((await client.get('/patients/create/')).body), null);
  });

  test('with a CSRF token of no session of its user is refused and not kept', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await login(client, user.username, user.password);
    await client.get('/patients/create/');
    ctx.clock.advanceMinutes(25);
    const res = await client.post('/patients/create/', { ...patientForm('52998880'), csrfmiddlewaretoken: 'forged' });
    assert.equal(res.status, 403);
    assert.equal(await ctx.db.selectFrom('pending_forms').select('user_id').where('user_id', '=', user.id).executeTakeFirst(), undefined);
  });

  test('posted from another page (a cycle opened from the follow page) comes back on that page', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await login(client, user.username, user.password);
    await client.get('/patients/follow');
    ctx.clock.advanceMinutes(25);
    const res = await client.post('/patients/ingreso/nuevo/999999/', { fecha_inicio: '2026-11-20' }, { headers: { referer: 'http://localhost/patients/follow?query_search=luz' } });
    assert.equal(res.location, '/users/login/?next=/patients/follow%3Fquery_search%3Dluz');
    await client.follow(res);
    const back = await client.post('/users/login/', { username: user.username, password: user.password });
    assert.equal(back.location, '/patients/follow?query_search=luz');
    const page = await client.follow(back);
    assert.deepEqual(restoredFields(page.body), [['fecha_inicio', '2026-11-20']]);
    assert.match(page.body, /data-action="\/patients\/ingreso\/nuevo\/999999\/"/);
  });

  test('a renewal that came too late does not lose the form posted next', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await login(client, user.username, user.password);
    await client.get('/patients/create/');
    ctx.clock.advanceMinutes(40);
    const late = await client.post('/users/session/renew/', {});
    assert.equal(late.status, 302);
    const posted = await client.post('/patients/create/', patientForm('52998881'), { headers: { referer: 'http://localhost/patients/create/' } });
    assert.equal(posted.location, '/users/login/?next=/patients/create/');
    await client.follow(posted);
    const back = await client.post('/users/login/', { username: user.username, password: user.password });
    assert.equal(back.location, '/patients/create/');
    assert.ok(restoredFields((await client.follow(back)).body)?.some(([k, v]) => k === 'documento' && v === '52998881'));
  });

  test('a page opened after the session ended (the login) binds its form to no session: logging in works', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await login(client, user.username, user.password);
    ctx.clock.advanceMinutes(25);
    const page = await client.get('/users/login/');
    assert.equal(page.status, 200);
    const res = await client.post('/users/login/', { username: user.username, password: user.password });
    assert.equal(res.status, 302);
    assert.equal(res.location, '/dashboard/');
  });
});
