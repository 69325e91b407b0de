// bench:data --sin-citas leaves out the agenda's visits (most of the load's time) for whoever measures other pages:
// no visit and no professional is written, and the patients, their cycles and exams are those of the same seed
// with the visits.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { createTestDatabase, type TestDatabase } from './helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PATIENTS = 150;

function generate(url: string, extra: string[]): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/generate.ts', '--patients', String(PATIENTS), '--database', url, '--seed', '31', ...extra], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

async function content(db: Kysely<any>): Promise<unknown> {
  const patients = await sql`select documento_key, nombre, apellido, programa, entidad_salud from patients order by id`.execute(db);
  const cycles = await sql`select paciente_id, fecha_inicio, fecha_fin, estado from ingresos order by id`.execute(db);
  const exams = await sql`select ingreso_id, kind, fecha, iah from exam_records order by id`.execute(db);
  return [patients.rows, cycles.rows, exams.rows];
}

describe('bench:data --sin-citas', () => {
  let without: TestDatabase;
  let withVisits: TestDatabase;
  let output = '';

  before(async () => {
    without = await createTestDatabase();
    withVisits = await createTestDatabase();
    output = generate(without.url, ['--sin-citas']);
    generate(withVisits.url, []);
  });
  after(async () => {
    await without.drop();
    await withVisits.drop();
  });

  it('writes no visit and no professional, and says so', async () => {
    const db = without.handle.db as Kysely<any>;
    const counts = (await sql<{ citas: number; historial: number; profs: number }>`select (select count(*) from citas) as citas, (select count(*) from cita_historial) as historial,
      (select count(*) from users where username like 'bench.prof%') as profs`.execute(db)).rows[0]!;
    assert.deepEqual([Number(counts.citas), Number(counts.historial), Number(counts.profs)], [0, 0, 0]);
    assert.match(output, /sin citas/);
    assert.match(output, /0 citas/);
    // The run with visits has them: the flag is what left them out.
    const booked = (await sql<{ n: number }>`select count(*) as n from citas`.execute(withVisits.handle.db)).rows[0]!;
    assert.ok(Number(booked.n) > 0);
  });

  it('writes the same patients, cycles and exams as the same seed with the visits', async () => {
    assert.deepEqual(await content(without.handle.db as Kysely<any>), await content(withVisits.handle.db as Kysely<any>));
  });
});
