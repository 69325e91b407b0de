// Issue 25, point 5: every date rule of the records on every write path (decision 0063). Through the forms: the
// four changes that used to be accepted are refused with the date they conflict with beside the field, and nothing
// changes. Straight in SQL: the database refuses the same updates. Rows broken before the rules: listed, not touched.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import type { Db } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { migrations } from '../src/db/migrations/index.js';
import { listDateViolations } from '../src/ingresos/date-violations.repository.js';
import { dateRuleRefused, DATE_RULE_CODES } from '../src/db/errors.js';
import { DATE_RULE_MESSAGES } from '../src/db/migrations/20261126_0160_date_rules_on_every_write.js';
import { findPatientById } from '../src/patients/patient.repository.js';
import { createPatient, newPatientRow } from '../src/patients/patient.fixtures.js';
import { patientFormValues } from '../src/patients/patient.schema.js';
import {
  createTestContext,
  createTestDatabase,
  createUser,
  decodeEntities,
  ENGINE,
  loggedInClient,
  messagesIn,
  TestClock,
  testConfig,
  type TestClient,
  type TestContext,
} from './helpers.js';

let ctx: TestContext;
let client: TestClient;
let userId: number;
before(async () => {
  ctx = await createTestContext();
  ({ client, user: { id: userId } } = await loggedInClient(ctx));
});
after(async () => ctx.close());

// The test clock: 2026-11-22 in Bogotá.
const TODAY = '2026-11-22';

test(`dates on every write run on ${ENGINE}`, () => assert.equal(ctx.database.handle.engine, ENGINE));

/** The message beside a field of a form, or null. */
function fieldError(html: string, field: string): string | null {
  const m = new RegExp(`id="error_${field}"[^>]*>([^<]*)<`).exec(html);
  return m ? decodeEntities(m[1]!) : null;
}

/** Everything stored about a patient that a refused change must leave as it was. */
async function stored(patientId: number) {
  const ingresos = await ctx.db.selectFrom('ingresos').selectAll().where('paciente_id', '=', patientId).orderBy('id').execute();
  const ids = ingresos.map((i) => i.id);
  return {
    patient: await findPatientById(ctx.db, patientId),
    ingresos,
    history: await ctx.db.selectFrom('ingreso_historial').selectAll().where('ingreso_id', 'in', ids).orderBy('id').execute(),
    exams: await ctx.db.selectFrom('exam_records').selectAll().where('ingreso_id', 'in', ids).orderBy('id').execute(),
    audit: await ctx.db.selectFrom('audit_log').select(['id', 'action']).where('patient_id', '=', patientId).where('action', 'not like', '%view%').orderBy('id').execute(),
  };
}

async function exam(patientId: number, fecha: string) {
  const res = await client.post(`/exams/${patientId}/otros/`, { fecha, nombre_examen: 'Espirometría', resultado: '', observaciones: '' });
  assert.equal(res.status, 302, `exam on ${fecha}`);
  await client.follow(res);
}

async function changeStatus(ingresoId: number, to: 'SUSPENDIDO' | 'ACTIVO') {
  const res = await client.post(`/patients/ingreso/estado/${ingresoId}/${to}/`, { motivo_estado: '' });
  assert.equal(res.status, 302);
  assert.equal(messagesIn((await client.follow(res)).body)[0]?.level, 'success', to);
}

/** Terminates from the page that asks first, so that a refusal comes back beside the date. */
const terminate = (ingresoId: number, fecha: string) =>
  client.post(`/patients/ingreso/estado/${ingresoId}/TERMINADO/`, { fecha_terminacion: fecha, motivo_estado: 'Alta', confirmacion: '1' });

/** Posts the patient form with its stored values, changed by `overrides`. */
async function savePatient(patientId: number, overrides: Record<string, string>) {
  const patient = (await findPatientById(ctx.db, patientId))!;
  const active = await ctx.db.selectFrom('ingresos').select('fecha_inicio').where('paciente_id', '=', patientId).where('estado', '=', 'ACTIVO').executeTakeFirst();
  // The fixtures' documentos hold letters: a passport's.
  return client.post(`/patients/${patientId}/`, { ...patientFormValues(patient, active?.fecha_inicio ?? null), tipo_documento: 'PA', ...overrides });
}

