// The agenda administration's actions and the exam's attending step on a real database (both engines): an edition
// published concurrently once, cycles following the edition in force on their start, the settings' audit of what
// changed, and an exam record rolled back with a visit it cannot attend.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, createUser, ENGINE, TestClock, type TestDatabase } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { addExamRecord } from '../exams/exam.actions.js';
import { openNewCycle } from '../ingresos/ingreso.actions.js';
import type { ActionContext } from '../platform/writes/action-context.js';
import { parseForm } from '../web/form.js';
import { bookVisit } from './agenda.actions.js';
import { addRecurso, publishPlanEdition, saveAgendaSettings } from './agenda.admin.actions.js';
import { ADMIN_MSG } from './agenda.admin.rules.js';
import { ajustesForm, editionForm, newRecursoForm } from './agenda.admin.schema.js';
import { AGENDA_MSG } from './agenda.rules.js';
import { bookingForm } from './agenda.schema.js';

let database: TestDatabase;
let ctx: ActionContext;
const clock = new TestClock();
const db = () => database.handle.db;

before(async () => {
  database = await createTestDatabase();
  const user = await createUser(db(), { isAdmin: true });
  ctx = { db: db(), clock, timeZone: 'America/Bogota', actor: { id: user.id, username: user.username }, requestId: 'req-admin' };
});
after(async () => database.drop());

const edition = (values: Record<string, string>) =>
  parseForm({ programa: 'PROGRAMA INSOMNIO', vigente_desde: '2026-12-01', tipo_1: 'CONSULTA_INGRESO', dia_1: '0', repeticiones_1: '', intervalo_1: '', ...values }, editionForm);
const audits = async (action: string) => db().selectFrom('audit_log').select(['changes']).where('action', '=', action).orderBy('id').execute();

async function cycleFrom(fecha: string, programa: 'PROGRAMA AOS' | 'PROGRAMA INSOMNIO' = 'PROGRAMA INSOMNIO') {
  const p = await createPatient(db(), { programa }, { fechaInicio: null });
  const r = await openNewCycle(ctx, { pacienteId: p.id, form: { values: { fecha_inicio: fecha, query_search: '', page: '' }, errors: {} } });
  assert.equal(r.kind === 'done' && r.decision?.kind, 'ok');
  return p.id;
}
const tiposOf = async (pacienteId: number) => (await db().selectFrom('citas').select('tipo').where('paciente_id', '=', pacienteId).orderBy('vence_el').execute()).map((c) => c.tipo);

