// GET /patients/<id>/fhir/: the patient's record as a FHIR R4 Bundle, validated against the official schema.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Bundle, EpisodeOfCare, Observation, Patient } from 'fhir/r4.js';
import { visitRow } from '../fixtures/agenda.fixtures.js';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { createTestContext, ENGINE, loggedInClient, TestClient, type TestContext } from '../helpers.js';
import { fhirPeriodErrors, fhirSchemaErrors } from './fhir-schema.js';
import { episodeOfCareResource } from '../../src/fhir/fhir.rules.js';
import { RECORD_READS } from '../../src/fhir/fhir.repository.js';

let ctx: TestContext;
let client: TestClient;
let userId: number;

before(async () => {
  ctx = await createTestContext();
  const logged = await loggedInClient(ctx);
  client = logged.client;
  userId = logged.user.id;
});
after(async () => ctx?.close());

const recordIdsOf = async (ingresoId: number) =>
  (await ctx.db.selectFrom('exam_records').select('id').where('ingreso_id', '=', ingresoId).orderBy('id').execute()).map((r) => r.id);

async function ok(res: { status: number; location?: string | undefined; body: string }, what: string) {
  assert.equal(res.status, 302, `${what}: ${res.status} ${res.body.slice(0, 300)}`);
}

describe('GET /patients/<id>/fhir/', () => {
  test('a patient with two cycles and voided records: Patient, two EpisodeOfCare, unvoided Observations, all schema-valid', async () => {
    ctx.clock.set('2026-06-10T15:00:00.000Z');
    const p = await createPatient(ctx.db, { nombre: 'Lucía', apellido: 'Ardila', departamento: 'SANTANDER', ciudad: 'BUCARAMANGA', peso: 8000, altura: 170 }, { fechaInicio: '2026-01-05' });
    const first = p.ingresoId!;
    // First cycle: a monitoring record, a voided one, then the cycle is finished.
    await ok(await client.post(`/exams/${p.id}/monitoreo/`, { fecha: '2026-02-01', tipo: 'POLISOMNOGRAFIA', iah: '32,5', saturacion_minima: '81', horas_uso_promedio: '', porcentaje_noches_4h: '', presion_cmh2o: '', fuga_lpm: '', observaciones: '' }), 'monitoreo');
    await ok(await client.post(`/exams/${p.id}/monitoreo/`, { fecha: '2026-02-02', tipo: 'POLIGRAFIA', iah: '99', saturacion_minima: '', horas_uso_promedio: '', porcentaje_noches_4h: '', presion_cmh2o: '', fuga_lpm: '', observaciones: '' }), 'monitoreo 2');
    const [kept, voided] = await recordIdsOf(first);
    await ok(await client.post(`/exams/${p.id}/registro/${voided}/anular/`, { motivo_anulacion: 'Paciente equivocado' }), 'anular');
    await ok(await client.post(`/patients/ingreso/estado/${first}/TERMINADO/`, { fecha_terminacion: '2026-03-31', motivo_estado: 'Alta' }), 'terminar');
    // Second cycle: CPAP use and a psychology session, then suspended.
    await ok(await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: '2026-04-01' }), 'nuevo');
    const second = (await ctx.db.selectFrom('ingresos').select('id').where('paciente_id', '=', p.id).where('estado', '=', 'ACTIVO').executeTakeFirstOrThrow()).id;
    await ok(await client.post(`/exams/${p.id}/monitoreo/`, { fecha: '2026-05-01', tipo: 'DESCARGA_CPAP', iah: '', saturacion_minima: '', horas_uso_promedio: '5,25', porcentaje_noches_4h: '80', presion_cmh2o: '', fuga_lpm: '', observaciones: '' }), 'cpap');
    await ok(await client.post(`/exams/${p.id}/psicologia/`, { fecha: '2026-05-02', tipo_sesion: 'EVALUACION_INICIAL', numero_sesion: '', isi: '16', epworth: '12', observaciones: '' }), 'psicologia');
    await ok(await client.post(`/patients/ingreso/estado/${second}/SUSPENDIDO/`, { motivo_estado: 'Viaje' }), 'suspender');

    const res = await ctx.app.inject({ method: 'GET', url: `/patients/${p.id}/fhir/`, headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/fhir\+json/);
    const bundle = JSON.parse(res.body) as Bundle;
    assert.deepEqual(fhirSchemaErrors(bundle), []);
    assert.equal(bundle.resourceType, 'Bundle');
    assert.equal(bundle.type, 'collection');
    const resources = (bundle.entry ?? []).map((e) => e.resource!);
    for (const r of resources) assert.deepEqual(fhirSchemaErrors(r), [], `${r.resourceType}/${r.id}`);
    assert.deepEqual(fhirPeriodErrors(bundle), [], 'per-1: no Period ends before it starts');

    const patient = resources.find((r): r is Patient => r.resourceType === 'Patient')!;
    assert.equal(patient.id, String(p.id));
    assert.equal(patient.gender, 'female');
    assert.equal(patient.name?.[0]?.family, 'Ardila');
    assert.deepEqual(patient.name?.[0]?.given, ['Lucía']);
    assert.equal(patient.identifier?.[0]?.value, p.documento);
    assert.equal(patient.identifier?.[0]?.type?.coding?.[0]?.code, 'CC');
    const codes = (patient.address?.[0]?.extension ?? []).map((e) => e.valueCoding?.code);
    assert.deepEqual(codes, ['68', '68001']);

    const episodes = resources.filter((r): r is EpisodeOfCare => r.resourceType === 'EpisodeOfCare');
    assert.deepEqual(episodes.map((e) => [e.id, e.status]), [[String(first), 'finished'], [String(second), 'onhold']]);
    assert.deepEqual(episodes[0]!.period, { start: '2026-01-05', end: '2026-03-31' });
    assert.deepEqual(episodes[0]!.statusHistory, [{ status: 'active', period: { start: '2026-01-05', end: '2026-03-31' } }]);
    assert.deepEqual(episodes[1]!.statusHistory?.map((h) => h.status), ['active']);
    assert.equal(episodes[1]!.type?.[0]?.coding?.[0]?.code, 'PROGRAMA AOS');

    const observations = resources.filter((r): r is Observation => r.resourceType === 'Observation');
    const summary = observations.map((o) => [o.code.coding?.[0]?.code, o.valueQuantity?.value, o.extension?.[0]?.valueReference?.reference]);
    assert.deepEqual(summary, [
      ['39156-5', 27.7, `EpisodeOfCare/${second}`],
      ['69990-0', 32.5, `EpisodeOfCare/${first}`],
      ['saturacion-minima', 81, `EpisodeOfCare/${first}`],
      ['cpap-horas-uso', 5.25, `EpisodeOfCare/${second}`],
      ['cpap-noches-4h', 80, `EpisodeOfCare/${second}`],
      ['isi', 16, `EpisodeOfCare/${second}`],
      ['epworth', 12, `EpisodeOfCare/${second}`],
    ]);
    // The voided record (iah 99) is nowhere in the bundle.
    assert.ok(!observations.some((o) => o.id?.startsWith(`exam-${voided}-`)));
    assert.ok(observations.some((o) => o.id?.startsWith(`exam-${kept}-`)));

    const audit = await ctx.db.selectFrom('audit_log').selectAll().where('patient_id', '=', p.id).where('action', '=', 'export').execute();
    assert.equal(audit.length, 1);
    assert.match(audit[0]!.changes ?? '', /"exportacion":"fhir"/);
  });

  test('a status history that would run backwards cannot be produced: every Period of the export starts before it ends', async () => {
    ctx.clock.set('2026-11-22T15:00:00.000Z');
    const p = await createPatient(ctx.db, {}, { fechaInicio: '2026-06-01' });
    const cycle = p.ingresoId!;
    await ok(await client.post(`/patients/ingreso/estado/${cycle}/SUSPENDIDO/`, { motivo_estado: '' }), 'suspender');
    await ok(await client.post(`/patients/ingreso/estado/${cycle}/ACTIVO/`, {}), 'reactivar');
    // Terminated ten days ago, after a suspension and a reactivation today: refused, beside the date.
    const refused = await client.post(`/patients/ingreso/estado/${cycle}/TERMINADO/`, { fecha_terminacion: '2026-11-12', motivo_estado: 'Alta', confirmacion: '1' });
    assert.equal(refused.status, 200);
    assert.match(refused.body, /id="error_fecha_terminacion">La fecha de terminación no puede ser anterior al 22\/11\/2026, fecha del último cambio de estado\.</);
    await ok(await client.post(`/patients/ingreso/estado/${cycle}/TERMINADO/`, { fecha_terminacion: '2026-11-22', motivo_estado: 'Alta' }), 'terminar hoy');

    const res = await ctx.app.inject({ method: 'GET', url: `/patients/${p.id}/fhir/`, headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    const bundle = JSON.parse(res.body) as Bundle;
    assert.deepEqual(fhirPeriodErrors(bundle), []);
    const episode = bundle.entry!.map((e) => e.resource!).find((r): r is EpisodeOfCare => r.resourceType === 'EpisodeOfCare')!;
    assert.deepEqual(episode.statusHistory, [
      { status: 'active', period: { start: '2026-06-01', end: '2026-11-22' } },
      { status: 'onhold', period: { start: '2026-11-22', end: '2026-11-22' } },
      { status: 'active', period: { start: '2026-11-22', end: '2026-11-22' } },
    ]);
    // The check itself sees the history the application used to accept (a row stored before the rule).
    const backwards = episodeOfCareResource({ ...(await ctx.db.selectFrom('ingresos').selectAll().where('id', '=', cycle).executeTakeFirstOrThrow()), fecha_fin: '2026-11-12' }, 'PROGRAMA AOS', [
      { hacia: 'ACTIVO', fecha: '2026-06-01', at: '2026-06-01T12:00:00.000Z' },
      { hacia: 'SUSPENDIDO', fecha: '2026-11-22', at: '2026-11-22T12:00:00.000Z' },
      { hacia: 'ACTIVO', fecha: '2026-11-22', at: '2026-11-22T12:00:00.000Z' },
      { hacia: 'TERMINADO', fecha: '2026-11-12', at: '2026-11-22T12:00:00.000Z' },
    ]);
    assert.deepEqual(fhirPeriodErrors(backwards), ['statusHistory[2].period: start 2026-11-22 > end 2026-11-12']);
  });

  test('an unknown or non-numeric patient: 404; without a session: to the login page', async () => {
    assert.equal((await client.get('/patients/999999/fhir/')).status, 404);
    assert.equal((await client.get('/patients/abc/fhir/')).status, 404);
    const anonymous = new TestClient(ctx.app);
    const res = await anonymous.get('/patients/1/fhir/');
    assert.equal(res.status, 302);
    assert.match(res.location ?? '', /^\/users\/login\//);
  });

  if (ENGINE === 'postgres') {
    test('PostgreSQL reads a record, and a range of them, in one statement: the same rows, in the same order, as its five reads', async () => {
      ctx.clock.set('2026-09-01T15:00:00.000Z');
      const a = await createPatient(ctx.db, { nombre: 'Rango', apellido: 'Uno' }, { fechaInicio: '2026-08-03' });
      const b = await createPatient(ctx.db, { nombre: 'Rango', apellido: 'Dos' }, { fechaInicio: '2026-08-10' });
      for (const p of [a, b]) {
        await ok(await client.post(`/exams/${p.id}/psicologia/`, { fecha: '2026-08-20', tipo_sesion: 'EVALUACION_INICIAL', numero_sesion: '', isi: '9', epworth: '4', observaciones: '' }), 'psicologia');
        await ok(await client.post(`/exams/${p.id}/monitoreo/`, { fecha: '2026-08-21', tipo: 'POLIGRAFIA', iah: '12', saturacion_minima: '88', horas_uso_promedio: '', porcentaje_noches_4h: '', presion_cmh2o: '', fuga_lpm: '', observaciones: '' }), 'monitoreo');
      }
      await ok(await client.post(`/patients/ingreso/estado/${a.ingresoId}/SUSPENDIDO/`, { motivo_estado: 'Viaje' }), 'suspender');
      await ok(await client.post(`/patients/ingreso/estado/${a.ingresoId}/ACTIVO/`, {}), 'reactivar');
      const now = '2026-09-01T15:00:00.000Z';
      await ctx.db.insertInto('citas').values([
        visitRow({ patient: a, estado: 'PENDIENTE', fecha: '2026-09-15', now }),
        visitRow({ patient: b, estado: 'CANCELADA', fecha: '2026-09-02', hora: '10:30', profesional: userId, now }),
        visitRow({ patient: a, estado: 'AGENDADA', fecha: '2026-09-03', hora: '09:00', profesional: userId, now }),
      ]).execute();

      const oneStatement = await RECORD_READS.ofRange.read(ctx.db, a.id, b.id);
      assert.deepEqual(oneStatement, await RECORD_READS.ofRange.tableByTable(ctx.db, a.id, b.id));
      for (const p of [a, b]) assert.deepEqual(await RECORD_READS.ofPatient.read(ctx.db, p.id), await RECORD_READS.ofPatient.tableByTable(ctx.db, p.id));
      assert.equal((await RECORD_READS.ofPatient.read(ctx.db, a.id)).appointments.length, 2);
      assert.deepEqual(oneStatement.patients.map((p) => p.id), [a.id, b.id]);
      assert.deepEqual(oneStatement.history.filter((h) => h.ingreso_id === a.ingresoId).map((h) => h.hacia), ['ACTIVO', 'SUSPENDIDO', 'ACTIVO']);
      assert.equal(oneStatement.exams.length, 4);
      assert.deepEqual(oneStatement.appointments.map((c) => [c.paciente_id, c.estado]), [[a.id, 'PENDIENTE'], [b.id, 'CANCELADA'], [a.id, 'AGENDADA']]);
    });
  }
});
