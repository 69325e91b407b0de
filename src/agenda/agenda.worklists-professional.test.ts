// The worklists filtered by a professional (decision 0290), on both engines: a professional's lists are the unfiltered
// lists cut to the cycles with a visit of that professional, in any state (decision 0147), whichever way the
// statement tests it (a seek per walked row, or the professional's cycles read once). Compared, list by list and for
// the counts, with that definition computed here from the rows, for every professional and with the other filters;
// the counts with no professional against their lists.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../db/database.js';
import { createTestContext, createUser, ENGINE, type TestContext } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { visitRow, type VisitEstado } from '../../test/fixtures/agenda.fixtures.js';
import { countWorklists, FEW_VISITS, listWorklist, WORKLIST_KINDS, type WorklistFilters } from './agenda.worklists.repository.js';

// A Wednesday: semana runs from today to Sunday, vencidas is what fell due before today.
const TODAY = '2026-11-25';
const WEEK = { desde: '2026-11-23', hasta: '2026-11-29' };
const NOW = '2026-11-25T15:00:00.000Z';

let ctx: TestContext;
let db: Db;
let staff: number;
const prof: Record<'a' | 'b' | 'c' | 'nobody', number> = { a: 0, b: 0, c: 0, nobody: 0 };

before(async () => {
  ctx = await createTestContext();
  db = ctx.db;
  staff = (await createUser(db)).id;
  for (const k of Object.keys(prof) as (keyof typeof prof)[]) prof[k] = (await createUser(db)).id;
});
after(async () => ctx.close());

const minutesOf = (fecha: string, hour: number) => Date.parse(`${fecha}T00:00:00.000Z`) / 60_000 + hour * 60;

