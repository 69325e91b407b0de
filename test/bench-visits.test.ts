// The benchmark's generator fills the agenda as the application would (bench/visits.ts, decision 0145): every cycle
// has its plan, no two booked visits of a professional or a resource overlap, the visits of suspended and terminated
// cycles moved as the lifecycle rules say, and each worklist of /agenda/pendientes/ has rows to show.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { editionInForce, planVisits, weekStart } from '../src/agenda/agenda.rules.js';
import { findPlanLinesOfPatient } from '../src/agenda/agenda.repository.js';
import { listWorklist } from '../src/agenda/agenda.worklists.repository.js';
import { addDays, todayIn } from '../src/shared/dates.js';
import { suiteDatabase } from './fixtures/suite-database.fixtures.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PATIENTS = 400;

describe('bench:data: the agenda of a small generated database', () => {
  const t = suiteDatabase();
  let db: Kysely<any>;
  const today = todayIn(process.env.TIME_ZONE ?? 'America/Bogota', new Date());

  before(async () => {
    db = t.db;
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/generate.ts', '--patients', String(PATIENTS), '--database', t.url, '--seed', '28'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  });

  it('plans every cycle with the edition in force on its start', async () => {
    const cycles = await db
      .selectFrom('ingresos as i')
      .innerJoin('patients as p', 'p.id', 'i.paciente_id')
      .select(['i.id', 'i.paciente_id', 'i.fecha_inicio', 'p.programa'])
      .execute();
    assert.ok(cycles.length >= PATIENTS);
    const planned = new Map(
      (await sql<{ ingreso_id: number; n: number }>`select ingreso_id, count(*) as n from citas where plan_visita_id is not null group by ingreso_id`.execute(db)).rows.map((r) => [
        Number(r.ingreso_id),
        Number(r.n),
      ]),
    );
    const editions = await db.selectFrom('agenda_planes').select(['programa', 'vigente_desde']).execute();
    for (const c of cycles) {
      assert.ok(editionInForce(editions.filter((e) => e.programa === c.programa), c.fecha_inicio));
      const expected = planVisits(await findPlanLinesOfPatient(db as any, c.paciente_id, c.fecha_inicio), c.fecha_inicio, c.fecha_inicio).length;
      assert.ok(expected > 0);
      assert.equal(planned.get(Number(c.id)), expected, `cycle ${c.id}`);
    }
  });

  it('never books two overlapping visits of one professional or one resource', async () => {
    const booked = await db
      .selectFrom('citas')
      .select(['profesional_id', 'recurso_id', 'inicio_min', 'fin_min'])
      .where('estado', 'in', ['AGENDADA', 'ATENDIDA'])
      .execute();
    assert.ok(booked.length > 0);
    for (const column of ['profesional_id', 'recurso_id'] as const) {
      const by = new Map<number, { inicio_min: number; fin_min: number }[]>();
      for (const b of booked) if (b[column] !== null) (by.get(b[column]) ?? by.set(b[column], []).get(b[column])!).push(b);
      for (const [who, spans] of by) {
        spans.sort((a, b) => a.inicio_min - b.inicio_min);
        for (let i = 1; i < spans.length; i++) assert.ok(spans[i]!.inicio_min >= spans[i - 1]!.fin_min, `${column} ${who} overlaps`);
      }
    }
    const professionals = await db.selectFrom('users').select('username').where('id', 'in', [...new Set(booked.map((b) => b.profesional_id))]).execute();
    assert.ok(professionals.every((u) => u.username.startsWith('bench.prof')));
  });

  it('moves the visits of suspended and terminated cycles as their lifecycle does', async () => {
    const rows = (
      await sql<{ ciclo: string; estado: string; n: number }>`select i.estado as ciclo, c.estado, count(*) as n from citas c join ingresos i on i.id = c.ingreso_id group by i.estado, c.estado`.execute(db)
    ).rows.map((r) => `${r.ciclo} ${r.estado}`);
    for (const open of ['PENDIENTE', 'AGENDADA']) {
      assert.ok(!rows.includes(`TERMINADO ${open}`) && !rows.includes(`SUSPENDIDO ${open}`), open);
    }
    assert.ok(!rows.includes('ACTIVO PAUSADA') && !rows.includes('TERMINADO PAUSADA'));
    for (const expected of ['ACTIVO ATENDIDA', 'ACTIVO NO_ASISTIO', 'ACTIVO AGENDADA', 'ACTIVO PENDIENTE', 'TERMINADO CANCELADA', 'TERMINADO ATENDIDA']) {
      assert.ok(rows.includes(expected), expected);
    }
  });

  it('gives every worklist rows to show', async () => {
    const desde = weekStart(today);
    const week = { desde, hasta: addDays(desde, 6) };
    const none = { programa: null, entidad: null, profesional: null };
    for (const kind of ['vencidas', 'inasistencias', 'sin_proxima', 'cpap'] as const) {
      assert.ok((await listWorklist(db as any, kind, none, today, week)).length > 0, kind);
    }
    // This week's (today to Sunday) may be a day or two: the next three weeks' due visits stand for it.
    const due = await db.selectFrom('citas').select('id').where('estado', '=', 'PENDIENTE').where('vence_el', '>=', today).where('vence_el', '<=', addDays(today, 21)).execute();
    assert.ok(due.length > 0);
    const nextWeeks = { desde: today, hasta: addDays(today, 21) };
    assert.ok((await listWorklist(db as any, 'semana', none, today, nextWeeks)).length > 0);
  });
});
