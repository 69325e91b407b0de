// The database guards the exam records whatever the application does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { add, ctx, MONITOREO, OTRO, patient, PSICOLOGIA, recordsOf, terminate, TODAY, useExamWorld, userId } from '../../test/fixtures/exam.test-world.js';

useExamWorld();

describe('the database guards the records', () => {
  async function oneRecord() {
    const p = await patient();
    await add(`/exams/${p.id}/otros/`, OTRO);
    const [row] = await recordsOf(p.ingresoId);
    return { p, row: row! };
  }

  test('records are never deleted', async () => {
    const { p, row } = await oneRecord();
    await assert.rejects(ctx.db.deleteFrom('exam_records').where('id', '=', row.id).execute());
    assert.equal((await recordsOf(p.ingresoId)).length, 1);
  });

  test('a record cannot be edited, un-voided, or voided without all three voiding columns', async () => {
    const { row } = await oneRecord();
    await assert.rejects(ctx.db.updateTable('exam_records').set({ resultado: 'cambiado' }).where('id', '=', row.id).execute());
    await assert.rejects(
      ctx.db.updateTable('exam_records').set({ anulado_at: '2026-11-22T00:00:00.000Z', anulado_por: userId, motivo_anulacion: 'x', resultado: 'cambiado' }).where('id', '=', row.id).execute(),
    );
    await assert.rejects(ctx.db.updateTable('exam_records').set({ anulado_at: '2026-11-22T00:00:00.000Z' }).where('id', '=', row.id).execute());
    await ctx.db.updateTable('exam_records').set({ anulado_at: '2026-11-22T00:00:00.000Z', anulado_por: userId, motivo_anulacion: 'x' }).where('id', '=', row.id).execute();
    await assert.rejects(ctx.db.updateTable('exam_records').set({ anulado_at: null, anulado_por: null, motivo_anulacion: null }).where('id', '=', row.id).execute());
  });

  test('a record can only be added to an ACTIVO Ingreso, with the columns of its kind and values in range', async () => {
    const p = await patient();
    const base = { ingreso_id: p.ingresoId, fecha: TODAY, registrado_por: userId, created_at: '2026-11-22T00:00:00.000Z' };
    await assert.rejects(ctx.db.insertInto('exam_records').values({ ...base, kind: 'MONITOREO' }).execute(), 'tipo required');
    await assert.rejects(ctx.db.insertInto('exam_records').values({ ...base, kind: 'OTRO', nombre_examen: 'x', isi: 3 }).execute(), 'shape');
    await assert.rejects(ctx.db.insertInto('exam_records').values({ ...base, kind: 'MONITOREO', tipo: 'POLIGRAFIA', iah: 20001 }).execute(), 'range');
    await assert.rejects(ctx.db.insertInto('exam_records').values({ ...base, kind: 'PSICOLOGIA', tipo_sesion: 'OTRA' }).execute(), 'choice');
    await ctx.db.insertInto('exam_records').values({ ...base, kind: 'OTRO', nombre_examen: 'x' }).execute();
    // Terminated on the day of its record (the database refuses an end before a record of the cycle).
    await terminate(p.ingresoId, TODAY);
    await assert.rejects(ctx.db.insertInto('exam_records').values({ ...base, kind: 'OTRO', nombre_examen: 'y' }).execute(), 'TERMINADO');
    assert.equal((await recordsOf(p.ingresoId)).length, 1);
  });
});