let slot = 0;
/** A visit of the cycle: due (PENDIENTE, no professional) on `fecha`, or booked with `profesional` in `estado`. */
async function visit(p: { id: number; ingresoId: number | null }, estado: VisitEstado, fecha: string, profesional: number | null = null, tipo = 'CONTROL_CPAP'): Promise<number> {
  const h = 6 + (slot++ % 14);
  const row = visitRow({ patient: p, estado, fecha, hora: `${String(h).padStart(2, '0')}:00`, inicio: minutesOf(fecha, h), profesional, tipo, now: NOW });
  return (await db.insertInto('citas').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

describe(`the worklists filtered by a professional (engine=${ENGINE})`, () => {
  test("each list and its count, filtered by a professional, are the unfiltered list cut to that professional's cycles", async () => {
    // Due this week and overdue; seen by a in this cycle.
    const p1 = await createPatient(db, { nombre: 'Uno', programa: 'PROGRAMA AOS' }, { fechaInicio: '2026-09-01' });
    await visit(p1, 'ATENDIDA', '2026-10-01', prof.a);
    await visit(p1, 'PENDIENTE', '2026-11-10');
    await visit(p1, 'PENDIENTE', '2026-11-27', null, 'PSG_CONTROL');
    // Overdue; only a cancelled visit with b (any state counts), and a visit booked with c ahead.
    const p2 = await createPatient(db, { nombre: 'Dos', programa: 'PROGRAMA INSOMNIO', entidad_salud: 'ENTITY_B' }, { fechaInicio: '2026-09-15' });
    await visit(p2, 'CANCELADA', '2026-10-20', prof.b);
    await visit(p2, 'PENDIENTE', '2026-11-20');
    await visit(p2, 'AGENDADA', '2026-12-02', prof.c, 'PSG_CONTROL');
    // No next visit, a no-show with c not re-booked, seen by a and b: sin_proxima, inasistencias, and CPAP (no
    // download past its first 90 days).
    const p3 = await createPatient(db, { nombre: 'Tres', programa: 'PROGRAMA AOS' }, { fechaInicio: '2026-06-01' });
    await visit(p3, 'ATENDIDA', '2026-07-01', prof.a);
    await visit(p3, 'ATENDIDA', '2026-08-01', prof.b);
    await visit(p3, 'NO_ASISTIO', '2026-11-18', prof.c);
    // A cycle seen by a that ended, and the patient's new cycle, overdue, never seen by a: not a's.
    const p4 = await createPatient(db, { nombre: 'Cuatro', programa: 'PROGRAMA AOS' }, { fechaInicio: '2025-01-10' });
    await visit(p4, 'ATENDIDA', '2025-02-01', prof.a);
    await db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: '2025-12-01', motivo: 'Prueba', updated_at: NOW }).where('id', '=', p4.ingresoId!).execute();
    const newCycle = await db
      .insertInto('ingresos')
      .values({ paciente_id: p4.id, fecha_inicio: '2026-06-15', fecha_fin: null, estado: 'ACTIVO', motivo: null, created_at: NOW, updated_at: NOW })
      .returning('id')
      .executeTakeFirstOrThrow();
    const p4now = { id: p4.id, ingresoId: newCycle.id };
    await visit(p4now, 'PENDIENTE', '2026-11-05');
    await visit(p4now, 'ATENDIDA', '2026-07-01', prof.b);
    // A CPAP download not adherent, seen by c only; no next visit.
    const p5 = await createPatient(db, { nombre: 'Cinco', programa: 'PROGRAMA AOS', entidad_salud: 'ENTITY_B' }, { fechaInicio: '2026-05-01' });
    await visit(p5, 'ATENDIDA', '2026-06-01', prof.c);
    await db
      .insertInto('exam_records')
      .values({ ingreso_id: p5.ingresoId!, kind: 'MONITOREO', tipo: 'DESCARGA_CPAP', fecha: '2026-11-15', registrado_por: staff, created_at: NOW, horas_uso_promedio: 300, porcentaje_noches_4h: 5000 } as never)
      .execute();
    // Seen by nobody: on the unfiltered lists only.
    const p6 = await createPatient(db, { nombre: 'Seis', programa: 'PROGRAMA AOS' }, { fechaInicio: '2026-05-20' });
    await visit(p6, 'PENDIENTE', '2026-11-24');
    await visit(p6, 'PENDIENTE', '2026-11-28', null, 'PSG_CONTROL');

    const cyclesOf = async (profesional: number) =>
      new Set((await db.selectFrom('citas').select('ingreso_id').where('profesional_id', '=', profesional).execute()).map((r) => Number(r.ingreso_id)));
    const filterSets: { programa: string | null; entidad: string | null }[] = [
      { programa: null, entidad: null },
      { programa: 'PROGRAMA AOS', entidad: null },
      { programa: null, entidad: 'ENTITY_B' },
      { programa: 'PROGRAMA INSOMNIO', entidad: 'ENTITY_B' },
    ];
    let nonEmpty = 0;
    for (const others of filterSets) {
      const unfiltered: WorklistFilters = { ...others, profesional: null };
      // With no professional too: a count that reads no patient (decision 0305) is its list's length, and a program's
      // or an insurer's list is the whole list cut to their patients (the CPAP list, the AOS program's only, is
      // empty for another program without being walked).
      const unfilteredCounts = await countWorklists(db, unfiltered, TODAY, WEEK);
      for (const kind of WORKLIST_KINDS) {
        const shown = await listWorklist(db, kind, unfiltered, TODAY, WEEK);
        const whole = await listWorklist(db, kind, { programa: null, entidad: null, profesional: null }, TODAY, WEEK);
        const theirs = whole.filter((r) => (others.programa === null || r.programa === others.programa) && (others.entidad === null || r.entidad_salud === others.entidad));
        assert.deepEqual(shown, theirs, `${kind}, ${JSON.stringify(others)}`);
        assert.equal(unfilteredCounts[kind], shown.length, `the count of ${kind}, ${JSON.stringify(others)}`);
      }
      for (const [name, id] of Object.entries(prof)) {
        const cycles = await cyclesOf(id);
        const f: WorklistFilters = { ...others, profesional: id };
        // Both ways (decision 0345): this clinic's professionals have few visits, so their lists are led by their
        // cycles; with `few` 0 every list is walked, as a busy professional's is.
        const expectedOf = new Map<string, Awaited<ReturnType<typeof listWorklist>>>();
        for (const kind of WORKLIST_KINDS) expectedOf.set(kind, (await listWorklist(db, kind, unfiltered, TODAY, WEEK)).filter((r) => cycles.has(r.ingreso_id)));
        for (const [way, few] of [['led', FEW_VISITS], ['walked', 0]] as const) {
          const counts = await countWorklists(db, f, TODAY, WEEK, few);
          for (const kind of WORKLIST_KINDS) {
            const expected = expectedOf.get(kind)!;
            const shown = await listWorklist(db, kind, f, TODAY, WEEK, undefined, few);
            const what = `${kind}, professional ${name}, ${way}, ${JSON.stringify(others)}`;
            assert.deepEqual(shown, expected, what);
            assert.equal(counts[kind], expected.length, `the count of ${what}`);
            if (expected.length > 0 && way === 'led') nonEmpty++;
          }
        }
      }
    }
    // The clinic puts rows on every list, for several professionals: the comparison is not of empty lists.
    const all = await countWorklists(db, { programa: null, entidad: null, profesional: null }, TODAY, WEEK);
    for (const kind of WORKLIST_KINDS) assert.ok(all[kind] > 0, `${kind} has rows`);
    assert.ok(nonEmpty >= 15, `${nonEmpty} non-empty filtered lists`);
    const aVencidas = await listWorklist(db, 'vencidas', { programa: null, entidad: null, profesional: prof.a }, TODAY, WEEK);
    assert.deepEqual(aVencidas.map((r) => r.paciente_id), [p1.id], "p4's new cycle is not a's: a saw its earlier cycle");
  });
});
