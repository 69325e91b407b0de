// The patient's use cases called without HTTP, on the test engine: what a form's submit would do.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../test/helpers.js';
import type { Db } from '../db/database.js';
import { openIngreso } from '../ingresos/ingreso.repository.js';
import type { ActionContext } from '../platform/writes/action-context.js';
import { createPatient as seedPatient, newPatientRow } from '../../test/fixtures/patient.fixtures.js';
import { createPatient, updatePatientRecord } from './patient.actions.js';
import type { PatientInput } from './patient.schema.js';

const TODAY = '2026-11-22';
const AT = new Date('2026-11-22T15:00:00.000Z');
let database: TestDatabase;
let db: Db;
let ctx: ActionContext;

/** A valid input of the patient form, with a documento no other test uses. */
function input(overrides: Partial<PatientInput> = {}): PatientInput {
  const { nombre_norm: _n, apellido_norm: _a, documento_key: _k, created_at: _c, updated_at: _u, ...fields } = newPatientRow(overrides) as Record<string, unknown>;
  return fields as unknown as PatientInput;
}

const auditOf = (patientId: number) =>
  db.selectFrom('audit_log').select(['action', 'changes', 'request_id']).where('patient_id', '=', patientId).orderBy('id').execute();

before(async () => {
  database = await createTestDatabase();
  db = database.handle.db;
  ctx = { db, clock: { now: () => AT }, timeZone: 'America/Bogota', actor: null, requestId: 'test' };
});
after(async () => database.drop());

describe('createPatient (action)', () => {
  test('writes the patient, its ACTIVO cycle from the given start and the patient.create entry, and says so', async () => {
    const result = await createPatient(ctx, { patient: input({ nombre: 'Rosa', apellido: 'Díaz' }), fechaInicioPrograma: '2026-11-03', otherPerson: false });
    assert.ok(result.ok);
    assert.match(result.message, /^Paciente Rosa Díaz registrado \(ficha n\.º \d+\)\. Ciclo ACTIVO desde el 03\/11\/2026\.$/);
    const ingresos = await db.selectFrom('ingresos').select(['estado', 'fecha_inicio']).where('paciente_id', '=', result.id).execute();
    assert.deepEqual(ingresos, [{ estado: 'ACTIVO', fecha_inicio: '2026-11-03' }]);
    const audit = await auditOf(result.id);
    assert.deepEqual(audit.map((a) => [a.action, a.request_id]), [['patient.create', 'test']]);
    assert.deepEqual(JSON.parse(audit[0]!.changes!).nombre, [null, 'Rosa']);
  });

  test('without a start the cycle starts on the context\'s day', async () => {
    const result = await createPatient(ctx, { patient: input(), fechaInicioPrograma: null, otherPerson: false });
    assert.ok(result.ok);
    const ingreso = await db.selectFrom('ingresos').select('fecha_inicio').where('paciente_id', '=', result.id).executeTakeFirstOrThrow();
    assert.equal(ingreso.fecha_inicio, TODAY);
  });

  test('a documento taken (typed in another case) is a field error and writes nothing', async () => {
    const taken = await seedPatient(db, { documento: `DOC${process.pid}A` });
    const before = await db.selectFrom('patients').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const result = await createPatient(ctx, { patient: input({ documento: taken.documento.toLowerCase() }), fechaInicioPrograma: null, otherPerson: false });
    // The error names the record that holds the documento, with a link to it (issue 29, point 8).
    assert.deepEqual(result, {
      ok: false,
      errors: { documento: 'Ya existe un paciente con este documento.' },
      similar: [],
      documentoHolder: { id: taken.id, name: 'Ana Prueba' },
    });
    const after = await db.selectFrom('patients').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });

  test('a similar person (same birth date, similar name) holds the creation back until confirmed as another', async () => {
    const existing = await seedPatient(db, { nombre: 'Hortensia', apellido: 'Quintero', fecha_nacimiento: '1961-02-03' });
    const person = input({ nombre: 'Hortencia', apellido: 'Quintero', fecha_nacimiento: '1961-02-03' });
    const held = await createPatient(ctx, { patient: person, fechaInicioPrograma: null, otherPerson: false });
    assert.ok(!held.ok && 'errors' in held);
    assert.deepEqual(held.errors, {});
    assert.deepEqual(held.similar.map((p) => p.id), [existing.id]);
    const confirmed = await createPatient(ctx, { patient: person, fechaInicioPrograma: null, otherPerson: true });
    assert.ok(confirmed.ok);
    const [entry] = await auditOf(confirmed.id);
    assert.deepEqual(JSON.parse(entry!.changes!).otra_persona_confirmada, [null, [existing.id]]);
  });
});

