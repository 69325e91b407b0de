// The exam pages and forms: the list, the clinical view, and adding each kind of record.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { ENGINE, messagesIn } from '../../test/helpers.js';
import { EXAM_MSG } from './exam.actions.js';
import { add, auditOf, client, ctx, fieldError, MONITOREO, OTRO, patient, PSICOLOGIA, recordsOf, seq, terminate, timeline, TODAY, useExamWorld, userId, username } from '../../test/fixtures/exam.test-world.js';

useExamWorld();

describe('GET /exams/', () => {
  test('lists patients with an ACTIVO Ingreso only, searchable, each linking to its clinical view', async () => {
    const active = await patient({ nombre: 'Zacarías' });
    const without = await patient({ nombre: 'Zacarías', fechaInicio: null });
    const ended = await patient({ nombre: 'Zacarías' });
    await terminate(ended.ingresoId);
    const res = await client.get('/exams/?query_search=zacarias');
    assert.equal(res.status, 200);
    assert.match(res.body, new RegExp(`data-patient-id="${active.id}"`));
    assert.match(res.body, new RegExp(`href="/exams/${active.id}/"`));
    assert.doesNotMatch(res.body, new RegExp(`data-patient-id="${without.id}"`));
    assert.doesNotMatch(res.body, new RegExp(`data-patient-id="${ended.id}"`));
    assert.match(res.body, /data-total="1"/);
    const other = await client.get('/exams/?query_search=nadie-se-llama-asi');
    assert.doesNotMatch(other.body, new RegExp(`data-patient-id="${active.id}"`));
    assert.match(other.body, /data-total="0"/);
  });

  test('pages of 10, links keep the search', async () => {
    const ids = [];
    for (let i = 0; i < 11; i++) ids.push((await patient({ nombre: 'Paginada' })).id);
    const first = await client.get('/exams/?query_search=paginada');
    assert.match(first.body, /data-total="11"/);
    assert.equal((first.body.match(/<tr data-patient-id=/g) ?? []).length, 10);
    assert.match(first.body, /href="\/exams\/\?query_search=paginada&amp;page=2"/);
    const second = await client.get('/exams/?query_search=paginada&page=2');
    assert.equal((second.body.match(/<tr data-patient-id=/g) ?? []).length, 1);
    const past = await client.get('/exams/?query_search=paginada&page=99');
    assert.equal((past.body.match(/<tr data-patient-id=/g) ?? []).length, 1);
    assert.equal((await client.get('/exams/?page=abc')).status, 200);
  });
});

describe('GET /exams/<patient_id>/', () => {
  test('shows the summary, the ACTIVO Ingreso with mes_capita, the three forms, and is audited', async () => {
    const p = await patient();
    const res = await client.get(`/exams/${p.id}/`);
    assert.equal(res.status, 200);
    assert.match(res.body, new RegExp(`Examina${seq} Clinica${seq}`));
    assert.match(res.body, /data-imc="31.1"/);
    assert.match(res.body, /Obesidad grado I/);
    assert.match(res.body, new RegExp(`data-ingreso-id="${p.ingresoId}" data-estado="ACTIVO"`));
    assert.match(res.body, /data-mes-capita="3"/);
    for (const kind of ['MONITOREO', 'PSICOLOGIA', 'OTRO']) assert.match(res.body, new RegExp(`data-exam-form="${kind}"`));
    assert.match(res.body, /No hay registros en este ingreso/);
    const audits = await auditOf('exam.view_clinical', p.id);
    assert.equal(audits.length, 1);
    assert.equal(audits[0]!.user_id, userId);
  });

  test('unknown or non-numeric patient: 404', async () => {
    for (const path of ['/exams/999999/', '/exams/abc/', '/exams/0/', '/exams/1.5/']) {
      assert.equal((await client.get(path)).status, 404, path);
    }
  });

  test('no ACTIVO Ingreso: says so, no records, no forms, links to earlier cycles', async () => {
    const p = await patient();
    await add(`/exams/${p.id}/otros/`, OTRO);
    await terminate(p.ingresoId);
    const res = await client.get(`/exams/${p.id}/`);
    assert.equal(res.status, 200);
    assert.match(res.body, /data-no-activo="true"/);
    assert.match(res.body, /no tiene un ingreso ACTIVO/);
    assert.deepEqual(timeline(res.body), []);
    assert.doesNotMatch(res.body, /data-exam-form=/);
    assert.match(res.body, new RegExp(`href="/exams/${p.id}/ingreso/${p.ingresoId}/"`));
  });

  test('SUSPENDIDO Ingreso: no forms, and a pointer to reactivate it', async () => {
    const p = await patient();
    await ctx.db.updateTable('ingresos').set({ estado: 'SUSPENDIDO' }).where('id', '=', p.ingresoId).execute();
    const res = await client.get(`/exams/${p.id}/`);
    assert.match(res.body, /data-no-activo="true"/);
    assert.match(res.body, /SUSPENDIDO/);
    assert.doesNotMatch(res.body, /data-exam-form=/);
    const post = await client.post(`/exams/${p.id}/monitoreo/`, MONITOREO);
    assert.equal(post.status, 302);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
  });
});

