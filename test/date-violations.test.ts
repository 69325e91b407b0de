// Issue 25, point 5 (decision 0063): rows whose dates broke a rule before the database held it on every write
// survive migrations 0041 and 0160 unchanged, are listed for the administrators at /users/fechas/, and stay
// editable in what their wrong dates do not touch.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Migrator, type Kysely, type Migration } from 'kysely';
import { buildApp } from '../src/app.js';
import type { Db } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { migrations } from '../src/db/migrations/index.js';
import { listDateViolations } from '../src/ingresos/date-violations.repository.js';
import { findPatientById } from '../src/patients/patient.repository.js';
import { newPatientRow } from './fixtures/patient.fixtures.js';
import { patientFormValues } from '../src/patients/patient.schema.js';
import { createTestDatabase, createUser, decodeEntities, ENGINE, loggedInClient, TestClock, testConfig, type TestContext } from './helpers.js';

const TODAY = '2026-11-22';

describe('rows broken before the rules: the migration keeps them, the administrators see them listed', () => {
  /** Rows as the application could store them before migrations 0041 and 0160. */
  async function brokenClinic(db: Db) {
    const u = await createUser(db);
    const person = async (fecha_nacimiento = '1980-01-01') => (await db.insertInto('patients').values(newPatientRow({ fecha_nacimiento })).returning('id').executeTakeFirstOrThrow()).id;
    const cycle = async (paciente_id: number, fecha_inicio: string, history: [string | null, string, string][]) => {
      const { id } = await db
        .insertInto('ingresos')
        .values({ paciente_id, fecha_inicio, fecha_fin: null, estado: 'ACTIVO', motivo: null, created_at: TODAY, updated_at: TODAY })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const [desde, hacia, fecha] of [[null, 'ACTIVO', fecha_inicio] as [string | null, string, string], ...history]) {
        await db.insertInto('ingreso_historial').values({ ingreso_id: id, at: `${TODAY}T12:00:00.000Z`, user_id: null, desde, hacia, motivo: null, fecha }).execute();
      }
      return id;
    };
    const exam = (ingreso_id: number, fecha: string) =>
      db.insertInto('exam_records').values({ ingreso_id, kind: 'OTRO', fecha, nombre_examen: 'X', registrado_por: u.id, created_at: `${TODAY}T12:00:00.000Z` }).execute();
    const end = (id: number, fecha_fin: string) => db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin, motivo: 'Alta' }).where('id', '=', id).execute();

    const examBefore = await person();
    await exam(await cycle(examBefore, '2026-01-10', []), '2025-12-01');
    const bornAfter = await person('2026-03-01');
    await cycle(bornAfter, '2026-02-01', []);
    // Suspended and reactivated on 22/11, terminated on 12/11: the status history runs backwards.
    const backwards = await person();
    await end(await cycle(backwards, '2026-06-01', [['ACTIVO', 'SUSPENDIDO', '2026-11-22'], ['SUSPENDIDO', 'ACTIVO', '2026-11-22'], ['ACTIVO', 'TERMINADO', '2026-11-12']]), '2026-11-12');
    const endedBefore = await person();
    const ended = await cycle(endedBefore, '2026-02-01', []);
    await end(ended, '2026-01-01');
    const examAfter = await person();
    const afterEnd = await cycle(examAfter, '2026-10-01', []);
    await exam(afterEnd, '2026-11-12');
    await end(afterEnd, '2026-11-05');
    // Its start moved (by the patient form) past a suspension.
    const movedStart = await person();
    const moved = await cycle(movedStart, '2026-08-01', [['ACTIVO', 'SUSPENDIDO', '2026-08-15'], ['SUSPENDIDO', 'ACTIVO', '2026-08-20']]);
    await db.updateTable('ingresos').set({ fecha_inicio: '2026-09-01' }).where('id', '=', moved).execute();
    const sound = await person();
    await exam(await cycle(sound, '2026-10-01', [['ACTIVO', 'SUSPENDIDO', '2026-11-01']]), '2026-10-15');
    return { examBefore, bornAfter, backwards, endedBefore, examAfter, movedStart, sound };
  }

  const everything = async (db: Db) => ({
    patients: await db.selectFrom('patients').select(['id', 'fecha_nacimiento']).orderBy('id').execute(),
    ingresos: await db.selectFrom('ingresos').select(['id', 'fecha_inicio', 'fecha_fin', 'estado']).orderBy('id').execute(),
    history: await db.selectFrom('ingreso_historial').select(['id', 'fecha']).orderBy('id').execute(),
    exams: await db.selectFrom('exam_records').select(['id', 'fecha']).orderBy('id').execute(),
  });

  test('built before migration 0041, migrated to the latest: nothing changed, each broken row listed, the page for administrators only', async () => {
    const database = await createTestDatabase({ migrate: false });
    assert.equal(database.handle.engine, ENGINE);
    const db = database.handle.db;
    const names = Object.keys(migrations).sort();
    const provider = { getMigrations: async (): Promise<Record<string, Migration>> => migrations };
    try {
      const early = await new Migrator({ db: db as Kysely<any>, provider }).migrateTo(names[names.indexOf('20261125_0041_dates_within_their_cycle') - 1]!);
      assert.equal(early.error, undefined);
      const ids = await brokenClinic(db);
      const stored = await everything(db);
      await migrateToLatest(db);
      assert.deepEqual(await everything(db), stored, 'the migrations change no date');

      const { rows, truncated } = await listDateViolations(db);
      assert.deepEqual(truncated, []);
      assert.deepEqual(rows.map((r) => [r.rule, r.patient_id, r.fecha, r.against]), [
        ['exam_outside_cycle', ids.examBefore, '2025-12-01', '2026-01-10'],
        ['exam_outside_cycle', ids.examAfter, '2026-11-12', '2026-11-05'],
        ['start_before_birth', ids.bornAfter, '2026-02-01', '2026-03-01'],
        ['end_before_start', ids.endedBefore, '2026-01-01', '2026-02-01'],
        ['start_after_status_change', ids.movedStart, '2026-09-01', '2026-08-15'],
        ['end_before_status_change', ids.backwards, '2026-11-12', '2026-11-22'],
        ['end_before_status_change', ids.endedBefore, '2026-01-01', '2026-02-01'],
        ['history_out_of_order', ids.backwards, '2026-11-12', '2026-11-22'],
      ]);

      const app = await buildApp({ config: testConfig(), db, engine: database.handle.engine, clock: new TestClock(), logger: false, setupToken: null, loginAttemptsPerMinute: 100_000 });
      await app.ready();
      try {
        const on = { app, db } as TestContext;
        const { client: admin } = await loggedInClient(on, { isAdmin: true });
        const page = await admin.get('/users/fechas/');
        assert.equal(page.status, 200);
        const listed = [...page.body.matchAll(/data-rule="(\w+)" data-patient-id="(\d+)"/g)].map((m) => [m[1], Number(m[2])]);
        assert.deepEqual(listed, rows.map((r) => [r.rule, r.patient_id]));
        assert.match(decodeEntities(page.body), /El ciclo termina el 12\/11\/2026; su último cambio de estado es del 22\/11\/2026\./);
        assert.ok(!listed.some(([, id]) => id === ids.sound));
        assert.match((await admin.get('/users/')).body, /href="\/users\/fechas\/"/, 'linked from the administrators\u2019 page');
        const { client: staff } = await loggedInClient(on);
        assert.equal((await staff.get('/users/fechas/')).status, 403, 'administrators only');

        // A listed patient stays editable in what its wrong dates do not touch; once its dates agree, it leaves the list.
        const patient = (await findPatientById(db, ids.bornAfter))!;
        const start = (await db.selectFrom('ingresos').select('fecha_inicio').where('paciente_id', '=', ids.bornAfter).executeTakeFirstOrThrow()).fecha_inicio;
        const kept = await admin.post(`/patients/${ids.bornAfter}/`, { ...patientFormValues(patient, null), tipo_documento: 'PA', telefono: '6079999999', fecha_inicio_programa: '' });
        assert.equal(kept.status, 302, kept.body.match(/id="error_\w+"[^>]*>[^<]*/g)?.join(' ') ?? '');
        const fixed = await admin.post(`/patients/${ids.bornAfter}/`, { ...patientFormValues(patient, start), tipo_documento: 'PA', fecha_nacimiento: '1980-03-01' });
        assert.equal(fixed.status, 302);
        assert.doesNotMatch((await admin.get('/users/fechas/')).body, new RegExp(`data-patient-id="${ids.bornAfter}"`));
      } finally {
        await app.close();
      }

      // Its down puts migration 0041's guards back: new writes are still checked on insert.
      const down = await new Migrator({ db: db as Kysely<any>, provider }).migrateTo(names[names.indexOf('20261126_0160_date_rules_on_every_write') - 1]!);
      assert.equal(down.error, undefined);
      const cycleId = (await db.selectFrom('ingresos').select('id').where('paciente_id', '=', ids.sound).executeTakeFirstOrThrow()).id;
      await db.updateTable('ingresos').set({ estado: 'ACTIVO' }).where('id', '=', cycleId).execute();
      await assert.rejects(db.insertInto('exam_records').values({ ingreso_id: cycleId, kind: 'OTRO', fecha: '2026-09-01', nombre_examen: 'X', registrado_por: 1, created_at: TODAY }).execute(), /fecha outside its Ingreso/);
      await migrateToLatest(db);
    } finally {
      await database.drop();
    }
  });
});