describe('updatePatientRecord (action)', () => {
  test('saves the changed fields and moves the ACTIVO cycle\'s start, each audited', async () => {
    const p = await seedPatient(db, { nombre: 'Elena' }, { fechaInicio: '2026-11-01' });
    const row = input({ nombre: 'Elena María', documento: p.documento });
    const result = await updatePatientRecord(ctx, p.id, { patient: row, fechaInicioPrograma: '2026-10-20' });
    assert.deepEqual(result, { ok: true, id: p.id, message: 'Datos de Elena María Prueba guardados.' });
    const audit = await auditOf(p.id);
    assert.deepEqual(audit.map((a) => a.action), ['ingreso.update', 'patient.update']);
    const changes = JSON.parse(audit[1]!.changes!);
    assert.deepEqual(changes.nombre, ['Elena', 'Elena María']);
    assert.deepEqual(changes.fecha_inicio_programa, ['2026-11-01', '2026-10-20']);
    const ingreso = await db.selectFrom('ingresos').select('fecha_inicio').where('id', '=', p.ingresoId!).executeTakeFirstOrThrow();
    assert.equal(ingreso.fecha_inicio, '2026-10-20');
  });

  test('a documento another patient holds is a field error and changes nothing', async () => {
    const other = await seedPatient(db);
    const p = await seedPatient(db, { nombre: 'Inés' });
    const result = await updatePatientRecord(ctx, p.id, { patient: input({ nombre: 'Cambiada', documento: other.documento }), fechaInicioPrograma: null });
    assert.deepEqual(result, {
      ok: false,
      errors: { documento: 'Ya existe un paciente con este documento.' },
      similar: [],
      documentoHolder: { id: other.id, name: 'Ana Prueba' },
    });
    const stored = await db.selectFrom('patients').select(['nombre', 'documento']).where('id', '=', p.id).executeTakeFirstOrThrow();
    assert.deepEqual(stored, { nombre: 'Inés', documento: p.documento });
    assert.deepEqual(await auditOf(p.id), []);
  });

  test('a start moved before the end of the previous cycle is a field error, and the whole change rolls back', async () => {
    const p = await seedPatient(db, { nombre: 'Olga' }, { fechaInicio: null });
    const now = AT.toISOString();
    await db.transaction().execute(async (trx) => {
      const first = await openIngreso(trx, { pacienteId: p.id, fechaInicio: '2026-01-10', userId: null, now });
      await trx.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: '2026-06-30', motivo: 'Alta' }).where('id', '=', first).execute();
      await openIngreso(trx, { pacienteId: p.id, fechaInicio: '2026-07-15', userId: null, now });
    });
    const result = await updatePatientRecord(ctx, p.id, { patient: input({ nombre: 'Olga Lucía', documento: p.documento }), fechaInicioPrograma: '2026-06-01' });
    assert.ok(!result.ok && 'errors' in result);
    assert.deepEqual(Object.keys(result.errors), ['fecha_inicio_programa']);
    assert.match(result.errors.fecha_inicio_programa!, /30\/06\/2026/);
    const stored = await db.selectFrom('patients').select('nombre').where('id', '=', p.id).executeTakeFirstOrThrow();
    assert.equal(stored.nombre, 'Olga');
    assert.deepEqual(await auditOf(p.id), []);
  });

  test('an unknown patient is not found', async () => {
    assert.deepEqual(await updatePatientRecord(ctx, 987_654, { patient: input(), fechaInicioPrograma: null }), { ok: false, notFound: true });
  });
});
