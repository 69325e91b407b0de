// The exam actions without HTTP (issue 26): adding a record to the ACTIVO cycle and voiding it, each with its audit
// entry in the same transaction, on a real database (both engines).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, createUser, ENGINE, TestClock, type TestDatabase } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import type { ActionContext } from '../platform/writes/action-context.js';
import { addExamRecord, EXAM_MSG, voidExam } from './exam.actions.js';
import { MSG } from './exam.schema.js';

let database: TestDatabase;
let ctx: ActionContext;

before(async () => {
  database = await createTestDatabase();
  const user = await createUser(database.handle.db);
  ctx = { db: database.handle.db, clock: new TestClock(), timeZone: 'America/Bogota', actor: { id: user.id, username: user.username }, requestId: 'req-exam' };
});
after(async () => database.drop());

const OTRO = { fecha: '2026-11-17', nombre_examen: 'Espirometría', resultado: 'Normal', observaciones: '' };
const recordsOf = (ingresoId: number) => database.handle.db.selectFrom('exam_records').selectAll().where('ingreso_id', '=', ingresoId).execute();
const auditOf = (action: string, patientId: number) =>
  database.handle.db.selectFrom('audit_log').selectAll().where('action', '=', action).where('patient_id', '=', patientId).execute();

describe(`exam actions on ${ENGINE}`, () => {
  test('adding a record files it under the ACTIVO cycle with its exam.create entry', async () => {
    const p = await createPatient(database.handle.db, {}, { fechaInicio: '2026-09-10' });
    const result = await addExamRecord(ctx, { patientId: p.id, kind: 'OTRO', body: OTRO });
    assert.deepEqual(result, { kind: 'done', message: { level: 'success', text: EXAM_MSG.created('OTRO') } });
    const [record] = await recordsOf(p.ingresoId!);
    assert.deepEqual([record!.nombre_examen, record!.registrado_por], ['Espirometría', ctx.actor!.id]);
    const [entry] = await auditOf('exam.create', p.id);
    const changes = JSON.parse(entry!.changes!) as Record<string, unknown>;
    assert.deepEqual(Object.keys(changes).sort(), ['fecha', 'ingreso_id', 'kind', 'nombre_examen', 'registrado_por', 'resultado']);
  });

  test('a form with errors comes back with its values and errors; nothing is written', async () => {
    const p = await createPatient(database.handle.db, {}, { fechaInicio: '2026-09-10' });
    const result = await addExamRecord(ctx, { patientId: p.id, kind: 'OTRO', body: { ...OTRO, fecha: '2026-09-01' } });
    assert.equal(result.kind, 'invalid');
    assert.equal(result.kind === 'invalid' && result.posted.errors.fecha, MSG.fechaBeforeCycle('2026-09-10'));
    assert.deepEqual(await recordsOf(p.ingresoId!), []);
    assert.deepEqual(await auditOf('exam.create', p.id), []);
  });

  test('no ACTIVO cycle: refused with its message; an unknown patient is not found', async () => {
    const p = await createPatient(database.handle.db, {}, { fechaInicio: null });
    assert.deepEqual(await addExamRecord(ctx, { patientId: p.id, kind: 'OTRO', body: OTRO }), { kind: 'done', message: { level: 'error', text: EXAM_MSG.noActivo } });
    assert.deepEqual(await addExamRecord(ctx, { patientId: 999_999, kind: 'OTRO', body: OTRO }), { kind: 'not_found' });
  });

  test('voiding a record once, with its motivo and exam.void entry; a second time says so', async () => {
    const p = await createPatient(database.handle.db, {}, { fechaInicio: '2026-09-10' });
    await addExamRecord(ctx, { patientId: p.id, kind: 'OTRO', body: OTRO });
    const [record] = await recordsOf(p.ingresoId!);
    const voided = await voidExam(ctx, { patientId: p.id, recordId: record!.id, body: { motivo_anulacion: 'Paciente equivocado' } });
    assert.deepEqual(voided, { kind: 'done', message: { level: 'success', text: EXAM_MSG.voided(record!.id) } });
    assert.equal((await recordsOf(p.ingresoId!))[0]!.motivo_anulacion, 'Paciente equivocado');
    assert.equal((await auditOf('exam.void', p.id)).length, 1);
    const again = await voidExam(ctx, { patientId: p.id, recordId: record!.id, body: { motivo_anulacion: 'Otra vez' } });
    assert.deepEqual(again, { kind: 'done', message: { level: 'info', text: EXAM_MSG.alreadyVoided(record!.id) } });
    assert.equal((await auditOf('exam.void', p.id)).length, 1);
  });

  test('voiding without a motivo changes nothing; a record of another patient is not found', async () => {
    const p = await createPatient(database.handle.db, {}, { fechaInicio: '2026-09-10' });
    const other = await createPatient(database.handle.db, {}, { fechaInicio: '2026-09-10' });
    await addExamRecord(ctx, { patientId: p.id, kind: 'OTRO', body: OTRO });
    const [record] = await recordsOf(p.ingresoId!);
    const refused = await voidExam(ctx, { patientId: p.id, recordId: record!.id, body: { motivo_anulacion: '  ' } });
    assert.equal(refused.kind === 'done' && refused.message.level, 'error');
    assert.equal((await recordsOf(p.ingresoId!))[0]!.anulado_at, null);
    assert.deepEqual(await voidExam(ctx, { patientId: other.id, recordId: record!.id, body: { motivo_anulacion: 'x' } }), { kind: 'not_found' });
  });
});