describe('POST /exams/<patient_id>/monitoreo/', () => {
  test('valid: stored in hundredths on the ACTIVO Ingreso by the logged-in user, audited, 302 with a message', async () => {
    const p = await patient();
    const res = await client.post(`/exams/${p.id}/monitoreo/`, MONITOREO);
    assert.equal(res.status, 302);
    assert.equal(res.location, `/exams/${p.id}/`);
    const [row] = await recordsOf(p.ingresoId);
    assert.ok(row);
    assert.equal(row.kind, 'MONITOREO');
    assert.equal(row.registrado_por, userId);
    assert.equal(row.fecha, '2026-11-15');
    assert.equal(row.tipo, 'POLISOMNOGRAFIA');
    assert.equal(row.iah, 1250);
    assert.equal(row.saturacion_minima, 8400);
    assert.equal(row.horas_uso_promedio, 550);
    assert.equal(row.porcentaje_noches_4h, 8000);
    assert.equal(row.presion_cmh2o, 900);
    assert.equal(row.fuga_lpm, null);
    assert.equal(row.observaciones, 'Buena tolerancia');
    const audits = await auditOf('exam.create', p.id);
    assert.equal(audits.length, 1);
    assert.equal(audits[0]!.entity_id, row.id);
    assert.equal(audits[0]!.user_id, userId);
    assert.deepEqual(JSON.parse(audits[0]!.changes!).iah, [null, 1250]);

    const page = await client.follow(res);
    assert.deepEqual(messagesIn(page.body), [{ level: 'success', text: EXAM_MSG.created('MONITOREO') }]);
    assert.deepEqual(timeline(page.body), [{ id: row.id, kind: 'MONITOREO', anulado: false }]);
    assert.match(page.body, /12,5 eventos\/h/);
    assert.match(page.body, /data-band="iah:leve"/);
    assert.match(page.body, /data-band="cpap:adherente"/);
    assert.match(page.body, new RegExp(`data-registrado-por="${username}"`));
  });

  test('only fecha and tipo are required; ranges at their edges are accepted', async () => {
    const p = await patient();
    assert.equal((await client.post(`/exams/${p.id}/monitoreo/`, { fecha: TODAY, tipo: 'OXIMETRIA' })).status, 302);
    const edges = { fecha: TODAY, tipo: 'DESCARGA_CPAP', iah: '200', saturacion_minima: '100', horas_uso_promedio: '24', porcentaje_noches_4h: '100', presion_cmh2o: '30', fuga_lpm: '200', observaciones: 'x'.repeat(2000) };
    assert.equal((await client.post(`/exams/${p.id}/monitoreo/`, edges)).status, 302);
    const zeros = { fecha: TODAY, tipo: 'titulacion_cpap', iah: '0', saturacion_minima: '0', horas_uso_promedio: '0', porcentaje_noches_4h: '0', presion_cmh2o: '0', fuga_lpm: '0' };
    assert.equal((await client.post(`/exams/${p.id}/monitoreo/`, zeros)).status, 302);
    const rows = await recordsOf(p.ingresoId);
    assert.equal(rows.length, 3);
    assert.equal(rows[0]!.iah, null);
    assert.equal(rows[1]!.iah, 20000);
    assert.equal(rows[1]!.fuga_lpm, 20000);
    assert.equal(rows[2]!.tipo, 'TITULACION_CPAP');
    assert.equal(rows[2]!.iah, 0);
  });

  test('invalid: 200 with the clinical view, errors beside the fields of that form only, input kept, nothing stored', async () => {
    const p = await patient();
    const bad = { fecha: '2026-11-23', tipo: 'RESONANCIA', iah: '200,01', saturacion_minima: '-1', horas_uso_promedio: '25', porcentaje_noches_4h: '100.5', presion_cmh2o: 'abc', fuga_lpm: '1.234', observaciones: 'y'.repeat(2001) };
    const res = await client.post(`/exams/${p.id}/monitoreo/`, bad);
    assert.equal(res.status, 200);
    assert.match(fieldError(res.body, 'monitoreo', 'fecha') ?? '', /posterior a hoy/);
    assert.match(fieldError(res.body, 'monitoreo', 'tipo') ?? '', /Seleccione una opción/);
    assert.match(fieldError(res.body, 'monitoreo', 'iah') ?? '', /máximo es 200,00/);
    assert.match(fieldError(res.body, 'monitoreo', 'saturacion_minima') ?? '', /negativo/);
    assert.match(fieldError(res.body, 'monitoreo', 'horas_uso_promedio') ?? '', /máximo es 24,00/);
    assert.match(fieldError(res.body, 'monitoreo', 'porcentaje_noches_4h') ?? '', /máximo es 100,00/);
    assert.match(fieldError(res.body, 'monitoreo', 'presion_cmh2o') ?? '', /número válido/);
    assert.match(fieldError(res.body, 'monitoreo', 'fuga_lpm') ?? '', /número válido/);
    assert.match(fieldError(res.body, 'monitoreo', 'observaciones') ?? '', /Máximo 2000/);
    assert.match(res.body, /id="id_monitoreo_iah"[^>]*value="200,01"|value="200,01"[^>]*id="id_monitoreo_iah"/);
    assert.match(res.body, /id="id_monitoreo_iah"[^>]*aria-invalid="true"/);
    assert.equal(fieldError(res.body, 'psicologia', 'fecha'), null);
    assert.equal(fieldError(res.body, 'otros', 'fecha'), null);
    assert.match(messagesIn(res.body)[0]!.text, /No se guardó el registro de monitoreo: revise los campos marcados/);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
    assert.equal((await auditOf('exam.create', p.id)).length, 0);
  });

  test('fecha missing or not a real day: field error', async () => {
    const p = await patient();
    const missing = await client.post(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '' });
    assert.equal(missing.status, 200);
    assert.match(fieldError(missing.body, 'monitoreo', 'fecha') ?? '', /obligatoria/);
    const impossible = await client.post(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, fecha: '2026-02-30' });
    assert.match(fieldError(impossible.body, 'monitoreo', 'fecha') ?? '', /fecha válida/);
    const missingTipo = await client.post(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, tipo: '' });
    assert.match(fieldError(missingTipo.body, 'monitoreo', 'tipo') ?? '', /obligatorio/);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
  });

  test('unknown or repeated fields are refused with a message, nothing stored', async () => {
    const p = await patient();
    const unknown = await client.post(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, isi: '3' });
    assert.equal(unknown.status, 200);
    assert.match(unknown.body, /campos desconocidos: isi/);
    const repeated = await client.post(`/exams/${p.id}/monitoreo/`, { ...MONITOREO, iah: ['1', '2'] });
    assert.equal(repeated.status, 200);
    assert.match(fieldError(repeated.body, 'monitoreo', 'iah') ?? '', /más de una vez/);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
  });

  test('no ACTIVO Ingreso (never had one, or terminated after the form was loaded): 302 back with the error, nothing stored', async () => {
    const none = await patient({ fechaInicio: null });
    const res = await client.post(`/exams/${none.id}/monitoreo/`, MONITOREO);
    assert.equal(res.status, 302);
    assert.equal(res.location, `/exams/${none.id}/`);
    const page = await client.follow(res);
    assert.deepEqual(messagesIn(page.body), [{ level: 'error', text: EXAM_MSG.noActivo }]);

    const p = await patient();
    await client.get(`/exams/${p.id}/`);
    await terminate(p.ingresoId);
    for (const [path, form] of [['monitoreo', MONITOREO], ['psicologia', PSICOLOGIA], ['otros', OTRO]] as const) {
      const r = await client.post(`/exams/${p.id}/${path}/`, { ...form, fecha: '2099-01-01' });
      assert.equal(r.status, 302, path);
      assert.deepEqual(messagesIn((await client.follow(r)).body), [{ level: 'error', text: EXAM_MSG.noActivo }]);
    }
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
    const count = await ctx.db.selectFrom('exam_records').select(sql<number>`cast(count(*) as integer)`.as('n')).innerJoin('ingresos', 'ingresos.id', 'exam_records.ingreso_id').where('ingresos.paciente_id', 'in', [none.id, p.id]).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
  });

  test('a termination racing the post: the record is not left on the TERMINADO cycle', async () => {
    const p = await patient();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let updated!: () => void;
    const didUpdate = new Promise<void>((resolve) => (updated = resolve));
    const termination = ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: TODAY, motivo: 'carrera' }).where('id', '=', p.ingresoId).execute();
      updated();
      await gate;
    });
    await didUpdate;
    const post = client.post(`/exams/${p.id}/monitoreo/`, MONITOREO);
    if (ENGINE === 'postgres') {
      // The post reads the still-ACTIVO row, then waits for the termination's row lock inside its transaction.
      for (let i = 0; i < 500; i++) {
        const { rows } = await sql<{ n: number }>`select cast(count(*) as integer) as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.db);
        if (Number(rows[0]!.n) > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    release();
    await termination;
    const res = await post;
    assert.equal(res.status, 302);
    assert.deepEqual(messagesIn((await client.follow(res)).body), [{ level: 'error', text: EXAM_MSG.noActivo }]);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
  });
});

describe('POST /exams/<patient_id>/psicologia/ and /otros/', () => {
  test('psicologia valid: scores stored as whole numbers with their bands shown', async () => {
    const p = await patient();
    const res = await client.post(`/exams/${p.id}/psicologia/`, PSICOLOGIA);
    assert.equal(res.status, 302);
    const [row] = await recordsOf(p.ingresoId);
    assert.equal(row!.kind, 'PSICOLOGIA');
    assert.equal(row!.tipo_sesion, 'TCC_I');
    assert.equal(row!.numero_sesion, 3);
    assert.equal(row!.isi, 16);
    assert.equal(row!.epworth, 9);
    assert.equal(row!.observaciones, null);
    assert.equal(row!.registrado_por, userId);
    const page = await client.follow(res);
    assert.deepEqual(messagesIn(page.body), [{ level: 'success', text: EXAM_MSG.created('PSICOLOGIA') }]);
    assert.match(page.body, /data-band="isi:moderado"/);
    assert.match(page.body, /data-band="epworth:normal"/);
  });

  test('psicologia ranges and choices: field errors; edges accepted', async () => {
    const p = await patient();
    const bad = await client.post(`/exams/${p.id}/psicologia/`, { fecha: TODAY, tipo_sesion: 'GRUPAL', numero_sesion: '0', isi: '29', epworth: '25', observaciones: '' });
    assert.equal(bad.status, 200);
    assert.match(fieldError(bad.body, 'psicologia', 'tipo_sesion') ?? '', /Seleccione una opción/);
    assert.match(fieldError(bad.body, 'psicologia', 'numero_sesion') ?? '', /entre 1 y 50/);
    assert.match(fieldError(bad.body, 'psicologia', 'isi') ?? '', /entre 0 y 28/);
    assert.match(fieldError(bad.body, 'psicologia', 'epworth') ?? '', /entre 0 y 24/);
    assert.equal(fieldError(bad.body, 'monitoreo', 'fecha'), null);
    const decimals = await client.post(`/exams/${p.id}/psicologia/`, { ...PSICOLOGIA, isi: '7.5', numero_sesion: '-1' });
    assert.match(fieldError(decimals.body, 'psicologia', 'isi') ?? '', /entero/);
    assert.match(fieldError(decimals.body, 'psicologia', 'numero_sesion') ?? '', /entero/);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
    const edges = await client.post(`/exams/${p.id}/psicologia/`, { fecha: TODAY, tipo_sesion: 'CIERRE', numero_sesion: '50', isi: '28', epworth: '24', observaciones: '' });
    assert.equal(edges.status, 302);
    const low = await client.post(`/exams/${p.id}/psicologia/`, { fecha: TODAY, tipo_sesion: 'EVALUACION_INICIAL', numero_sesion: '1', isi: '0', epworth: '0', observaciones: '' });
    assert.equal(low.status, 302);
    assert.equal((await recordsOf(p.ingresoId)).length, 2);
  });

  test('otros: nombre_examen required and at most 200 characters; resultado kept', async () => {
    const p = await patient();
    const missing = await client.post(`/exams/${p.id}/otros/`, { ...OTRO, nombre_examen: '  ' });
    assert.equal(missing.status, 200);
    assert.match(fieldError(missing.body, 'otros', 'nombre_examen') ?? '', /obligatorio/);
    const long = await client.post(`/exams/${p.id}/otros/`, { ...OTRO, nombre_examen: 'n'.repeat(201), resultado: 'conservar' });
    assert.match(fieldError(long.body, 'otros', 'nombre_examen') ?? '', /Máximo 200/);
    assert.match(long.body, />conservar<\/textarea>/);
    const future = await client.post(`/exams/${p.id}/otros/`, { ...OTRO, fecha: '2026-12-01' });
    assert.match(fieldError(future.body, 'otros', 'fecha') ?? '', /posterior a hoy/);
    assert.equal((await recordsOf(p.ingresoId)).length, 0);
    const ok = await client.post(`/exams/${p.id}/otros/`, { ...OTRO, nombre_examen: 'n'.repeat(200) });
    assert.equal(ok.status, 302);
    const [row] = await recordsOf(p.ingresoId);
    assert.equal(row!.kind, 'OTRO');
    assert.equal(row!.resultado, 'Normal');
    assert.equal(row!.registrado_por, userId);
  });

  test('unknown patient: 404 and nothing stored', async () => {
    for (const path of ['monitoreo', 'psicologia', 'otros']) {
      assert.equal((await client.post(`/exams/999999/${path}/`, MONITOREO)).status, 404);
      assert.equal((await client.post(`/exams/x/${path}/`, MONITOREO)).status, 404);
    }
  });
});
