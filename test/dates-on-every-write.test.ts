// Issue 25, point 5: every date rule of the records on every write path (decision 0063). Through the forms: the
// four changes that used to be accepted are refused with the date they conflict with beside the field, and nothing
// changes. Straight in SQL: the database refuses the same updates (rows broken before: date-violations.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { dateRuleRefused, DATE_RULE_CODES } from '../src/db/errors.js';
import { DATE_RULE_MESSAGES } from '../src/db/migrations/20261126_0160_date_rules_on_every_write.js';
import { findPatientById } from '../src/patients/patient.repository.js';
import { createPatient } from './fixtures/patient.fixtures.js';
import { patientFormValues } from '../src/patients/patient.schema.js';
import { createTestContext, decodeEntities, ENGINE, loggedInClient, messagesIn, type TestClient, type TestContext } from './helpers.js';

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
