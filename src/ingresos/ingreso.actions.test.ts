// The Ingreso's actions without HTTP (issue 26): each one changes the cycle, writes its history row and its audit
// entry in one transaction, and says what to show, on a real database (both engines).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, createUser, ENGINE, TestClock, type TestDatabase } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import type { ActionContext } from '../platform/writes/action-context.js';
import { changeIngresoStatus, openNewCycle } from './ingreso.actions.js';
import { MSG } from './ingreso.rules.js';

let database: TestDatabase;
let ctx: ActionContext;

before(async () => {
  database = await createTestDatabase();
  const user = await createUser(database.handle.db);
  ctx = { db: database.handle.db, clock: new TestClock(), timeZone: 'America/Bogota', actor: { id: user.id, username: user.username }, requestId: 'req-1' };
});
after(async () => database.drop());

const posted = (values: Record<string, string>, errors: Record<string, string> = {}) => ({ values: { query_search: '', page: '', ...values }, errors });
const ingresoOf = (id: number) => database.handle.db.selectFrom('ingresos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const auditOf = (action: string, patientId: number) =>
  database.handle.db.selectFrom('audit_log').selectAll().where('action', '=', action).where('patient_id', '=', patientId).execute();
const historyOf = (ingresoId: number) => database.handle.db.selectFrom('ingreso_historial').selectAll().where('ingreso_id', '=', ingresoId).orderBy('id').execute();

describe(`Ingreso actions on ${ENGINE}`, () => {
  test('terminating a cycle: estado, end, motivo, history row and audit entry, with the message to show', async () => {
    const p = await createPatient(database.handle.db, { nombre: 'Termina' }, { fechaInicio: '2026-09-01' });
    const result = await changeIngresoStatus(ctx, {
      ingresoId: p.ingresoId!,
      target: 'TERMINADO',
      form: posted({ fecha_terminacion: '2026-11-20', motivo_estado: 'Alta', confirmacion: '1' }),
    });
    assert.equal(result.kind, 'done');
    assert.deepEqual(result.kind === 'done' && result.message, { level: 'success', text: MSG.terminated('Termina') });
    const row = await ingresoOf(p.ingresoId!);
    assert.deepEqual([row.estado, row.fecha_fin, row.motivo], ['TERMINADO', '2026-11-20', 'Alta']);
    assert.deepEqual((await historyOf(p.ingresoId!)).map((h) => h.hacia), ['ACTIVO', 'TERMINADO']);
    const [entry] = await auditOf('ingreso.status', p.id);
    assert.equal(entry!.user_id, ctx.actor!.id);
    assert.equal(entry!.request_id, 'req-1');
  });

  test('a termination refused from the page that asks first: the errors beside its fields, nothing written', async () => {
    const p = await createPatient(database.handle.db, { nombre: 'Refusa' }, { fechaInicio: '2026-09-01' });
    const result = await changeIngresoStatus(ctx, { ingresoId: p.ingresoId!, target: 'TERMINADO', form: posted({ fecha_terminacion: '', motivo_estado: '', confirmacion: '1' }) });
    assert.ok(result.kind === 'done' && result.fieldErrors);
    assert.ok(result.fieldErrors.fecha_terminacion && result.fieldErrors.motivo_estado);
    assert.equal((await ingresoOf(p.ingresoId!)).estado, 'ACTIVO');
    assert.deepEqual(await auditOf('ingreso.status', p.id), []);
  });

  test('suspending then reactivating; an unknown cycle is not found', async () => {
    const p = await createPatient(database.handle.db, { nombre: 'Suspende' });
    const suspended = await changeIngresoStatus(ctx, { ingresoId: p.ingresoId!, target: 'SUSPENDIDO', form: posted({ fecha_terminacion: '', motivo_estado: 'Viaje', confirmacion: '' }) });
    assert.deepEqual(suspended.kind === 'done' && suspended.message, { level: 'success', text: MSG.suspended('Suspende') });
    const back = await changeIngresoStatus(ctx, { ingresoId: p.ingresoId!, target: 'ACTIVO', form: posted({ fecha_terminacion: '', motivo_estado: '', confirmacion: '' }) });
    assert.deepEqual(back.kind === 'done' && back.message, { level: 'success', text: MSG.reactivated('Suspende') });
    assert.equal((await auditOf('ingreso.status', p.id)).length, 2);
    assert.deepEqual(await changeIngresoStatus(ctx, { ingresoId: 999_999, target: 'ACTIVO', form: posted({}) }), { kind: 'not_found' });
  });

  test('opening a new cycle after the last one ended, and refusing a second one while it is open', async () => {
    const p = await createPatient(database.handle.db, { nombre: 'Reabre' }, { fechaInicio: '2026-08-01' });
    await changeIngresoStatus(ctx, { ingresoId: p.ingresoId!, target: 'TERMINADO', form: posted({ fecha_terminacion: '2026-10-01', motivo_estado: 'Fin', confirmacion: '' }) });
    const opened = await openNewCycle(ctx, { pacienteId: p.id, form: posted({ fecha_inicio: '2026-10-05' }) });
    assert.deepEqual(opened.kind === 'done' && opened.message, { level: 'success', text: MSG.newCycleCreated('Reabre') });
    const [entry] = await auditOf('ingreso.open', p.id);
    assert.equal(entry!.user_id, ctx.actor!.id);
    const again = await openNewCycle(ctx, { pacienteId: p.id, form: posted({ fecha_inicio: '2026-10-06' }) });
    assert.deepEqual(again.kind === 'done' && again.message, { level: 'error', text: MSG.pendingProcess });
    assert.equal((await auditOf('ingreso.open', p.id)).length, 1);
  });

  test('a malformed new-cycle form changes nothing and names the field', async () => {
    const p = await createPatient(database.handle.db, { nombre: 'Mal' }, { fechaInicio: null });
    const result = await openNewCycle(ctx, { pacienteId: p.id, form: posted({ fecha_inicio: '' }, { fecha_inicio: 'Envíe este campo una sola vez.' }) });
    assert.deepEqual(result.kind === 'done' && result.message, { level: 'error', text: 'No se pudo iniciar el ciclo. Fecha de inicio: Envíe este campo una sola vez.' });
    assert.deepEqual(await auditOf('ingreso.open', p.id), []);
    assert.deepEqual(await openNewCycle(ctx, { pacienteId: 999_999, form: posted({ fecha_inicio: '2026-10-01' }) }), { kind: 'not_found' });
  });
});
