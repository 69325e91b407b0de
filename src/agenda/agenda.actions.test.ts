// The agenda's actions on a real database (both engines): a cycle's plan at opening, paused, resumed and cancelled
// with it; bookings and their refusals; the overlap guard under concurrency; attended linked to its exam.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, createUser, ENGINE, TestClock, type TestDatabase } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { changeIngresoStatus, openNewCycle } from '../ingresos/ingreso.actions.js';
import type { ActionContext } from '../platform/writes/action-context.js';
import { validateForm } from '../web/form.js';
import { attendVisit, bookVisit, cancelVisit, markNoShow, rescheduleVisit } from './agenda.actions.js';
import { AGENDA_MSG } from './agenda.rules.js';
import { attendForm, bookingForm, cancelForm, rescheduleForm } from './agenda.schema.js';

let database: TestDatabase;
let ctx: ActionContext;
let profesional: number;
let otro: number;
const db = () => database.handle.db;

before(async () => {
  // 20 concurrent bookings: each with its own connection, so they wait for each other in the database (the guard
  // under test), never for a connection (under a loaded CI the pool's 3 s wait ran out).
  database = await createTestDatabase({ poolSize: 24 });
  const user = await createUser(db());
  profesional = user.id;
  otro = (await createUser(db())).id;
  ctx = { db: db(), clock: new TestClock(), timeZone: 'America/Bogota', actor: { id: user.id, username: user.username }, requestId: 'req-a' };
});
after(async () => database.drop());

const posted = (values: Record<string, string>) => ({ values: { query_search: '', page: '', ...values }, errors: {} });
const citasOf = (ingresoId: number) => db().selectFrom('citas').selectAll().where('ingreso_id', '=', ingresoId).orderBy('vence_el').orderBy('id').execute();
const historyOf = (citaId: number) => db().selectFrom('cita_historial').selectAll().where('cita_id', '=', citaId).orderBy('id').execute();

/** A patient with a cycle opened through the action (so its plan is made), starting on `fecha`. */
async function patientWithCycle(programa: 'PROGRAMA AOS' | 'PROGRAMA INSOMNIO' = 'PROGRAMA AOS', fecha = '2026-11-20') {
  const p = await createPatient(db(), { programa }, { fechaInicio: null });
  const r = await openNewCycle(ctx, { pacienteId: p.id, form: posted({ fecha_inicio: fecha }) });
  assert.equal(r.kind === 'done' && r.decision?.kind, 'ok');
  const ingreso = await db().selectFrom('ingresos').select('id').where('paciente_id', '=', p.id).executeTakeFirstOrThrow();
  return { id: p.id, ingresoId: ingreso.id };
}

const booking = (values: Partial<Record<string, string>>) =>
  validateForm(
    { patient_id: '', tipo: 'CONTROL_CPAP', fecha: '2026-11-24', hora: '08:00', duracion_min: '30', profesional: String(profesional), recurso: '', ...values },
    bookingForm,
  );

