// The worklists' candidates kept by triggers (decision 0260, migration 0540), on both engines: the no-shows still to
// re-book and the AOS program's active cycles with their latest CPAP download follow every write that can move them,
// and after each one the table equals what its definition computes from the rows and the list shows what it should.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../db/database.js';
import * as candidates from '../db/migrations/20261129_0540_agenda_worklist_candidates.js';
import { rowsDifferingFromDefinition } from '../db/migrations/20261129_0540_agenda_worklist_candidates.js';
import { addDays } from '../shared/dates.js';
import { createTestContext, createUser, ENGINE, type TestContext } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { visitRow, type VisitEstado } from '../../test/fixtures/agenda.fixtures.js';
import { listWorklist, type WorklistKind } from './agenda.worklists.repository.js';
import { NO_FILTERS } from './agenda.pages.js';

const TODAY = '2026-11-22';
const WEEK = { desde: '2026-11-16', hasta: '2026-11-22' };
const NOW = '2026-11-22T15:00:00.000Z';

let ctx: TestContext;
let db: Db;
let staff: number;
/** Professionals the visits are booked with, in turn (with the hour, no two of the test's visits overlap). */
const professionals: number[] = [];

before(async () => {
  ctx = await createTestContext();
  db = ctx.db;
  staff = (await createUser(db)).id;
  for (let i = 0; i < 4; i++) professionals.push((await createUser(db)).id);
});
after(async () => ctx.close());

/** Both tables equal their definitions. */
async function assertKept(step: string): Promise<void> {
  assert.equal(await rowsDifferingFromDefinition(db as never, 'agenda_por_reagendar'), 0, `agenda_por_reagendar after ${step}`);
  assert.equal(await rowsDifferingFromDefinition(db as never, 'agenda_cpap_ciclos'), 0, `agenda_cpap_ciclos after ${step}`);
}

const listed = async (kind: WorklistKind, ids: { cita?: number; ingreso?: number }): Promise<boolean> =>
  (await listWorklist(db, kind, NO_FILTERS, TODAY, WEEK)).some((r) => (ids.cita === undefined || r.cita_id === ids.cita) && (ids.ingreso === undefined || r.ingreso_id === ids.ingreso));

/** Minutes since 1970-01-01 of a local day and hour (as the agenda stores a booking). */
const minutesOf = (fecha: string, hour: number) => Date.parse(`${fecha}T00:00:00.000Z`) / 60_000 + hour * 60;

let slot = 0;
/** A visit of the cycle, booked (or in another estado) on `fecha`; each with a professional and hour of its own. */
async function visit(p: { id: number; ingresoId: number | null }, estado: Exclude<VisitEstado, 'PENDIENTE'>, fecha: string, tipo = 'CONTROL_CPAP', hour?: number): Promise<number> {
  const n = slot++;
  const h = hour ?? 7 + (Math.floor(n / professionals.length) % 11);
  const row = visitRow({ patient: p, estado, fecha, hora: `${String(h).padStart(2, '0')}:00`, inicio: minutesOf(fecha, h), profesional: professionals[n % professionals.length]!, tipo, now: NOW });
  // Without a reason even when cancelled: these visits stand for old records.
  return (await db.insertInto('citas').values({ ...row, motivo: null }).returning('id').executeTakeFirstOrThrow()).id;
}

