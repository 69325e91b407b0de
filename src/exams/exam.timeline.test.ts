// The clinical view over time: the timeline, trends, voiding records, and cycles after a termination.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messagesIn } from '../../test/helpers.js';
import { EXAM_MSG } from './exam.actions.js';
import { add, auditOf, client, MONITOREO, newCycle, OTRO, patient, PSICOLOGIA, recordsOf, terminate, timeline, useExamWorld, userId } from '../../test/fixtures/exam.test-world.js';

useExamWorld();

describe('timeline, trends, voiding and cycles', () => {
  test('all kinds together, newest first by id, with kind, date and values', async () => {
    const p = await patient();
    // Dates out of order on purpose: the order is by id, newest first.
    await add(`/exams/${p.id}/psicologia/`, { ...PSICOLOGIA, fecha: '2026-11-20' });
    await add(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '2026-10-01' });
    await add(`/exams/${p.id}/otros/`, { ...OTRO, fecha: '2026-11-01' });
    await add(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '2026-09-15' });
    const ids = (await recordsOf(p.ingresoId)).map((r) => r.id);
    const page = await client.get(`/exams/${p.id}/`);
    assert.deepEqual(timeline(page.body), [
      { id: ids[3]!, kind: 'MONITOREO', anulado: false },
      { id: ids[2]!, kind: 'OTRO', anulado: false },
      { id: ids[1]!, kind: 'MONITOREO', anulado: false },
      { id: ids[0]!, kind: 'PSICOLOGIA', anulado: false },
    ]);
    assert.match(page.body, /<time datetime="2026-11-20">20\/11\/2026<\/time>/);
    assert.match(page.body, /Espirometría/);
  });

  test('trends: a chart with a text equivalent where a value has two or more records, the latest value otherwise', async () => {
    const p = await patient();
    await add(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '2026-10-01', iah: '35' });
    await add(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '2026-11-01', iah: '8,5' });
    await add(`/exams/${p.id}/psicologia/`, { ...PSICOLOGIA, isi: '20' });
    const page = await client.get(`/exams/${p.id}/`);
    assert.match(page.body, /<svg[^>]*data-chart="iah"/);
    assert.match(page.body, /data-trend="iah" data-trend-direction="baja"/);
    assert.match(page.body, /<desc[^>]*>IAH: último 8,5 eventos\/h \(01\/11\/2026\); primero 35 eventos\/h \(01\/10\/2026\); disminuyó 26,5 eventos\/h en 2 registros.<\/desc>/);
    assert.match(page.body, /<td>01\/10\/2026<\/td><td>35<\/td>/);
    assert.match(page.body, /data-trend="isi"/);
    assert.doesNotMatch(page.body, /data-chart="isi"/);
    assert.match(page.body, /data-chart="horas_uso_promedio"/);
  });

  test('voiding with a reason hides the record from the clinical view and keeps it, marked, in the cycle view', async () => {
    const p = await patient();
    await add(`/exams/${p.id}/monitoreo/`, MONITOREO);
    await add(`/exams/${p.id}/otros/`, OTRO);
    const [first, second] = await recordsOf(p.ingresoId);

    const noReason = await client.post(`/exams/${p.id}/registro/${first!.id}/anular/`, { motivo_anulacion: '  ' });
    assert.equal(noReason.status, 302);
    assert.equal(messagesIn((await client.follow(noReason)).body)[0]!.level, 'error');
    assert.equal((await recordsOf(p.ingresoId))[0]!.anulado_at, null);

    const res = await client.post(`/exams/${p.id}/registro/${first!.id}/anular/`, { motivo_anulacion: 'Paciente equivocado' });
    assert.equal(res.status, 302);
    assert.equal(res.location, `/exams/${p.id}/`);
    const page = await client.follow(res);
    assert.deepEqual(messagesIn(page.body), [{ level: 'success', text: EXAM_MSG.voided(first!.id) }]);
    assert.deepEqual(timeline(page.body), [{ id: second!.id, kind: 'OTRO', anulado: false }]);

    const [stored] = await recordsOf(p.ingresoId);
    assert.equal(stored!.motivo_anulacion, 'Paciente equivocado');
    assert.equal(stored!.anulado_por, userId);
    assert.ok(stored!.anulado_at);
    const audits = await auditOf('exam.void', p.id);
    assert.equal(audits.length, 1);
    assert.equal(audits[0]!.entity_id, first!.id);

    const archive = await client.get(`/exams/${p.id}/ingreso/${p.ingresoId}/`);
    assert.equal(archive.status, 200);
    assert.deepEqual(timeline(archive.body), [
      { id: second!.id, kind: 'OTRO', anulado: false },
      { id: first!.id, kind: 'MONITOREO', anulado: true },
    ]);
    assert.match(archive.body, /Motivo: Paciente equivocado/);
    assert.doesNotMatch(archive.body, /data-archivado/);
    assert.doesNotMatch(archive.body, /anular\//);

    const again = await client.post(`/exams/${p.id}/registro/${first!.id}/anular/`, { motivo_anulacion: 'otra vez' });
    assert.deepEqual(messagesIn((await client.follow(again)).body), [{ level: 'info', text: EXAM_MSG.alreadyVoided(first!.id) }]);
    assert.equal((await auditOf('exam.void', p.id)).length, 1);
  });

  test('voiding: a record of another patient or an unknown record is 404', async () => {
    const a = await patient();
    const b = await patient();
    await add(`/exams/${a.id}/otros/`, OTRO);
    const [rec] = await recordsOf(a.ingresoId);
    assert.equal((await client.post(`/exams/${b.id}/registro/${rec!.id}/anular/`, { motivo_anulacion: 'x' })).status, 404);
    assert.equal((await client.post(`/exams/${a.id}/registro/99999999/anular/`, { motivo_anulacion: 'x' })).status, 404);
    assert.equal((await client.post(`/exams/${a.id}/registro/abc/anular/`, { motivo_anulacion: 'x' })).status, 404);
    assert.equal((await recordsOf(a.ingresoId))[0]!.anulado_at, null);
  });

  test('after TERMINADO and a new cycle, old records leave the clinical view and stay in the archived cycle view', async () => {
    const p = await patient();
    await add(`/exams/${p.id}/monitoreo/`, MONITOREO);
    await add(`/exams/${p.id}/psicologia/`, PSICOLOGIA);
    const old = await recordsOf(p.ingresoId);
    await terminate(p.ingresoId);
    const second = await newCycle(p.id);
    // Within the new cycle (it started on 2026-11-21): an exam is filed in the cycle it was done in.
    await add(`/exams/${p.id}/otros/`, { ...OTRO, fecha: '2026-11-21' });
    const [current] = await recordsOf(second);
    assert.equal(current!.ingreso_id, second);

    const page = await client.get(`/exams/${p.id}/`);
    assert.deepEqual(timeline(page.body), [{ id: current!.id, kind: 'OTRO', anulado: false }]);
    assert.match(page.body, new RegExp(`href="/exams/${p.id}/ingreso/${p.ingresoId}/"`));

    const archive = await client.get(`/exams/${p.id}/ingreso/${p.ingresoId}/`);
    assert.equal(archive.status, 200);
    assert.match(archive.body, /data-archivado="true"[^>]*>\s*Archivado/);
    assert.deepEqual(
      timeline(archive.body),
      [...old].reverse().map((r) => ({ id: r.id, kind: r.kind, anulado: false })),
    );
    assert.doesNotMatch(archive.body, /data-exam-form=/);
    assert.doesNotMatch(archive.body, /anular\//);
    const audits = await auditOf('exam.view_archive', p.id);
    assert.equal(audits.length, 1);
    assert.equal(audits[0]!.entity_id, p.ingresoId);

    // Archived records are read-only: voiding one is refused.
    const res = await client.post(`/exams/${p.id}/registro/${old[0]!.id}/anular/`, { motivo_anulacion: 'tarde' });
    assert.deepEqual(messagesIn((await client.follow(res)).body), [{ level: 'error', text: EXAM_MSG.voidArchived }]);
    assert.equal((await recordsOf(p.ingresoId))[0]!.anulado_at, null);
  });

  test('cycle view: 404 when the Ingreso is not that patient\'s, unknown or non-numeric', async () => {
    const a = await patient();
    const b = await patient();
    assert.equal((await client.get(`/exams/${a.id}/ingreso/${b.ingresoId}/`)).status, 404);
    assert.equal((await client.get(`/exams/${a.id}/ingreso/99999999/`)).status, 404);
    assert.equal((await client.get(`/exams/${a.id}/ingreso/abc/`)).status, 404);
    assert.equal((await client.get(`/exams/999999/ingreso/${a.ingresoId}/`)).status, 404);
    assert.equal((await client.get(`/exams/${a.id}/ingreso/${a.ingresoId}/`)).status, 200);
  });

  test('other methods: 405', async () => {
    const p = await patient();
    assert.equal((await client.get(`/exams/${p.id}/monitoreo/`)).status, 405);
    assert.equal((await client.post(`/exams/${p.id}/`, {})).status, 405);
  });
});
