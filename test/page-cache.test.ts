// Pages kept as rendered fragments (decision 0016) must never show data older than the database: a change made
// by another instance of the application, or straight in the database, shows on the next request everywhere.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { createTestContext, createUser, decodeEntities, login, TestClient, type TestContext } from './helpers.js';
import { examForm, patientForm } from './reliability/lib/world.js';

let ctx: TestContext;
/** A second instance of the application on the same database, as behind a load balancer. */
let other: FastifyInstance;
let here: TestClient;
let there: TestClient;
const TODAY = '2026-11-22';

before(async () => {
  ctx = await createTestContext();
  other = await buildApp({ config: ctx.config, db: ctx.db, engine: ctx.database.handle.engine, clock: ctx.clock, logger: false, loginAttemptsPerMinute: 100_000 });
  await other.ready();
  const user = await createUser(ctx.db);
  here = new TestClient(ctx.app);
  there = new TestClient(other);
  await login(here, user.username, user.password);
  await login(there, user.username, user.password);
});
after(async () => {
  await other.close();
  await ctx.close();
});

async function newPatient(overrides: Record<string, string> = {}): Promise<{ id: number; form: Record<string, string> }> {
  const form = patientForm(overrides);
  const res = await there.post('/patients/create/', form);
  assert.equal(res.status, 302);
  const row = await ctx.db.selectFrom('patients').select('id').where('documento', '=', form.documento!).executeTakeFirstOrThrow();
  return { id: row.id, form };
}

const text = async (client: TestClient, url: string) => {
  const res = await client.get(url);
  assert.equal(res.status, 200, url);
  return decodeEntities(res.body);
};

describe('kept pages follow every change', () => {
  test('the lists show a change made by another instance at once', async () => {
    const { id, form } = await newPatient({ apellido: 'Cachéviejo' });
    const lists = [`/patients/?query_search=${form.documento}`, `/patients/follow?query_search=${form.documento}`, `/exams/?query_search=${form.documento}`];
    for (const url of lists) assert.match(await text(here, url), /Cachéviejo/, url);
    const res = await there.post(`/patients/${id}/`, { ...form, apellido: 'Cachénuevo' });
    assert.equal(res.status, 302);
    for (const url of lists) {
      const body = await text(here, url);
      assert.match(body, /Cachénuevo/, url);
      assert.doesNotMatch(body, /Cachéviejo/, url);
    }
  });

  test('the clinical view shows a record added, then voided, by another instance', async () => {
    const { id } = await newPatient();
    assert.match(await text(here, `/exams/${id}/`), /No hay registros en este ingreso/);
    const added = await there.post(`/exams/${id}/otros/`, examForm('otros', TODAY, { nombre_examen: 'Espirometría guardada' }));
    assert.equal(added.status, 302);
    assert.match(await text(here, `/exams/${id}/`), /Espirometría guardada/);
    const record = await ctx.db.selectFrom('exam_records').select('id').where('nombre_examen', '=', 'Espirometría guardada').executeTakeFirstOrThrow();
    await there.get(`/exams/${id}/`);
    const voided = await there.post(`/exams/${id}/registro/${record.id}/anular/`, { motivo_anulacion: 'Paciente equivocado' });
    assert.equal(voided.status, 302);
    assert.doesNotMatch(await text(here, `/exams/${id}/`), /Espirometría guardada/);
  });

  test("the patient's record shows a change made straight in the database, and its history every new entry", async () => {
    const { id, form } = await newPatient({ telefono: '6070000001' });
    const first = await text(here, `/patients/${id}/`);
    assert.match(first, /6070000001/);
    await ctx.db.updateTable('patients').set({ telefono: '6070000002' }).where('id', '=', id).execute();
    assert.match(await text(here, `/patients/${id}/`), /6070000002/);

    const updated = await there.post(`/patients/${id}/`, { ...form, telefono: '6070000003' });
    assert.equal(updated.status, 302);
    const page = await text(here, `/patients/${id}/`);
    assert.match(page, /6070000003/);
    const history = page.slice(page.indexOf('data-section="patient-history"'));
    assert.match(history, /Paciente modificado/, 'the update of the other instance');
    assert.doesNotMatch(history, /Ficha del paciente consultada/, 'views are behind the filter');
    const withViews = await text(here, `/patients/${id}/?consultas=1`);
    const all = withViews.slice(withViews.indexOf('data-section="patient-history"'));
    assert.match(all, /Paciente modificado/);
    assert.ok((all.match(/Ficha del paciente consultada/g) ?? []).length >= 4, 'every view, this one included');
  });

  test("the patient's history shows an export made through another instance, which changes nothing of the record", async () => {
    const { id } = await newPatient();
    const historyOf = async () => {
      const page = await text(here, `/patients/${id}/`);
      return page.slice(page.indexOf('data-section="patient-history"'));
    };
    assert.doesNotMatch(await historyOf(), /Exportación/);
    assert.doesNotMatch(await historyOf(), /Exportación/, 'kept, and still without it');
    assert.equal((await there.get(`/patients/${id}/fhir/`)).status, 200);
    assert.match(await historyOf(), /Exportación/);
  });

  test('the forms of a kept page carry each session its own token, and it is accepted', async () => {
    const { id } = await newPatient();
    const someoneElse = new TestClient(ctx.app);
    const user = await createUser(ctx.db);
    await login(someoneElse, user.username, user.password);
    const tokenOf = async (client: TestClient) => {
      await client.get(`/exams/${id}/`);
      return client.csrfToken;
    };
    const mine = await tokenOf(here);
    const theirs = await tokenOf(someoneElse);
    assert.ok(mine && theirs);
    assert.notEqual(mine, theirs, 'the same kept clinical view, two sessions, two tokens');
    const res = await someoneElse.post(`/exams/${id}/psicologia/`, examForm('psicologia', TODAY));
    assert.equal(res.status, 302);
    const withMine = await someoneElse.post(`/exams/${id}/psicologia/`, { ...examForm('psicologia', TODAY), csrfmiddlewaretoken: mine });
    assert.equal(withMine.status, 403, "another session's token is refused");
  });
});
