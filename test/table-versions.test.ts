// The table versions (decision 0023): the table registry (decision 0067) says which tables are versioned, the
// triggers follow it on both engines, kept pages may read only what they declare, and a change made through one
// instance shows on the next request to another.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { h } from 'preact';
import { buildApp } from '../src/app.js';
import { installedTriggers, patientVersionReader, readTableVersions, syncTableVersionTriggers, versionReader, versionsReader } from '../src/platform/pages/table-versions.js';
import { createPatient } from './fixtures/patient.fixtures.js';
import { TABLES } from '../src/db/tables.js';
import { definitionOf } from '../src/platform/pages/table-versions.js';
import { PATIENT_OWNED_TABLES, PATIENT_TABLES, registryErrors, tablesOn, VERSIONED_TABLES } from '../src/platform/tables.js';
import { declarePage, PageCache, UndeclaredTableError } from '../src/platform/pages/page-cache.js';
import { createTestContext, createUser, ENGINE, login, TestClient, type TestContext } from './helpers.js';

/** A page's version alone, as the page cache keeps a page under it. */
const versionOf =
  (read: ReturnType<typeof patientVersionReader>) =>
  async (...args: Parameters<typeof read>) =>
    (await read(...args)).version;

describe(`table versions (engine=${ENGINE})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  test('every table of the schema is in the table registry, once, and every versioned table has its trigger', async () => {
    assert.deepEqual(registryErrors(), []);
    // SQLite's own tables of the full-text index, and Kysely's of the migrations, are no application's tables.
    const tables = (await ctx.db.introspection.getTables()).map((t) => t.name).filter((n) => !/^(kysely_|patients_fts_)/.test(n));
    assert.deepEqual([...tables].sort(), tablesOn(ENGINE).sort(), 'a new table needs its line in the registry (its feature’s *.table.ts)');
    const triggered = new Set((await installedTriggers(ctx.db)).map((t) => t.table));
    for (const table of VERSIONED_TABLES) assert.ok(triggered.has(table), `${table} has no version trigger`);
  });

  test('every versioned table whose rows belong to a patient is a patient table, and every patient-owned table has its trigger', async () => {
    const columns = new Map((await ctx.db.introspection.getTables()).map((t) => [t.name, t.columns.map((c) => c.name)]));
    for (const table of VERSIONED_TABLES) {
      const owned = table === 'patients' || columns.get(table)!.some((c) => c === 'paciente_id' || c === 'ingreso_id');
      assert.equal(table in PATIENT_TABLES, owned, `${table}: in PATIENT_TABLES exactly when its rows belong to a patient`);
    }
    const triggered = new Set((await installedTriggers(ctx.db, 'patient')).map((t) => t.table));
    assert.deepEqual([...triggered].sort(), Object.keys(PATIENT_OWNED_TABLES).sort());
  });

  test('a patient-version trigger of a table no longer listed is dropped at the next start', async () => {
    if (ENGINE === 'postgres') {
      await sql`create function users_patient_version() returns trigger language plpgsql as $$ begin return null; end $$`.execute(ctx.db);
      await sql`create trigger users_patient_version after insert on users for each row execute function users_patient_version()`.execute(ctx.db);
    } else {
      await sql`create trigger users_patient_version_insert after insert on users begin select 1; end`.execute(ctx.db);
    }
    assert.ok((await installedTriggers(ctx.db, 'patient')).some((t) => t.table === 'users'));
    await syncTableVersionTriggers(ctx.db);
    assert.ok(!(await installedTriggers(ctx.db, 'patient')).some((t) => t.table === 'users'));
    if (ENGINE === 'postgres') {
      const left = await sql<{ n: number }>`select count(*)::int as n from pg_proc where proname = 'users_patient_version'`.execute(ctx.db);
      assert.equal(left.rows[0]!.n, 0, 'its function is dropped too');
    }
  });

  test('a new view action is one word in the list: the next start leaves its entries out of the counters and of the index of changes; a start with nothing changed rebuilds nothing', async () => {
    assert.deepEqual(await syncTableVersionTriggers(ctx.db), { builtIndexes: [], sqliteTriggers: [] }, 'what the migrations and the last start left is recognised');
    const trail = TABLES.audit_log.patient;
    const exportIsAView = { ...TABLES, audit_log: { patient: { ...trail, unless: { column: 'action', values: [...trail.unless.values, 'export'] } } } };
    const p = await createPatient(ctx.db, {});
    const counter = versionOf(patientVersionReader([]));
    const bumps = async (action: string) => {
      const before = await counter(ctx.db, p.id);
      const at = ctx.clock.now().toISOString();
      await ctx.db.insertInto('audit_log').values({ at, user_id: null, username: null, action, entity_type: 'patient', entity_id: p.id, patient_id: p.id, changes: null, request_id: null }).execute();
      return (await counter(ctx.db, p.id)) !== before;
    };
    const indexed = async () => {
      const { rows } =
        ENGINE === 'postgres'
          ? await sql<{ def: string }>`select pg_get_indexdef('audit_log_patient_changes_idx'::regclass) as def`.execute(ctx.db)
          : await sql<{ def: string }>`select sql as def from sqlite_master where name = 'audit_log_patient_changes_idx'`.execute(ctx.db);
      return definitionOf(rows[0]!.def);
    };
    assert.equal(await bumps('export'), true);
    assert.doesNotMatch(await indexed(), /'export'/);

    assert.deepEqual((await syncTableVersionTriggers(ctx.db, exportIsAView)).builtIndexes, ['audit_log_patient_changes_idx']);
    assert.equal(await bumps('export'), false, 'an export is now a view: it bumps nothing');
    assert.equal(await bumps('patient.update'), true);
    assert.equal(await bumps('patient.view'), false);
    assert.match(await indexed(), /action <> 'export'/);
    assert.doesNotMatch(await indexed(), / in /, 'inequalities, never a list');
    assert.deepEqual(await syncTableVersionTriggers(ctx.db, exportIsAView), { builtIndexes: [], sqliteTriggers: [] }, 'nothing changed: nothing rebuilt');

    assert.deepEqual((await syncTableVersionTriggers(ctx.db)).builtIndexes, ['audit_log_patient_changes_idx'], 'and back');
    assert.equal(await bumps('export'), true);
  });

  test("a write to a patient's row, Ingresos, history or exams bumps that patient's version and no other's", async () => {
    const version = versionOf(patientVersionReader(['patients', 'ingresos', 'ingreso_historial', 'exam_records']));
    const staff = await createUser(ctx.db);
    const one = await createPatient(ctx.db, { apellido: 'Uno' });
    const other = await createPatient(ctx.db, { apellido: 'Otro' });
    const now = ctx.clock.now().toISOString();
    const writes: [string, () => Promise<unknown>][] = [
      ['patient row', () => ctx.db.updateTable('patients').set({ telefono: '6075555555' }).where('id', '=', one.id).execute()],
      ['Ingreso', () => ctx.db.updateTable('ingresos').set({ updated_at: now }).where('id', '=', one.ingresoId!).execute()],
      [
        'history',
        () =>
          ctx.db
            .insertInto('ingreso_historial')
            .values({ ingreso_id: one.ingresoId!, at: now, user_id: staff.id, desde: 'ACTIVO', hacia: 'SUSPENDIDO', motivo: 'Prueba', fecha: null })
            .execute(),
      ],
      [
        'exam record',
        () =>
          ctx.db
            .insertInto('exam_records')
            .values({ ingreso_id: one.ingresoId!, kind: 'OTRO', fecha: now.slice(0, 10), registrado_por: staff.id, created_at: now, nombre_examen: 'Control', resultado: 'Normal' } as never)
            .execute(),
      ],
    ];
    for (const [what, write] of writes) {
      const [mine, theirs] = [await version(ctx.db, one.id), await version(ctx.db, other.id)];
      await write();
      assert.notEqual(await version(ctx.db, one.id), mine, `${what}: the patient's version changes`);
      assert.equal(await version(ctx.db, other.id), theirs, `${what}: another patient's does not`);
    }
    const users = versionOf(patientVersionReader(['patients', 'users']));
    const before = await users(ctx.db, other.id);
    await ctx.db.updateTable('users').set({ is_active: 1 }).where('id', '=', staff.id).execute();
    assert.notEqual(await users(ctx.db, other.id), before, "a page's other tables still count");
  });

  test("a page of one patient stays kept while others change, and is rendered anew when its patient changes", async () => {
    let renders = 0;
    const record = declarePage<{ patientId: number }>({
      name: 'test.record',
      tables: ['patients', 'ingresos'],
      maxBytes: 1 << 20,
      patient: ({ patientId }) => patientId,
      async render(db, { patientId }) {
        renders++;
        const p = await db.selectFrom('patients').select('telefono').where('id', '=', patientId).executeTakeFirst();
        return p ? { node: h('p', null, p.telefono), title: 't', meta: null } : null;
      },
    });
    const pages = new PageCache(ctx.db, true, 0);
    const one = await createPatient(ctx.db, { telefono: '6071000001' });
    const other = await createPatient(ctx.db, {});
    const text = async () => (await pages.get(record, { patientId: one.id }))!.fragments.flatMap((f) => f.parts).map((b) => b?.toString() ?? '').join('');
    assert.match(await text(), /6071000001/);
    await ctx.db.updateTable('patients').set({ telefono: '6079999999' }).where('id', '=', other.id).execute();
    await createPatient(ctx.db, {});
    assert.match(await text(), /6071000001/);
    assert.equal(renders, 1, 'kept while other patients change');
    await ctx.db.updateTable('patients').set({ telefono: '6072000002' }).where('id', '=', one.id).execute();
    assert.match(await text(), /6072000002/);
    assert.equal(renders, 2);
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
    for (const pages of [new PageCache(ctx.db, true, 0), new PageCache(ctx.db, false)]) {
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
  test('parts read together: their versions read once before any of them, one part\'s input from another\'s meta, each kept by its own tables (decision 0265)', async () => {
    const renders = { names: 0, shown: 0 };
    const names = declarePage<null, string[]>({
      name: 'test.together.names',
      tables: ['users'],
      maxBytes: 1024,
      async render(db) {
        renders.names++;
        const rows = await db.selectFrom('users').select('username').where('is_active', '=', 1).orderBy('username').execute();
        return { node: h('p', null, ''), title: 't', meta: rows.map((r) => r.username) };
      },
    });
    const shown = declarePage<{ names: string[] }>({
      name: 'test.together.shown',
      tables: ['patients'],
      maxBytes: 1 << 20,
      async render(db, input) {
        renders.shown++;
        const n = await db.selectFrom('patients').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        return { node: h('p', null, `${input.names.length} ${Number(n.n)}`), title: 't', meta: null };
      },
    });
    const other = declarePage<null>({ name: 'test.together.other', tables: ['patients'], maxBytes: 1024, render: async () => null });
    const text = (page: { fragments: { parts: readonly (Buffer | null)[] }[] } | null) => page!.fragments.flatMap((f) => f.parts).map((b) => b?.toString() ?? '').join('');
    const pages = new PageCache(ctx.db, true, 0);
    const visit = async () => {
      const parts = await pages.together([names, shown]);
      const list = (await parts.get(names, null))!.meta;
      return text(await parts.get(shown, { names: list }));
    };
    const first = await visit();
    assert.deepEqual(renders, { names: 1, shown: 1 });
    assert.equal(await visit(), first);
    assert.deepEqual(renders, { names: 1, shown: 1 }, 'both kept');
    await createPatient(ctx.db, { apellido: 'Juntas' });
    assert.notEqual(await visit(), first);
    assert.deepEqual(renders, { names: 1, shown: 2 }, 'a patient renders the part on patients only');
    await createUser(ctx.db);
    await visit();
    assert.deepEqual(renders, { names: 2, shown: 3 }, 'a user renders the names, and the part whose input they are');
    await assert.rejects((await pages.together([names, shown])).get(other, null), /was not read with/);
    // Kept pages off: each part rendered anew, the same content.
    const off = await new PageCache(ctx.db, false).together([names, shown]);
    assert.equal(text(await off.get(shown, { names: (await off.get(names, null))!.meta })), await visit());
  });

  test('inputs a page does not keep are rendered on each request and read no version (decision 0266)', async () => {
    let renders = 0;
    const some = declarePage<{ n: number }>({
      name: 'test.keeps-some',
      tables: ['patients'],
      maxBytes: 1 << 20,
      keeps: ({ n }) => n === 0,
      async render(_db, { n }) {
        renders++;
        return { node: h('p', null, String(n)), title: 't', meta: null };
      },
    });
    const pages = new PageCache(ctx.db, true, 0);
    for (let i = 0; i < 3; i++) await pages.get(some, { n: 0 });
    assert.equal(renders, 1, 'a kept input is rendered once');
    for (let i = 0; i < 3; i++) await pages.get(some, { n: 1 });
    assert.equal(renders, 4, 'the others each time');
    assert.deepEqual(pages.counts(), { hits: 2, misses: 1 }, 'and they are neither hits nor renders of the cache');
    for (let i = 0; i < 2; i++) await (await pages.together([some])).get(some, { n: 2 });
    assert.equal(renders, 6, 'read together too');
  });

  test('one statement reads the versions of two sets of tables, each as its own reader does, and a write moves only its set (decision 0220)', async () => {
    const sets = [['patients', 'ingresos'], ['citas', 'agenda_tipos']] as const;
    const both = versionsReader(sets);
    const each = sets.map((tables) => versionReader(tables));
    const first = await both(ctx.db);
    assert.deepEqual(first, [await each[0]!(ctx.db), await each[1]!(ctx.db)]);
    await createPatient(ctx.db, { apellido: 'Versiones' });
    const then = await both(ctx.db);
    assert.deepEqual(then, [await each[0]!(ctx.db), await each[1]!(ctx.db)]);
    assert.notEqual(then[0], first[0], 'a new patient moves the first set');
    assert.equal(then[1], first[1], 'and leaves the second as it was');
  });
});