describe('the four changes that used to be accepted are refused beside their field, and nothing changes', () => {
  test('terminating a cycle on a date before its last exam', async () => {
    const p = await createPatient(ctx.db, {}, { fechaInicio: '2026-10-01' });
    await exam(p.id, '2026-11-12');
    const before = await stored(p.id);
    const res = await terminate(p.ingresoId!, '2026-11-05');
    assert.equal(res.status, 200);
    assert.equal(fieldError(res.body, 'fecha_terminacion'), 'La fecha de terminación no puede ser anterior al 12/11/2026, fecha del último examen registrado en el ciclo.');
    // The question says so before it is answered, too.
    assert.match((await client.get(`/patients/ingreso/terminar/${p.ingresoId}/`)).body, /id="hint_fecha_terminacion">Entre el 12\/11\/2026 y hoy\.</);
    assert.deepEqual(await stored(p.id), before);
    // On the day of the exam it ends.
    assert.equal((await terminate(p.ingresoId!, '2026-11-12')).status, 302);
  });

  test('moving the cycle start (patient form) after its exams', async () => {
    const p = await createPatient(ctx.db, {}, { fechaInicio: '2026-10-01' });
    await exam(p.id, '2026-10-15');
    const before = await stored(p.id);
    const res = await savePatient(p.id, { fecha_inicio_programa: '2026-10-20', nombre: 'Cambiada' });
    assert.equal(res.status, 200);
    assert.equal(fieldError(res.body, 'fecha_inicio_programa'), 'La fecha de inicio no puede ser posterior al 15/10/2026, fecha del primer examen registrado en el ciclo.');
    assert.deepEqual(await stored(p.id), before);
    // Up to the exam's day it moves, and the opening row of its history moves with it.
    assert.equal((await savePatient(p.id, { fecha_inicio_programa: '2026-10-15' })).status, 302);
    const opening = await ctx.db.selectFrom('ingreso_historial').select('fecha').where('ingreso_id', '=', p.ingresoId!).where('desde', 'is', null).executeTakeFirstOrThrow();
    assert.equal(opening.fecha, '2026-10-15');
  });

  test('moving the cycle start after its first status change', async () => {
    const p = await createPatient(ctx.db, {}, { fechaInicio: '2026-10-01' });
    await changeStatus(p.ingresoId!, 'SUSPENDIDO');
    await changeStatus(p.ingresoId!, 'ACTIVO');
    // The form refuses a start after today anyway: the rule shows with the status changes dated today, so the
    // stored history is moved back (as a change recorded on an earlier day would be).
    await ctx.db.updateTable('ingreso_historial').set({ fecha: '2026-11-10' }).where('ingreso_id', '=', p.ingresoId!).where('desde', 'is not', null).execute();
    const before = await stored(p.id);
    const res = await savePatient(p.id, { fecha_inicio_programa: '2026-11-11' });
    assert.equal(res.status, 200);
    assert.equal(fieldError(res.body, 'fecha_inicio_programa'), 'La fecha de inicio no puede ser posterior al 10/11/2026, fecha del primer cambio de estado del ciclo.');
    assert.deepEqual(await stored(p.id), before);
  });

  test('moving the birth date after the start of one of the patient’s cycles', async () => {
    const p = await createPatient(ctx.db, { fecha_nacimiento: '1970-05-10' }, { fechaInicio: '2026-01-10' });
    assert.equal((await terminate(p.ingresoId!, '2026-03-01')).status, 302);
    const nuevo = await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: '2026-06-01' });
    assert.equal(messagesIn((await client.follow(nuevo)).body)[0]?.level, 'success');
    const before = await stored(p.id);
    // The finished cycle started on 10/01/2026; the form's own cycle (moved along) is not the one in the way.
    const res = await savePatient(p.id, { fecha_nacimiento: '2026-02-01' });
    assert.equal(res.status, 200);
    assert.equal(fieldError(res.body, 'fecha_nacimiento'), 'La fecha de nacimiento no puede ser posterior al 10/01/2026, fecha de inicio de un ciclo del paciente.');
    assert.deepEqual(await stored(p.id), before);

    // A birth date and a start moved later together are saved (the start is written first), and back (the birth
    // date first then).
    const q = await createPatient(ctx.db, { fecha_nacimiento: '1970-05-10' }, { fechaInicio: '2026-01-10' });
    const moved = await savePatient(q.id, { fecha_nacimiento: '2026-02-01', fecha_inicio_programa: '2026-03-01' });
    assert.equal(moved.status, 302, fieldError(moved.body, 'fecha_nacimiento') ?? fieldError(moved.body, 'fecha_inicio_programa') ?? '');
    const after = await stored(q.id);
    assert.equal(after.patient!.fecha_nacimiento, '2026-02-01');
    assert.equal(after.ingresos[0]!.fecha_inicio, '2026-03-01');
    assert.equal((await savePatient(q.id, { fecha_nacimiento: '1970-05-10', fecha_inicio_programa: '2026-01-10' })).status, 302);
  });

  test('suspended and reactivated today, terminated ten days ago: the history would run backwards', async () => {
    const p = await createPatient(ctx.db, {}, { fechaInicio: '2026-06-01' });
    await changeStatus(p.ingresoId!, 'SUSPENDIDO');
    await changeStatus(p.ingresoId!, 'ACTIVO');
    const before = await stored(p.id);
    const res = await terminate(p.ingresoId!, '2026-11-12');
    assert.equal(res.status, 200);
    assert.equal(fieldError(res.body, 'fecha_terminacion'), 'La fecha de terminación no puede ser anterior al 22/11/2026, fecha del último cambio de estado.');
    // From the follow page's form (no page of its own): the same sentence in the message.
    const flashed = await client.post(`/patients/ingreso/estado/${p.ingresoId}/TERMINADO/`, { fecha_terminacion: '2026-11-12', motivo_estado: 'Alta' });
    assert.match(messagesIn((await client.follow(flashed)).body).at(-1)!.text, /anterior al 22\/11\/2026, fecha del último cambio de estado\./);
    assert.deepEqual(await stored(p.id), before);
    assert.equal((await terminate(p.ingresoId!, TODAY)).status, 302);
    const dates = (await stored(p.id)).history.map((h) => h.fecha);
    assert.deepEqual(dates, ['2026-06-01', TODAY, TODAY, TODAY]);
  });
});