describe(`agenda administration actions on ${ENGINE}`, () => {
  test('two administrators publishing the same date at once: one edition, the other refused beside the date', async () => {
    const results = await Promise.all([publishPlanEdition(ctx, edition({})), publishPlanEdition(ctx, edition({}))]);
    assert.equal(results.filter((r) => r.ok).length, 1, JSON.stringify(results));
    const refused = results.find((r) => !r.ok);
    assert.deepEqual(refused && !refused.ok && refused.errors, { vigente_desde: ADMIN_MSG.notAfterLatest('2026-12-01') });
    const rows = await db().selectFrom('agenda_planes').select('id').where('programa', '=', 'PROGRAMA INSOMNIO').where('vigente_desde', '=', '2026-12-01').execute();
    assert.equal(rows.length, 1);
    const [entry] = await audits('agenda.plan_edition');
    assert.match(entry!.changes!, /CONSULTA_INGRESO día 0 \(una vez\)/);
  });

  test('a cycle follows the edition in force on its start: before the new one the seed, from it the new one', async () => {
    const early = await cycleFrom('2026-11-22');
    assert.ok((await tiposOf(early)).includes('SESION_TCC_I'));
    // The clock moves to the edition's first day: a cycle starting then gets its one visit.
    clock.set('2026-12-01T15:00:00.000Z');
    try {
      const late = await cycleFrom('2026-12-01');
      assert.deepEqual(await tiposOf(late), ['CONSULTA_INGRESO']);
      assert.ok((await tiposOf(early)).includes('SESION_TCC_I'), 'the earlier cycle keeps its plan');
    } finally {
      clock.set('2026-11-22T15:00:00.000Z');
    }
  });

  test('settings: the entry says what changed; nothing changed writes nothing; a resource name taken is refused', async () => {
    const save = (v: Record<string, string>) => saveAgendaSettings(ctx, parseForm({ hora_apertura: '07:00', hora_cierre: '19:00', lugar: 'Clínica del sueño Somno', ...v }, ajustesForm));
    assert.deepEqual(await save({}), { ok: true, message: 'No había cambios que guardar.' });
    assert.equal((await audits('agenda.settings')).length, 0);
    assert.equal((await save({ hora_cierre: '18:00' })).ok, true);
    assert.deepEqual(JSON.parse((await audits('agenda.settings'))[0]!.changes!), { hora_cierre: ['19:00', '18:00'] });
    const taken = await addRecurso(ctx, parseForm({ nombre: 'Consultorio 1', clase: 'SALA' }, newRecursoForm));
    assert.deepEqual(taken, { ok: false, errors: { nombre: ADMIN_MSG.nombreTaken } });
  });

  test('an exam record with a visit it cannot attend is rolled back whole; with its own visit both are stored', async () => {
    const id = await cycleFrom('2026-11-20', 'PROGRAMA AOS');
    const booked = await bookVisit(
      ctx,
      parseForm({ patient_id: String(id), tipo: 'PSG_BASAL', fecha: '2026-11-22', hora: '08:00', duracion_min: '60', profesional: String(ctx.actor!.id), recurso: '' }, bookingForm),
    );
    assert.ok(booked.ok);
    const body = (tipo: string) => ({ fecha: '2026-11-22', hora: '', tipo, iah: '', saturacion_minima: '', horas_uso_promedio: '', porcentaje_noches_4h: '', presion_cmh2o: '', fuga_lpm: '', observaciones: '', cita_id: String(booked.id) });
    const wrong = await addExamRecord(ctx, { patientId: id, kind: 'MONITOREO', body: body('DESCARGA_CPAP') });
    assert.equal(wrong.kind, 'invalid');
    assert.deepEqual(wrong.kind === 'invalid' && wrong.posted.errors, { cita_id: AGENDA_MSG.visitNotOffered });
    const count = async () => (await db().selectFrom('exam_records as e').innerJoin('ingresos as i', 'i.id', 'e.ingreso_id').select('e.id').where('i.paciente_id', '=', id).execute()).length;
    assert.equal(await count(), 0);
    const right = await addExamRecord(ctx, { patientId: id, kind: 'MONITOREO', body: body('POLISOMNOGRAFIA') });
    assert.equal(right.kind, 'done');
    const cita = await db().selectFrom('citas').select(['estado', 'exam_record_id']).where('id', '=', booked.id).executeTakeFirstOrThrow();
    const record = await db().selectFrom('exam_records as e').innerJoin('ingresos as i', 'i.id', 'e.ingreso_id').select('e.id').where('i.paciente_id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(cita, { estado: 'ATENDIDA', exam_record_id: record.id });
    const history = await db().selectFrom('cita_historial').select(['desde', 'hacia']).where('cita_id', '=', booked.id).orderBy('id').execute();
    assert.deepEqual(history.at(-1), { desde: 'AGENDADA', hacia: 'ATENDIDA' });
  });

  test('the database holds the same rules: hours as HH:MM, a place and a name not blank, a repeated line with its interval', async () => {
    const refused = async (what: string, write: () => Promise<unknown>) => assert.rejects(write, what);
    await refused('an hour not HH:MM', () => db().updateTable('agenda_ajustes').set({ hora_apertura: '7:00' }).where('id', '=', 1).execute());
    await refused('an hour past 23:59', () => db().updateTable('agenda_ajustes').set({ hora_cierre: '24:00' }).where('id', '=', 1).execute());
    await refused('a blank place', () => db().updateTable('agenda_ajustes').set({ lugar: '   ' }).where('id', '=', 1).execute());
    await refused('a blank resource name', () => db().insertInto('agenda_recursos').values({ nombre: ' ', clase: 'SALA', activo: 1 }).execute());
    const plan = await db().selectFrom('agenda_planes').select('id').orderBy('id').executeTakeFirstOrThrow();
    await refused('a repeated line without interval', () =>
      db().insertInto('agenda_plan_visitas').values({ plan_id: plan.id, tipo: 'SESION_TCC_I', dia: 10, repeticiones: 3, intervalo_dias: 0 }).execute(),
    );
    // What the pages write passes.
    await db().updateTable('agenda_ajustes').set({ hora_apertura: '06:30', hora_cierre: '23:59', lugar: 'Sede norte' }).where('id', '=', 1).execute();
    await db().insertInto('agenda_plan_visitas').values({ plan_id: plan.id, tipo: 'SESION_TCC_I', dia: 10, repeticiones: 1, intervalo_dias: 0 }).execute();
    await db().updateTable('agenda_ajustes').set({ hora_apertura: '07:00', hora_cierre: '18:00', lugar: 'Clínica del sueño Somno' }).where('id', '=', 1).execute();
  });
});
