// The table versions (decision 0023): one list says which tables are versioned, the triggers follow it on both
// engines, kept pages may read only what they declare, and a change made through one instance shows on the next
// request to another.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { installedTriggers, readTableVersions, VERSIONED_TABLES } from '../src/db/table-versions.js';
import { createPatient } from '../src/patients/patient.fixtures.js';
import { declarePage, KNOWN_TABLES, PageCache, UndeclaredTableError } from '../src/web/page-cache.js';
import { createTestContext, createUser, ENGINE, login, TestClient, type TestContext } from './helpers.js';

describe(`table versions (engine=${ENGINE})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  test('every table of the schema is known to the page guard, and every listed table has its trigger', async () => {
    const tables = (await ctx.db.introspection.getTables()).map((t) => t.name).filter((n) => !/^(kysely_|patients_fts_)/.test(n));
    const known = KNOWN_TABLES.filter((t) => ENGINE === 'sqlite' || t !== 'patients_fts'); // SQLite's search index
    assert.deepEqual([...tables].sort(), [...known].sort(), 'a new table must be added to VERSIONED_TABLES or to KNOWN_TABLES');
    const triggered = new Set((await installedTriggers(ctx.db)).map((t) => t.table));
    for (const table of VERSIONED_TABLES) assert.ok(triggered.has(table), `${table} has no version trigger`);
  });

  test('a write to a listed table bumps its version and no other; a read bumps nothing', async () => {
    const before = await readTableVersions(ctx.db);
    await ctx.db.selectFrom('patients').selectAll().execute();
    assert.deepEqual(await readTableVersions(ctx.db), before);
    await createPatient(ctx.db, {}, { fechaInicio: null });
    const after = await readTableVersions(ctx.db);
    assert.notEqual(after.get('patients'), before.get('patients'));
    for (const table of ['ingresos', 'exam_records', 'users']) assert.equal(after.get(table), before.get(table), table);
  });

  test('a render that reads a table its page did not declare fails instead of keeping a page', async () => {
    const sneaky = declarePage<{ id: number }>({
      name: 'test.sneaky',
      tables: ['patients'],
      maxBytes: 1024,
      async render(db) {
        await db.selectFrom('patients').innerJoin('ingresos', 'ingresos.paciente_id', 'patients.id').select('patients.id').execute();
        return null;
      },
    });
    const raw = declarePage<{ id: number }>({
      name: 'test.raw',
      tables: ['patients'],
      maxBytes: 1024,
      async render(db) {
        await sql`select count(*) from exam_records`.execute(db);
        return null;
      },
    });
    for (const pages of [new PageCache(ctx.db), new PageCache(ctx.db, false)]) {
      await assert.rejects(pages.get(sneaky, { id: 1 }), UndeclaredTableError);
      await assert.rejects(pages.get(raw, { id: 1 }), UndeclaredTableError);
    }
  });

  test('a change made through one instance shows on the next request to another', async () => {
    const second = await buildApp({ config: ctx.config, db: ctx.db, engine: ctx.database.handle.engine, clock: ctx.clock, logger: false, setupToken: null, loginAttemptsPerMinute: 100_000 });
    await second.ready();
    try {
      const user = await createUser(ctx.db);
      const one = new TestClient(ctx.app);
      const two = new TestClient(second);
      await login(one, user.username);
      await login(two, user.username);
      const p = await createPatient(ctx.db, { nombre: 'Instancia', apellido: 'Dos' });
      assert.match((await two.get('/patients/')).body, /Instancia Dos/);
      assert.match((await two.get(`/patients/${p.id}/`)).body, /Instancia Dos/);
      const page = await one.get(`/patients/${p.id}/`);
      const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(page.body)![1]!;
      one.csrfToken = token;
      const res = await one.post(`/patients/ingreso/estado/${p.ingresoId}/SUSPENDIDO/`, { motivo_estado: 'Viaje' });
      assert.equal(res.status, 302);
      assert.doesNotMatch((await two.get('/patients/')).body, /Instancia Dos/, 'the suspended patient leaves the active list of the other instance');
      assert.match((await two.get(`/patients/${p.id}/`)).body, /SUSPENDIDO|suspendido/i);
    } finally {
      await second.close();
    }
  });
});
