// npm run export:fhir -- --out DIR: the whole database as FHIR NDJSON (Bulk Data layout), on a generated database.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FhirResource, Observation } from 'fhir/r4.js';
import { exportFhirCommand } from '../../src/cli/export-fhir.command.js';
import { exportNdjson } from '../../src/fhir/fhir.bulk.js';
import { applyStatusChange } from '../../src/ingresos/ingreso.repository.js';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { createTestContext, createUser, type TestContext } from '../helpers.js';
import { fhirPeriodErrors, fhirSchemaErrors } from './fhir-schema.js';

let ctx: TestContext;
let dir: string;
const PATIENTS = 23;

before(async () => {
  ctx = await createTestContext();
  dir = mkdtempSync(path.join(tmpdir(), 'somno-fhir-'));
  const user = await createUser(ctx.db);
  // A generated clinic: every third patient without a cycle, each cycle with a monitoring record, every fifth voided.
  for (let i = 0; i < PATIENTS; i++) {
    const p = await createPatient(ctx.db, { nombre: `Nombre${i}`, peso: i % 2 ? 7000 : null }, { fechaInicio: i % 3 === 0 ? null : '2026-10-01' });
    if (p.ingresoId === null) continue;
    // A visit of the agenda: due, or booked (issue 28).
    const booked = i % 2 === 0;
    await ctx.db
      .insertInto('citas')
      .values({
        paciente_id: p.id,
        ingreso_id: p.ingresoId,
        tipo: 'CONTROL_CPAP',
        estado: booked ? 'AGENDADA' : 'PENDIENTE',
        vence_el: '2026-11-01',
        created_at: '2026-10-01T12:00:00.000Z',
        updated_at: '2026-10-01T12:00:00.000Z',
        ...(booked ? { fecha: '2026-11-02', hora: '08:00', duracion_min: 30, inicio_min: 29892960 + 480 + i * 30, fin_min: 29892960 + 510 + i * 30, profesional_id: user.id } : {}),
      })
      .execute();
    await ctx.db
      .insertInto('exam_records')
      .values({
        ingreso_id: p.ingresoId,
        kind: 'MONITOREO',
        fecha: '2026-10-15',
        registrado_por: user.id,
        created_at: '2026-10-15T12:00:00.000Z',
        observaciones: null,
        tipo: 'POLISOMNOGRAFIA',
        iah: 1000 + i,
        saturacion_minima: 9000,
        horas_uso_promedio: null,
        porcentaje_noches_4h: null,
        presion_cmh2o: null,
        fuga_lpm: null,
        tipo_sesion: null,
        numero_sesion: null,
        isi: null,
        epworth: null,
        nombre_examen: null,
        resultado: null,
        anulado_at: i % 5 === 0 ? '2026-10-16T12:00:00.000Z' : null,
        anulado_por: i % 5 === 0 ? user.id : null,
        motivo_anulacion: i % 5 === 0 ? 'Error de digitación' : null,
      })
      .execute();
    // Every fourth cycle suspended, reactivated and finished: a status history whose periods the export writes.
    if (i % 4 === 1) {
      const ingresoId = p.ingresoId;
      await ctx.db.transaction().execute(async (trx) => {
        const change = (from: 'ACTIVO' | 'SUSPENDIDO', to: 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO', fecha: string) =>
          applyStatusChange(trx, { ingresoId, from, to, fechaFin: to === 'TERMINADO' ? fecha : null, motivo: to === 'TERMINADO' ? 'Alta' : null, fecha, userId: user.id, now: `${fecha}T12:00:00.000Z` });
        await change('ACTIVO', 'SUSPENDIDO', '2026-10-20');
        await change('SUSPENDIDO', 'ACTIVO', '2026-10-25');
        await change('ACTIVO', 'TERMINADO', '2026-10-30');
      });
    }
  }
});
after(async () => {
  await ctx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const readNdjson = (file: string): FhirResource[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as FhirResource);

describe('npm run export:fhir', () => {
  test('one NDJSON file per resource type, every resource schema-valid, references resolved, voided records left out', async () => {
    const out = path.join(dir, 'full');
    const lines: string[] = [];
    const code = await exportFhirCommand(['--out', out], {
      env: { DATABASE_URL: ctx.database.url, APP_ENV: 'test', SIGNING_SECRET: 'x'.repeat(40) },
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
    });
    assert.equal(code, 0, lines.join('\n'));
    assert.deepEqual(readdirSync(out).sort(), ['Appointment.ndjson', 'EpisodeOfCare.ndjson', 'Observation.ndjson', 'Patient.ndjson']);
    const patients = readNdjson(path.join(out, 'Patient.ndjson'));
    const episodes = readNdjson(path.join(out, 'EpisodeOfCare.ndjson'));
    const observations = readNdjson(path.join(out, 'Observation.ndjson')) as Observation[];
    const dbPatients = await ctx.db.selectFrom('patients').select('id').orderBy('id').execute();
    assert.deepEqual(patients.map((p) => p.id), dbPatients.map((p) => String(p.id)));
    const dbIngresos = await ctx.db.selectFrom('ingresos').select('id').orderBy('id').execute();
    assert.deepEqual(episodes.map((e) => e.id).sort(), dbIngresos.map((i) => String(i.id)).sort());
    assert.ok(episodes.some((e) => (e as { statusHistory?: unknown[] }).statusHistory?.length === 3), 'some cycles carry a status history');
    const appointments = readNdjson(path.join(out, 'Appointment.ndjson'));
    assert.equal(appointments.length, (await ctx.db.selectFrom('citas').select('id').execute()).length);
    for (const r of [...patients, ...episodes, ...observations, ...appointments]) {
      assert.deepEqual(fhirSchemaErrors(r), [], `${r.resourceType}/${r.id}`);
      assert.deepEqual(fhirPeriodErrors(r), [], `${r.resourceType}/${r.id}: per-1`);
    }

    const patientRefs = new Set(patients.map((p) => `Patient/${p.id}`));
    const episodeRefs = new Set(episodes.map((e) => `EpisodeOfCare/${e.id}`));
    for (const o of observations) {
      assert.ok(patientRefs.has(o.subject!.reference!));
      const ep = o.extension?.[0]?.valueReference?.reference;
      if (ep !== undefined) assert.ok(episodeRefs.has(ep), ep);
    }
    const unvoided = await ctx.db.selectFrom('exam_records').select('id').where('anulado_at', 'is', null).execute();
    const examObs = observations.filter((o) => o.id!.startsWith('exam-'));
    assert.equal(examObs.length, unvoided.length * 2); // iah and saturacion_minima of each unvoided record
    assert.match(lines.join('\n'), new RegExp(`${PATIENTS} Patient`));
    const audit = await ctx.db.selectFrom('audit_log').select('changes').where('action', '=', 'export').execute();
    assert.ok(audit.some((a) => /fhir-ndjson/.test(a.changes ?? '')));

    // Exported again into the same folder: refused, the files kept as they were.
    const before = readFileSync(path.join(out, 'Patient.ndjson'), 'utf8');
    const errs: string[] = [];
    const again = await exportFhirCommand(['--out', out], {
      env: { DATABASE_URL: ctx.database.url, APP_ENV: 'test', SIGNING_SECRET: 'x'.repeat(40) },
      out: () => undefined,
      err: (l) => errs.push(l),
    });
    assert.equal(again, 1);
    assert.match(errs.join('\n'), /ya existe/);
    assert.equal(readFileSync(path.join(out, 'Patient.ndjson'), 'utf8'), before);
  });

  test('small batches give the same files as one batch', async () => {
    const one = path.join(dir, 'one');
    const many = path.join(dir, 'many');
    await exportNdjson(ctx.db, one, { batchPatients: 1000, timeZone: ctx.config.timeZone });
    await exportNdjson(ctx.db, many, { batchPatients: 4, timeZone: ctx.config.timeZone });
    for (const t of ['Patient', 'EpisodeOfCare', 'Observation']) {
      assert.equal(readFileSync(path.join(many, `${t}.ndjson`), 'utf8'), readFileSync(path.join(one, `${t}.ndjson`), 'utf8'), t);
    }
  });

  test('without --out: usage and exit code 1', async () => {
    const errs: string[] = [];
    assert.equal(await exportFhirCommand([], { env: {}, out: () => undefined, err: (l) => errs.push(l) }), 1);
    assert.match(errs.join('\n'), /--out/);
  });
});