describe(`agenda actions on ${ENGINE}`, () => {
  test('opening a cycle plans its program visits as due, each with its history row', async () => {
    const aos = await patientWithCycle('PROGRAMA AOS');
    const citas = await citasOf(aos.ingresoId);
    assert.equal(citas.length, 14);
    assert.ok(citas.every((c) => c.estado === 'PENDIENTE' && c.fecha === null));
    assert.deepEqual(citas.slice(0, 3).map((c) => [c.tipo, c.vence_el]), [
      ['CONSULTA_INGRESO', '2026-11-20'],
      ['PSG_BASAL', '2026-12-04'],
      ['CONTROL_CPAP', '2027-01-19'],
    ]);
    assert.deepEqual((await historyOf(citas[0]!.id)).map((h) => [h.desde, h.hacia]), [[null, 'PENDIENTE']]);
    const ins = await patientWithCycle('PROGRAMA INSOMNIO');
    const sessions = (await citasOf(ins.ingresoId)).filter((c) => c.tipo === 'SESION_TCC_I');
    assert.equal(sessions.length, 8);
    assert.equal(sessions[1]!.vence_el, '2026-12-25'); // 21 + 14 days after 2026-11-20
  });

  test('suspending pauses the pending and booked visits, reactivating makes them due again, terminating cancels them', async () => {
    const p = await patientWithCycle();
    const booked = await bookVisit(ctx, booking({ patient_id: String(p.id), hora: '09:00' }));
    assert.ok(booked.ok, JSON.stringify(booked));
    const status = (target: 'SUSPENDIDO' | 'ACTIVO' | 'TERMINADO', extra: Record<string, string> = {}) =>
      changeIngresoStatus(ctx, { ingresoId: p.ingresoId, target, form: posted({ fecha_terminacion: '', motivo_estado: 'Viaje', confirmacion: '', ...extra }) });
    await status('SUSPENDIDO');
    let citas = await citasOf(p.ingresoId);
    assert.ok(citas.every((c) => c.estado === 'PAUSADA'), JSON.stringify(citas.map((c) => c.estado)));
    assert.equal(citas.find((c) => booked.ok && c.id === booked.id)?.fecha, null); // the slot is let go
    await status('ACTIVO');
    citas = await citasOf(p.ingresoId);
    assert.ok(citas.every((c) => c.estado === 'PENDIENTE'));
    await status('TERMINADO', { fecha_terminacion: '2026-11-22', motivo_estado: 'Alta', confirmacion: '1' });
    citas = await citasOf(p.ingresoId);
    assert.ok(citas.every((c) => c.estado === 'CANCELADA' && c.motivo === 'Ciclo terminado'));
    assert.deepEqual((await historyOf(booked.ok ? booked.id : 0)).map((h) => h.hacia), ['PENDIENTE', 'AGENDADA', 'PAUSADA', 'PENDIENTE', 'CANCELADA']);
  });

  test('a booking fills the earliest due visit of its kind; it is audited', async () => {
    const p = await patientWithCycle();
    const r = await bookVisit(ctx, booking({ patient_id: String(p.id), tipo: 'PSG_BASAL', hora: '10:00', duracion_min: '60' }));
    assert.ok(r.ok);
    const row = await db().selectFrom('citas').selectAll().where('id', '=', r.id).executeTakeFirstOrThrow();
    assert.deepEqual([row.estado, row.vence_el, row.fecha, row.hora, row.fin_min! - row.inicio_min!], ['AGENDADA', '2026-12-04', '2026-11-24', '10:00', 60]);
    const audit = await db().selectFrom('audit_log').selectAll().where('action', '=', 'cita.book').where('entity_id', '=', r.id).execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.patient_id, p.id);
  });

  test('bad input: each refusal beside its field, nothing stored', async () => {
    const p = await patientWithCycle();
    const before = (await citasOf(p.ingresoId)).length;
    const expect = async (values: Record<string, string>, field: string, message?: string) => {
      const r = await bookVisit(ctx, booking({ patient_id: String(p.id), ...values }));
      assert.equal(r.ok, false, JSON.stringify(values));
      assert.ok(!r.ok && r.errors[field], `${field}: ${JSON.stringify(!r.ok && r.errors)}`);
      if (message) assert.equal(!r.ok && r.errors[field], message);
    };
    await expect({ hora: '06:30' }, 'hora', AGENDA_MSG.outsideHours('07:00', '19:00'));
    await expect({ hora: '18:45', duracion_min: '30' }, 'hora');
    await expect({ fecha: '2026-11-21' }, 'fecha', AGENDA_MSG.pastDate);
    await expect({ profesional: '999999' }, 'profesional', AGENDA_MSG.unknownProfesional);
    await expect({ recurso: '999999' }, 'recurso', AGENDA_MSG.unknownRecurso);
    await expect({ duracion_min: '0' }, 'duracion_min', AGENDA_MSG.duracion);
    await expect({ duracion_min: '481' }, 'duracion_min', AGENDA_MSG.duracion);
    await expect({ tipo: 'NO_EXISTE' }, 'tipo', AGENDA_MSG.unknownTipo);
    await expect({ fecha: '2026-02-30' }, 'fecha');
    await expect({ hora: '25:00' }, 'hora', AGENDA_MSG.hora);
    assert.equal((await citasOf(p.ingresoId)).length, before);
    assert.ok((await citasOf(p.ingresoId)).every((c) => c.estado === 'PENDIENTE'));

    const ended = await createPatient(db(), {}, { fechaInicio: '2026-10-01' });
    await changeIngresoStatus(ctx, { ingresoId: ended.ingresoId!, target: 'TERMINADO', form: posted({ fecha_terminacion: '2026-11-01', motivo_estado: 'Alta', confirmacion: '1' }) });
    const r = await bookVisit(ctx, booking({ patient_id: String(ended.id) }));
    assert.deepEqual(!r.ok && r.errors.patient_id, AGENDA_MSG.cycleFinished);
    assert.equal((await citasOf(ended.ingresoId!)).length, 0);
  });

  test('no double booking: 20 concurrent overlapping bookings of one professional, exactly 1 stored', async () => {
    const patients = await Promise.all(Array.from({ length: 20 }, () => createPatient(db(), {}, { fechaInicio: '2026-11-01' })));
    const results = await Promise.all(
      patients.map((p, i) => bookVisit(ctx, booking({ patient_id: String(p.id), profesional: String(otro), fecha: '2026-11-25', hora: i % 2 ? '11:00' : '11:15', duracion_min: '30' }))),
    );
    assert.equal(results.filter((r) => r.ok).length, 1);
    for (const r of results.filter((r) => !r.ok)) assert.equal(!r.ok && r.errors.hora, AGENDA_MSG.overlapProfesional);
    const stored = await db().selectFrom('citas').select('id').where('profesional_id', '=', otro).where('fecha', '=', '2026-11-25').execute();
    assert.equal(stored.length, 1);
  });

  test('no double booking of a resource, by concurrent bookings with different professionals', async () => {
    const recurso = (await db().selectFrom('agenda_recursos').select('id').where('nombre', '=', 'Polígrafo 1').executeTakeFirstOrThrow()).id;
    const users = await Promise.all(Array.from({ length: 20 }, () => createUser(db())));
    const patients = await Promise.all(users.map(() => createPatient(db(), {}, { fechaInicio: '2026-11-01' })));
    const results = await Promise.all(
      patients.map((p, i) =>
        bookVisit(ctx, booking({ patient_id: String(p.id), profesional: String(users[i]!.id), recurso: String(recurso), fecha: '2026-11-26', hora: '14:00', duracion_min: '60' })),
      ),
    );
    assert.equal(results.filter((r) => r.ok).length, 1);
    for (const r of results.filter((r) => !r.ok)) assert.equal(!r.ok && r.errors.recurso, AGENDA_MSG.overlapRecurso);
    // Back to back is not an overlap.
    const next = await bookVisit(ctx, booking({ patient_id: String(patients[0]!.id), profesional: String(users[0]!.id), recurso: String(recurso), fecha: '2026-11-26', hora: '15:00' }));
    assert.ok(next.ok, JSON.stringify(next));
  });

  test('reschedule, cancel with a reason, no-show, and attended linked to its exam record', async () => {
    const p = await patientWithCycle();
    const a = await bookVisit(ctx, booking({ patient_id: String(p.id), tipo: 'CONSULTA_INGRESO', fecha: '2026-11-27', hora: '08:00' }));
    assert.ok(a.ok);
    const moved = await rescheduleVisit(ctx, a.id, validateForm({ fecha: '2026-11-27', hora: '09:00', duracion_min: '45', profesional: String(profesional), recurso: '' }, rescheduleForm));
    assert.ok(moved.ok, JSON.stringify(moved));
    const row = await db().selectFrom('citas').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    assert.deepEqual([row.hora, row.duracion_min], ['09:00', 45]);

    const noReason = await cancelVisit(ctx, a.id, validateForm({ motivo: ' ' }, cancelForm));
    assert.deepEqual(!noReason.ok && noReason.errors.motivo, AGENDA_MSG.motivo);
    const cancelled = await cancelVisit(ctx, a.id, validateForm({ motivo: 'El paciente viaja' }, cancelForm));
    assert.ok(cancelled.ok);
    const again = await cancelVisit(ctx, a.id, validateForm({ motivo: 'otra vez' }, cancelForm));
    assert.equal(again.ok, false);

    const b = await bookVisit(ctx, booking({ patient_id: String(p.id), tipo: 'CONTROL_CPAP', fecha: '2026-11-22', hora: '16:00' }));
    assert.ok(b.ok, JSON.stringify(b));
    const exam = await db()
      .insertInto('exam_records')
      .values({ ingreso_id: p.ingresoId, kind: 'MONITOREO', fecha: '2026-11-22', registrado_por: profesional, created_at: '2026-11-22T16:30:00.000Z', observaciones: null, tipo: 'DESCARGA_CPAP', iah: null, saturacion_minima: null, horas_uso_promedio: 500, porcentaje_noches_4h: 8000, presion_cmh2o: null, fuga_lpm: null, tipo_sesion: null, numero_sesion: null, isi: null, epworth: null, nombre_examen: null, resultado: null, anulado_at: null, anulado_por: null, motivo_anulacion: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const other = await createPatient(db(), {}, { fechaInicio: '2026-11-01' });
    const foreign = await db().insertInto('exam_records').values({ ingreso_id: other.ingresoId!, kind: 'OTRO', fecha: '2026-11-22', registrado_por: profesional, created_at: '2026-11-22T16:30:00.000Z', observaciones: null, tipo: null, iah: null, saturacion_minima: null, horas_uso_promedio: null, porcentaje_noches_4h: null, presion_cmh2o: null, fuga_lpm: null, tipo_sesion: null, numero_sesion: null, isi: null, epworth: null, nombre_examen: 'x', resultado: null, anulado_at: null, anulado_por: null, motivo_anulacion: null }).returning('id').executeTakeFirstOrThrow();
    const wrong = await attendVisit(ctx, b.id, validateForm({ exam_record_id: String(foreign.id) }, attendForm));
    assert.equal(!wrong.ok && wrong.errors.exam_record_id, AGENDA_MSG.examOther);
    const attended = await attendVisit(ctx, b.id, validateForm({ exam_record_id: String(exam.id) }, attendForm));
    assert.ok(attended.ok);
    const rowB = await db().selectFrom('citas').selectAll().where('id', '=', b.id).executeTakeFirstOrThrow();
    assert.deepEqual([rowB.estado, rowB.exam_record_id], ['ATENDIDA', exam.id]);

    const c = await bookVisit(ctx, booking({ patient_id: String(p.id), tipo: 'CONTROL_CPAP', fecha: '2026-11-23', hora: '16:00' }));
    assert.ok(c.ok);
    assert.ok((await markNoShow(ctx, c.id)).ok);
    assert.equal((await markNoShow(ctx, c.id)).ok, false);
    const actions = await db().selectFrom('audit_log').select('action').where('patient_id', '=', p.id).where('action', 'like', 'cita.%').orderBy('id').execute();
    assert.deepEqual(actions.map((x) => x.action), ['cita.book', 'cita.reschedule', 'cita.cancel', 'cita.book', 'cita.attend', 'cita.book', 'cita.no_show']);
  });
});
