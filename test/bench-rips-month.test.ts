// bench:data --rips-month (decision 0155) builds RIPS's worst case the issue names: every patient the one insurer's,
// enrolled for the whole last month, with about five services in it, each with its time of day, and a RIPS of that
// month without a problem (so the benchmark times the file, not a refusal). Generated small here, on each engine.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { reviewRipsMonth } from '../src/rips/rips.actions.js';
import { addDays, todayIn } from '../src/shared/dates.js';
import { suiteDatabase } from './fixtures/suite-database.fixtures.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PATIENTS = 30;

describe('bench:data --rips-month: RIPS’s worst case', () => {
  const t = suiteDatabase();
  let db: Kysely<any>;
  let month: { start: string; end: string };
  before(async () => {
    db = t.db;
    const today = todayIn(process.env.TIME_ZONE ?? 'America/Bogota', new Date());
    const end = addDays(`${today.slice(0, 7)}-01`, -1);
    month = { start: `${end.slice(0, 7)}-01`, end };
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/generate.ts', '--patients', String(PATIENTS), '--rips-month', '--database', t.url], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr + run.stdout);
  });

  it('makes every patient the insurer’s, enrolled the whole month, with 3 to 7 services in it, each with its hour', async () => {
    const patients = await db.selectFrom('patients').select(['id', 'entidad_salud', 'activo_desde']).execute();
    assert.equal(patients.length, PATIENTS);
    for (const p of patients) {
      assert.equal(p.entidad_salud, 'ENTITY_A');
      assert.ok(p.activo_desde !== null && p.activo_desde <= month.start, `patient ${p.id} enrolled from ${p.activo_desde}`);
    }
    const services = await db
      .selectFrom('exam_records as e')
      .innerJoin('ingresos as i', 'i.id', 'e.ingreso_id')
      .select(['i.paciente_id', 'e.hora'])
      .where('e.fecha', '>=', month.start)
      .where('e.fecha', '<=', month.end)
      .where('e.anulado_at', 'is', null)
      .execute();
    const perPatient = new Map<number, number>();
    for (const s of services) {
      assert.match(String(s.hora), /^([01]\d|2[0-3]):[0-5]\d$/);
      perPatient.set(Number(s.paciente_id), (perPatient.get(Number(s.paciente_id)) ?? 0) + 1);
    }
    assert.equal(perPatient.size, PATIENTS);
    for (const n of perPatient.values()) assert.ok(n >= 3 && n <= 7, `${n} services`);
  });

  it('gives a month whose RIPS has every patient and service and no problem', async () => {
    const review = await reviewRipsMonth(db, { entidad: 'ENTITY_A', period: month });
    assert.equal(review.patientCount, PATIENTS);
    assert.ok(review.serviceCount >= 3 * PATIENTS && review.serviceCount <= 7 * PATIENTS);
    assert.deepEqual(review.problems, []);
  });

  it('shows the first patients up to as many services as the page holds, and says it shows fewer than there are', async () => {
    const review = await reviewRipsMonth(db, { entidad: 'ENTITY_A', period: month }, 2000, 20);
    const shown = review.patients.reduce((n, p) => n + p.services.length, 0);
    assert.ok(review.patients.length >= 2 && shown <= 20, `${review.patients.length} patients, ${shown} services shown`);
    assert.ok(review.truncated);
    assert.equal(review.patientCount, PATIENTS);
    const ids = review.patients.map((p) => p.row.id);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
  });
});