describe('the database refuses the same writes made straight in SQL', () => {
  /** The refusal's code, on either engine; fails when the write went through. */
  async function refused(write: Promise<unknown>): Promise<string | null> {
    try {
      await write;
    } catch (err) {
      return dateRuleRefused(err);
    }
    assert.fail('the database accepted the write');
  }
  const insertExam = (ingresoId: number, fecha: string) =>
    ctx.db.insertInto('exam_records').values({ ingreso_id: ingresoId, kind: 'OTRO', fecha, nombre_examen: 'X', registrado_por: userId, created_at: `${fecha}T12:00:00.000Z` }).execute();
  const history = (ingresoId: number, desde: 'ACTIVO' | 'SUSPENDIDO' | null, hacia: string, fecha: string) =>
    ctx.db.insertInto('ingreso_historial').values({ ingreso_id: ingresoId, at: `${TODAY}T12:00:00.000Z`, user_id: null, desde, hacia, motivo: null, fecha }).execute();

  test('every rule, on update as on insert, with the code the application reads; a change of another column passes', async () => {
    const p = await createPatient(ctx.db, { fecha_nacimiento: '1970-05-10' }, { fechaInicio: '2026-10-01' });
    const i = p.ingresoId!;
    await insertExam(i, '2026-11-12');
    const before = await stored(p.id);
    const terminateAt = (fecha_fin: string) => ctx.db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin, motivo: 'x' }).where('id', '=', i).execute();
    assert.equal(await refused(terminateAt('2026-11-05')), 'end_before_exam');
    // Before its start is also before its opening: either rule may be the one that speaks first.
    assert.match((await refused(terminateAt('2026-09-30'))) ?? '', /^end_before_(start|status_change)$/);
    assert.equal(await refused(ctx.db.updateTable('ingresos').set({ fecha_inicio: '2026-11-13' }).where('id', '=', i).execute()), 'start_after_exam');
    assert.equal(await refused(ctx.db.updateTable('ingresos').set({ fecha_inicio: '1970-05-09' }).where('id', '=', i).execute()), 'start_before_birth');
    assert.equal(await refused(ctx.db.updateTable('patients').set({ fecha_nacimiento: '2026-10-02' }).where('id', '=', p.id).execute()), 'birth_after_start');
    assert.equal(await refused(insertExam(i, '2026-09-30')), 'exam_outside_cycle');
    assert.equal(await refused(history(i, 'ACTIVO', 'SUSPENDIDO', '2026-11-11')), 'status_change_before_exam');
    assert.equal(await refused(history(i, null, 'ACTIVO', '2026-09-30')), 'history_out_of_order');
    // An exam's date cannot change at all (records are only voided); the date rule holds there too.
    await assert.rejects(ctx.db.updateTable('exam_records').set({ fecha: '2026-09-30' }).where('ingreso_id', '=', i).execute());
    assert.deepEqual(await stored(p.id), before);

    // A cycle with status changes dated 20/11: it cannot end, nor start, on the wrong side of them.
    const q = await createPatient(ctx.db, {}, { fechaInicio: '2026-10-01' });
    const j = q.ingresoId!;
    await history(j, 'ACTIVO', 'SUSPENDIDO', '2026-11-20');
    await history(j, 'SUSPENDIDO', 'ACTIVO', '2026-11-20');
    const beforeQ = await stored(q.id);
    assert.equal(await refused(ctx.db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: '2026-11-19', motivo: 'x' }).where('id', '=', j).execute()), 'end_before_status_change');
    assert.equal(await refused(ctx.db.updateTable('ingresos').set({ fecha_inicio: '2026-11-21' }).where('id', '=', j).execute()), 'start_after_status_change');
    assert.equal(await refused(history(j, 'ACTIVO', 'SUSPENDIDO', '2026-11-19')), 'history_out_of_order');
    const opening = await ctx.db.selectFrom('ingreso_historial').select('id').where('ingreso_id', '=', j).where('desde', 'is', null).executeTakeFirstOrThrow();
    assert.equal(await refused(ctx.db.updateTable('ingreso_historial').set({ fecha: '2026-11-21' }).where('id', '=', opening.id).execute()), 'history_out_of_order');
    assert.deepEqual(await stored(q.id), beforeQ);

    // What breaks no rule still goes through.
    await ctx.db.updateTable('ingresos').set({ motivo: 'nota' }).where('id', '=', j).execute();
    await ctx.db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: '2026-11-20', motivo: 'x' }).where('id', '=', j).execute();
  });

  test('the application and the migration name the same rules', () => {
    assert.deepEqual([...DATE_RULE_CODES].sort(), Object.keys(DATE_RULE_MESSAGES).sort());
  });

  test('the rule a refusal names is read from the database\'s error on this engine, and from nothing else', async () => {
    const p = await createPatient(ctx.db, {}, { fechaInicio: null });
    const row = { paciente_id: p.id, fecha_inicio: '2026-10-01', fecha_fin: '2026-09-01', estado: 'TERMINADO' as const, motivo: 'x', created_at: TODAY, updated_at: TODAY };
    const err = await ctx.db.insertInto('ingresos').values(row).execute().then(
      () => null,
      (e: unknown) => e,
    );
    assert.equal(dateRuleRefused(err), 'end_before_start');
    assert.equal(dateRuleRefused(new Error('date rule end_before_start: but not from the database')), null);
    const count = await sql<{ n: number }>`select cast(count(*) as integer) as n from ingresos where paciente_id = ${p.id}`.execute(ctx.db);
    assert.equal(Number(count.rows[0]!.n), 0);
  });
});

