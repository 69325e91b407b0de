// The dashboard's counters (migration 0070, decision 0045) against a computation from scratch over the patients
// and their Ingresos: random sequences of the writes the application makes (patients created and edited, cycles
// opened, suspended, reactivated and ended, a cycle's start moved, monitoring records added and voided), and after
// every write each figure, for several "todays" (the buckets move with the date), equals what a grouped query over
// the rows themselves says. Runs on both engines.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql, type SqlBool } from 'kysely';
import type { Db } from '../db/database.js';
import { dateRuleRefused } from '../db/errors.js';
import * as counters from '../db/migrations/20261125_0070_dashboard_counters.js';
import { applyStatusChange, findActiveIngreso, findOpenIngreso, openIngreso } from '../ingresos/ingreso.repository.js';
import { MES_CAPITA_MAX, mesFiltroRange } from '../ingresos/ingreso.rules.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { setActiveIngresoFechaInicio, updatePatient } from '../patients/patient.writes.repository.js';
import { addDays } from '../shared/dates.js';
import { createTestDatabase, createUser, type TestDatabase } from '../../test/helpers.js';
import { countCyclesInMonth, countOpenGroups, listIngresosAtLimit } from './dashboard.repository.js';
import { mesCapitaLowerBounds, monthRangeOf, type OpenGroupRow } from './dashboard.rules.js';
import { MONITORING_WINDOW_DAYS, listStaleMonitoring } from './monitoring.repository.js';

const PROGRAMAS = ['PROGRAMA AOS', 'PROGRAMA INSOMNIO'] as const;
const ENTIDADES = ['ENTITY_A', 'ENTITY_B'] as const;
/** Around the month boundaries and the 90-day cutoff of the "todays" below. */
const DATES = ['2024-12-31', '2025-05-01', '2025-05-31', '2025-06-01', '2025-07-15', '2026-08-23', '2026-08-24', '2026-10-31', '2026-11-01', '2026-11-22'];
const TODAYS = ['2026-11-22', '2026-12-01', '2027-05-31', '2025-06-15'];

type Command =
  | { kind: 'create'; programa: number; entidad: number; valor: number; fecha: number | null }
  | { kind: 'edit'; who: number; programa: number; entidad: number; valor: number }
  | { kind: 'status'; who: number; to: 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO'; fecha: number }
  | { kind: 'open'; who: number; fecha: number }
  | { kind: 'move'; who: number; fecha: number }
  | { kind: 'monitoreo'; who: number; fecha: number }
  | { kind: 'void'; which: number };

const index = (n: number) => fc.nat({ max: n - 1 });
const who = fc.nat({ max: 50 });
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), programa: index(2), entidad: index(2), valor: fc.nat({ max: 40_000_000 }), fecha: fc.option(index(DATES.length)) }),
  fc.record({ kind: fc.constant('edit' as const), who, programa: index(2), entidad: index(2), valor: fc.nat({ max: 40_000_000 }) }),
  fc.record({ kind: fc.constant('status' as const), who, to: fc.constantFrom('ACTIVO' as const, 'SUSPENDIDO' as const, 'TERMINADO' as const), fecha: index(DATES.length) }),
  fc.record({ kind: fc.constant('open' as const), who, fecha: index(DATES.length) }),
  fc.record({ kind: fc.constant('move' as const), who, fecha: index(DATES.length) }),
  fc.record({ kind: fc.constant('monitoreo' as const), who, fecha: index(DATES.length) }),
  fc.record({ kind: fc.constant('void' as const), which: fc.nat({ max: 50 }) }),
);

const NOW = '2026-11-22T15:00:00.000Z';

/**
 * Runs a write the way the application would: a write the database refuses for a date rule (a status change
 * dated before the previous one, a start moved past the cycle's records, decision 0063) changes nothing, as the
 * application's own check refuses it first.
 */
async function apply(db: Db, userId: number, patients: number[], records: number[], c: Command): Promise<void> {
  try {
    await write(db, userId, patients, records, c);
  } catch (err) {
    if (dateRuleRefused(err) === null) throw err;
  }
}