const setVisit = (id: number, set: Record<string, unknown>) => db.updateTable('citas').set(set as never).where('id', '=', id).execute();
const setCycle = (id: number, estado: 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO') =>
  db
    .updateTable('ingresos')
    .set({ estado, fecha_fin: estado === 'TERMINADO' ? TODAY : null, motivo: estado === 'ACTIVO' ? null : 'Prueba', updated_at: NOW })
    .where('id', '=', id)
    .execute();

async function download(ingresoId: number, fecha: string, horas: number | null, noches: number | null): Promise<number> {
  const row = await db
    .insertInto('exam_records')
    .values({ ingreso_id: ingresoId, kind: 'MONITOREO', tipo: 'DESCARGA_CPAP', fecha, registrado_por: staff, created_at: NOW, horas_uso_promedio: horas, porcentaje_noches_4h: noches } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
const voidRecord = (id: number) => db.updateTable('exam_records').set({ anulado_at: NOW, anulado_por: staff, motivo_anulacion: 'Error' }).where('id', '=', id).execute();

describe(`the worklists' candidates kept by triggers (engine=${ENGINE})`, () => {
  test('a no-show is on the list until re-booked on its day or later, and again when the re-booking is cancelled or moved before it', async () => {
    const p = await createPatient(db, { nombre: 'Inasistente' }, { fechaInicio: '2026-09-01' });
    const missed = await visit(p, 'NO_ASISTIO', '2026-11-10');
    await assertKept('a no-show');
    assert.ok(await listed('inasistencias', { cita: missed }));

    // Another kind, or a booking before its day, does not re-book it.
    const other = await visit(p, 'AGENDADA', '2026-11-24', 'PSG_CONTROL');
    const earlier = await visit(p, 'ATENDIDA', '2026-11-09');
    await assertKept('another kind booked, and one of its kind attended the day before');
    assert.ok(await listed('inasistencias', { cita: missed }));

    // A booking of its kind the same day, at an earlier hour: re-booked (its day or later).
    const sameDay = await visit(p, 'AGENDADA', '2026-11-10', 'CONTROL_CPAP', 6);
    await assertKept('re-booked the same day');
    assert.ok(!(await listed('inasistencias', { cita: missed })));

    // The re-booking cancelled: on the list again. Booked again later, then moved before the no-show's day.
    await setVisit(sameDay, { estado: 'CANCELADA', motivo: 'Prueba' });
    await assertKept('the re-booking cancelled');
    assert.ok(await listed('inasistencias', { cita: missed }));
    const later = await visit(p, 'AGENDADA', '2026-11-26');
    await assertKept('re-booked later');
    assert.ok(!(await listed('inasistencias', { cita: missed })));
    await setVisit(later, { fecha: '2026-11-08', inicio_min: minutesOf('2026-11-08', 8), fin_min: minutesOf('2026-11-08', 8) + 30 });
    await assertKept('the re-booking moved before the no-show');
    assert.ok(await listed('inasistencias', { cita: missed }));

    // Moved back and attended: still re-booked. Deleted: on the list again.
    await setVisit(later, { fecha: '2026-11-26', inicio_min: minutesOf('2026-11-26', 8), fin_min: minutesOf('2026-11-26', 8) + 30 });
    await setVisit(later, { estado: 'ATENDIDA' });
    await assertKept('the re-booking attended');
    assert.ok(!(await listed('inasistencias', { cita: missed })));
    await db.deleteFrom('citas').where('id', '=', later).execute();
    await assertKept('the re-booking deleted');
    assert.ok(await listed('inasistencias', { cita: missed }));

    // A no-show recorded after its re-booking exists is never on the list; the no-show itself deleted leaves it.
    await visit(p, 'AGENDADA', '2026-11-30', 'PSG_BASAL');
    const missedAgain = await visit(p, 'NO_ASISTIO', '2026-11-12', 'PSG_BASAL');
    await assertKept('a no-show written after its re-booking');
    assert.ok(!(await listed('inasistencias', { cita: missedAgain })));
    await db.deleteFrom('citas').where('id', '=', missed).execute();
    await assertKept('the no-show deleted');
    assert.ok(!(await listed('inasistencias', { cita: missed })));
    for (const id of [other, earlier]) assert.ok(!(await listed('inasistencias', { cita: id })));
  });

  test("a cycle's no-shows leave the list when it is suspended or terminated, and come back when it is reactivated", async () => {
    const p = await createPatient(db, { nombre: 'Suspendido' }, { fechaInicio: '2026-09-01' });
    const missed = await visit(p, 'NO_ASISTIO', '2026-11-11');
    assert.ok(await listed('inasistencias', { cita: missed }));
    await setCycle(p.ingresoId!, 'SUSPENDIDO');
    await assertKept('the cycle suspended');
    assert.ok(!(await listed('inasistencias', { cita: missed })));
    await setCycle(p.ingresoId!, 'ACTIVO');
    await assertKept('the cycle reactivated');
    assert.ok(await listed('inasistencias', { cita: missed }));
    await setCycle(p.ingresoId!, 'TERMINADO');
    await assertKept('the cycle terminated');
    assert.ok(!(await listed('inasistencias', { cita: missed })));
  });

  test("an AOS cycle's latest CPAP download decides its place on the CPAP list: a new one, a void, an older date, the program, the cycle's estado", async () => {
    const started = addDays(TODAY, -200);
    const p = await createPatient(db, { nombre: 'Cpap' }, { fechaInicio: started });
    const cycle = p.ingresoId!;
    await assertKept('an AOS cycle opened');
    assert.ok(await listed('cpap', { ingreso: cycle }), 'past its first 90 days without a download');

    const adherent = await download(cycle, addDays(TODAY, -5), 650, 9000);
    await assertKept('an adherent download');
    assert.ok(!(await listed('cpap', { ingreso: cycle })));
    // A later record of an older date is not the latest: still adherent.
    const older = await download(cycle, addDays(TODAY, -20), 300, 5000);
    await assertKept('a non-adherent download of an older date');
    assert.ok(!(await listed('cpap', { ingreso: cycle })));
    // The adherent one voided: the older, non-adherent one is the latest.
    await voidRecord(adherent);
    await assertKept('the latest download voided');
    assert.ok(await listed('cpap', { ingreso: cycle }));
    // Its date cannot change (a record's only change is its void), so the kept row cannot go stale through it.
    await assert.rejects(db.updateTable('exam_records').set({ fecha: addDays(TODAY, -1) }).where('id', '=', older).execute());
    await assertKept('a change of date refused');
    await voidRecord(older);
    await assertKept('every download voided');
    assert.ok(await listed('cpap', { ingreso: cycle }), 'no download again');

    // The program: INSOMNIO leaves the list, AOS again comes back.
    await db.updateTable('patients').set({ programa: 'PROGRAMA INSOMNIO' }).where('id', '=', p.id).execute();
    await assertKept('the patient moved to INSOMNIO');
    assert.ok(!(await listed('cpap', { ingreso: cycle })));
    await db.updateTable('patients').set({ programa: 'PROGRAMA AOS' }).where('id', '=', p.id).execute();
    await assertKept('the patient back in AOS');
    assert.ok(await listed('cpap', { ingreso: cycle }));

    // The cycle's start moved inside the first 90 days: off the list; suspended, reactivated, terminated.
    await db.updateTable('ingresos').set({ fecha_inicio: addDays(TODAY, -30) }).where('id', '=', cycle).execute();
    await assertKept("the cycle's start moved");
    assert.ok(!(await listed('cpap', { ingreso: cycle })));
    await db.updateTable('ingresos').set({ fecha_inicio: started }).where('id', '=', cycle).execute();
    await setCycle(cycle, 'SUSPENDIDO');
    await assertKept('the cycle suspended');
    assert.ok(!(await listed('cpap', { ingreso: cycle })));
    await setCycle(cycle, 'ACTIVO');
    await assertKept('the cycle reactivated');
    assert.ok(await listed('cpap', { ingreso: cycle }));
    await setCycle(cycle, 'TERMINADO');
    await assertKept('the cycle terminated');
    assert.ok(!(await listed('cpap', { ingreso: cycle })));
  });

  test('an INSOMNIO cycle is never among the CPAP candidates', async () => {
    const p = await createPatient(db, { nombre: 'Insomnio', programa: 'PROGRAMA INSOMNIO' }, { fechaInicio: addDays(TODAY, -200) });
    await assertKept('an INSOMNIO cycle opened');
    const row = await db.selectFrom('agenda_cpap_ciclos').select('ingreso_id').where('ingreso_id', '=', p.ingresoId!).executeTakeFirst();
    assert.equal(row, undefined);
  });

  test('the migration fills both tables from the rows already there, and its down undoes it', async () => {
    const kept = await createPatient(db, { nombre: 'Antes' }, { fechaInicio: '2026-09-01' });
    await visit(kept, 'NO_ASISTIO', '2026-11-14');
    await createPatient(db, { nombre: 'Antes Cpap' }, { fechaInicio: addDays(TODAY, -100) });
    const rows = async () => ({
      porReagendar: await db.selectFrom('agenda_por_reagendar').selectAll().orderBy('cita_id').execute(),
      cpap: await db.selectFrom('agenda_cpap_ciclos').selectAll().orderBy('ingreso_id').execute(),
    });
    const before = await rows();
    assert.ok(before.porReagendar.length > 0 && before.cpap.length > 0, 'rows to fill again');
    await candidates.down(db as never);
    await candidates.up(db as never);
    await assertKept('the migration run again');
    assert.deepEqual(await rows(), before);
    // Its triggers are back: a new no-show is kept.
    const p = await createPatient(db, { nombre: 'Otra vez' }, { fechaInicio: '2026-09-01' });
    const missed = await visit(p, 'NO_ASISTIO', '2026-11-13');
    await assertKept('a no-show after the migration ran again');
    assert.ok(await listed('inasistencias', { cita: missed }), 'the new no-show listed');
  });
});