// A write the domain check cannot see: on PostgreSQL, an exam record inserted by another connection and committed
// while the change waits for the cycle's row (the exam's guard shares it). SQLite has one writer at a time.
if (ENGINE === 'postgres') {
  describe('a race past the domain check (PostgreSQL): the refusal of the database comes back beside the field, with the date', () => {
    /** Runs `change` while another connection holds an uncommitted exam record on the cycle, and commits it once the change waits. */
    async function racingAnExam(ingresoId: number, fecha: string, change: () => Promise<{ status: number; body: string }>) {
      const other = new pg.Client({ connectionString: ctx.database.url });
      const watcher = new pg.Client({ connectionString: ctx.database.url });
      await other.connect();
      await watcher.connect();
      try {
        await other.query('begin');
        await other.query(`insert into exam_records (ingreso_id, kind, fecha, nombre_examen, registrado_por, created_at) values ($1, 'OTRO', $2, 'X', $3, $4)`, [ingresoId, fecha, userId, `${fecha}T12:00:00.000Z`]);
        const pending = change();
        // Until the change waits for the lock the exam's guard holds on the cycle's row.
        for (let polls = 0; ; polls++) {
          const { rows } = await watcher.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
          if (rows[0].n > 0) break;
          assert.ok(polls < 2000, 'the change never waited for the cycle');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await other.query('commit');
        return await pending;
      } finally {
        await other.end();
        await watcher.end();
      }
    }

    test('a termination dated before an exam committed meanwhile', async () => {
      const p = await createPatient(ctx.db, {}, { fechaInicio: '2026-10-01' });
      const res = await racingAnExam(p.ingresoId!, '2026-11-12', () => terminate(p.ingresoId!, '2026-11-05'));
      assert.equal(res.status, 200);
      assert.equal(fieldError(res.body, 'fecha_terminacion'), 'La fecha de terminación no puede ser anterior al 12/11/2026, fecha del último examen registrado en el ciclo.');
      assert.deepEqual((await stored(p.id)).ingresos.map((i) => [i.estado, i.fecha_fin]), [['ACTIVO', null]]);
    });

    test('a start moved past an exam committed meanwhile', async () => {
      const p = await createPatient(ctx.db, {}, { fechaInicio: '2026-10-01' });
      const res = await racingAnExam(p.ingresoId!, '2026-10-15', () => savePatient(p.id, { fecha_inicio_programa: '2026-10-20' }));
      assert.equal(res.status, 200);
      assert.equal(fieldError(res.body, 'fecha_inicio_programa'), 'La fecha de inicio no puede ser posterior al 15/10/2026, fecha del primer examen registrado en el ciclo.');
      assert.deepEqual((await stored(p.id)).ingresos.map((i) => i.fecha_inicio), ['2026-10-01']);
    });
  });
}

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