async function write(db: Db, userId: number, patients: number[], records: number[], c: Command): Promise<void> {
  const pick = (n: number) => (patients.length === 0 ? undefined : patients[n % patients.length]);
  switch (c.kind) {
    case 'create': {
      const p = await createPatient(
        db,
        { programa: PROGRAMAS[c.programa]!, entidad_salud: ENTIDADES[c.entidad]!, valor_capita: c.valor },
        { fechaInicio: c.fecha === null ? null : DATES[c.fecha]! },
      );
      patients.push(p.id);
      return;
    }
    case 'edit': {
      const id = pick(c.who);
      if (id !== undefined) await updatePatient(db, id, { programa: PROGRAMAS[c.programa]!, entidad_salud: ENTIDADES[c.entidad]!, valor_capita: c.valor });
      return;
    }
    case 'status': {
      const id = pick(c.who);
      const open = id === undefined ? undefined : await findOpenIngreso(db, id);
      if (open === undefined || open.estado === c.to) return;
      const ended = c.to === 'TERMINADO';
      await db.transaction().execute((trx) =>
        applyStatusChange(trx, {
          ingresoId: open.id,
          from: open.estado,
          to: c.to,
          fechaFin: ended ? DATES[c.fecha]! : null,
          motivo: c.to === 'ACTIVO' ? null : 'Motivo',
          fecha: DATES[c.fecha]!,
          userId,
          now: NOW,
        }),
      );
      return;
    }
    case 'open': {
      const id = pick(c.who);
      if (id === undefined || (await findOpenIngreso(db, id)) !== undefined) return;
      await db.transaction().execute((trx) => openIngreso(trx, { pacienteId: id, fechaInicio: DATES[c.fecha]!, userId, now: NOW }));
      return;
    }
    case 'move': {
      const id = pick(c.who);
      if (id !== undefined) await db.transaction().execute((trx) => setActiveIngresoFechaInicio(trx, id, DATES[c.fecha]!, NOW));
      return;
    }
    case 'monitoreo': {
      const id = pick(c.who);
      // Records are only added to an ACTIVO cycle (the database refuses others).
      const open = id === undefined ? undefined : await findActiveIngreso(db, id);
      if (open === undefined) return;
      // Dated within its cycle (the database refuses a record before the cycle's start).
      const fecha = DATES[c.fecha]! < open.fecha_inicio ? open.fecha_inicio : DATES[c.fecha]!;
      const row = await db
        .insertInto('exam_records')
        .values({
          ingreso_id: open.id, kind: 'MONITOREO', fecha, registrado_por: userId, created_at: NOW, tipo: 'OXIMETRIA', nombre_examen: null,
          observaciones: null, iah: null, saturacion_minima: null, horas_uso_promedio: null, porcentaje_noches_4h: null, presion_cmh2o: null,
          fuga_lpm: null, tipo_sesion: null, numero_sesion: null, isi: null, epworth: null, resultado: null, anulado_at: null, anulado_por: null,
          motivo_anulacion: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      records.push(row.id);
      return;
    }
    case 'void': {
      if (records.length === 0) return;
      const id = records.splice(c.which % records.length, 1)[0]!;
      await db.updateTable('exam_records').set({ anulado_at: NOW, anulado_por: userId, motivo_anulacion: 'Error' }).where('id', '=', id).execute();
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// From scratch: the grouped queries over the rows themselves (what the dashboard ran before migration 0070).

const isOpen = sql<SqlBool>`i.estado in ('ACTIVO', 'SUSPENDIDO')`;

async function openGroupsFromScratch(db: Db, today: string): Promise<OpenGroupRow[]> {
  const bounds = mesCapitaLowerBounds(today);
  const rows = await db
    .selectFrom('ingresos as i')
    .innerJoin('patients as p', 'p.id', 'i.paciente_id')
    .where(isOpen)
    .select(['p.programa', 'p.entidad_salud', 'i.estado', 'i.fecha_inicio', 'p.valor_capita'])
    .execute();
  const groups = new Map<string, OpenGroupRow>();
  for (const r of rows) {
    const i = bounds.findIndex((b) => r.fecha_inicio >= b);
    const mes = i === -1 ? bounds.length + 1 : i + 1;
    const key = [r.programa, r.entidad_salud, r.estado, mes].join('|');
    const g = groups.get(key) ?? { programa: r.programa, entidad_salud: r.entidad_salud, estado: r.estado as OpenGroupRow['estado'], mes, n: 0, total: 0 };
    g.n += 1;
    g.total += Number(r.valor_capita);
    groups.set(key, g);
  }
  return [...groups.values()];
}

const count = sql<number>`count(*)`;

async function figuresFromScratch(db: Db, today: string) {
  const month = monthRangeOf(today);
  const inMonth = (column: 'fecha_inicio' | 'fecha_fin') =>
    db.selectFrom('ingresos').select(count.as('n')).where(column, '>=', month.start).where(column, '<', month.end).executeTakeFirstOrThrow();
  const before = mesFiltroRange(MES_CAPITA_MAX, today).to!;
  const atLimit = await db.selectFrom('ingresos as i').select(count.as('n')).where(isOpen).where('i.fecha_inicio', '<', before).executeTakeFirstOrThrow();
  const cutoff = addDays(today, -MONITORING_WINDOW_DAYS);
  const stale = await db
    .selectFrom('patients as p')
    .select(count.as('n'))
    .where('p.activo_desde', 'is not', null)
    .where(sql<SqlBool>`(p.ultimo_monitoreo is null or p.ultimo_monitoreo < ${cutoff})`)
    .executeTakeFirstOrThrow();
  return {
    groups: sortGroups(await openGroupsFromScratch(db, today)),
    cycles: { iniciados: Number((await inMonth('fecha_inicio')).n), finalizados: Number((await inMonth('fecha_fin')).n) },
    atLimit: Number(atLimit.n),
    stale: Number(stale.n),
  };
}

async function figuresFromCounters(db: Db, today: string) {
  const month = monthRangeOf(today);
  return {
    groups: sortGroups(await countOpenGroups(db, today)),
    cycles: await countCyclesInMonth(db, month.start, month.end),
    atLimit: (await listIngresosAtLimit(db, mesFiltroRange(MES_CAPITA_MAX, today).to!, 1)).total,
    stale: (await listStaleMonitoring(db, today, 1)).total,
  };
}

const sortGroups = (rows: OpenGroupRow[]) => rows.map((r) => ({ ...r })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('dashboard counters equal a computation from scratch (migration 0070)', () => {
  let database: TestDatabase;
  let db: Db;
  let userId: number;

  before(async () => {
    database = await createTestDatabase();
    db = database.handle.db;
    userId = (await createUser(db)).id;
  });
  after(async () => database.drop());

  test('after every write of a random sequence, for several days', async () => {
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 12 }), async (commands) => {
        const patients: number[] = [];
        const records: number[] = [];
        for (const c of commands) {
          await apply(db, userId, patients, records, c);
          steps++;
          for (const today of TODAYS) {
            assert.deepEqual(await figuresFromCounters(db, today), await figuresFromScratch(db, today), `after ${JSON.stringify(c)}, today ${today}`);
          }
        }
      }),
      { numRuns: 30 },
    );
    // The sequences did reach every kind of figure (not only empty counters).
    const scratch = await figuresFromScratch(db, '2026-11-22');
    assert.ok(steps > 30 && scratch.groups.length > 0, 'the writes produced open cycles to count');
    // And key by key, as the benchmark's generator checks a load.
    for (const c of counters.COUNTERS) {
      const { rows } = await sql.raw<{ n: number | string }>(counters.countersDifferingFromRows(c)).execute(db);
      assert.equal(Number(rows[0]!.n), 0, c.table);
    }
  });

  test('concurrent writers (on PostgreSQL in their own slots) leave the same figures as a count from scratch', async () => {
    const created = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        createPatient(db, { programa: PROGRAMAS[i % 2]!, entidad_salud: ENTIDADES[(i >> 1) % 2]!, valor_capita: 1000 + i }, { fechaInicio: DATES[i % DATES.length]! }),
      ),
    );
    await Promise.all(
      created.map((p, i) =>
        i % 3 === 0
          ? apply(db, userId, [p.id], [], { kind: 'status', who: 0, to: 'SUSPENDIDO', fecha: 9 })
          : apply(db, userId, [p.id], [], { kind: 'edit', who: 0, programa: (i + 1) % 2, entidad: i % 2, valor: 5000 + i }),
      ),
    );
    for (const today of TODAYS) assert.deepEqual(await figuresFromCounters(db, today), await figuresFromScratch(db, today), today);
  });

  test('the migration counts the rows that exist before it', async () => {
    // Undone and run again over the rows written above, the migration's backfill must give the same figures.
    await counters.down(db);
    await counters.up(db);
    for (const today of TODAYS) assert.deepEqual(await figuresFromCounters(db, today), await figuresFromScratch(db, today), today);
    assert.ok((await figuresFromScratch(db, '2026-11-22')).groups.length > 0);
  });
});
