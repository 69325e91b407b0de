// The agenda's pages over HTTP (both engines): booking and its refusals beside their fields, the day and the week,
// a visit's changes, and every worklist on a small clinic built for it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, createUser, decodeEntities, ENGINE, loggedInClient, messagesIn, type TestClient, type TestContext } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { AGENDA_MSG } from './agenda.rules.js';

let ctx: TestContext;
let client: TestClient;
let userId: number;

before(async () => {
  ctx = await createTestContext(); // today: 2026-11-22 (a Sunday), 10:00 in Bogotá
  const logged = await loggedInClient(ctx);
  client = logged.client;
  userId = logged.user.id;
});
after(async () => ctx.close());

/** A patient whose cycle is opened through the follow page's form, so its plan is made. */
async function patientWithPlan(overrides: Record<string, string> = {}, fechaInicio = '2026-11-20'): Promise<number> {
  const p = await createPatient(ctx.db, overrides, { fechaInicio: null });
  const res = await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: fechaInicio, query_search: '', page: '' });
  assert.equal(res.status, 302);
  return p.id;
}

const book = (fields: Record<string, string>) =>
  client.post('/agenda/citas/nueva/', { tipo: 'CONTROL_CPAP', fecha: '2026-11-23', hora: '08:00', duracion_min: '30', profesional: String(userId), recurso: '', ...fields });

const fieldError = (html: string, name: string) => {
  const m = new RegExp(`id="error_${name}">([^<]*)<`).exec(html);
  return m ? decodeEntities(m[1]!) : null;
};

describe(`agenda pages on ${ENGINE}`, () => {
  test('the booking form offers the kinds and the professionals; a booking lands on the day, linked to the patient', async () => {
    const id = await patientWithPlan({ nombre: 'Reserva' });
    const form = await client.get(`/agenda/citas/nueva/?patient_id=${id}`);
    assert.equal(form.status, 200);
    assert.match(form.body, /<select id="id_tipo" name="tipo"/);
    assert.match(form.body, /<option value="CONTROL_CPAP"/);
    assert.match(form.body, new RegExp(`<option value="${userId}"`));
    const res = await book({ patient_id: String(id), tipo: 'CONSULTA_INGRESO', hora: '07:30' });
    assert.equal(res.status, 302, res.body.slice(0, 2000));
    const day = await client.follow(res);
    assert.match(messagesIn(day.body)[0]!.text, /Cita de Consulta médica de ingreso agendada para Reserva/);
    assert.match(day.body, new RegExp(`href="/patients/${id}/"`));
    assert.match(day.body, /07:30–08:00/);
    const week = await client.get(`/agenda/?fecha=2026-11-25&vista=semana&profesional=${userId}`);
    assert.match(week.body, new RegExp(`href="/patients/${id}/"`));
    const otherDay = await client.get('/agenda/?fecha=2026-11-24');
    assert.doesNotMatch(otherDay.body, new RegExp(`href="/patients/${id}/"`));
    assert.equal((await client.get('/agenda/?fecha=no-es-fecha')).status, 200);
  });

  test('bad input: each message beside its field, the form kept, nothing stored; no 500 on nonsense', async () => {
    const id = await patientWithPlan();
    const count = async () => (await ctx.db.selectFrom('citas').select('id').where('paciente_id', '=', id).where('estado', '=', 'AGENDADA').execute()).length;
    const cases: [Record<string, string>, string, string][] = [
      [{ hora: '05:00' }, 'hora', AGENDA_MSG.outsideHours('07:00', '19:00')],
      [{ fecha: '2026-11-01' }, 'fecha', AGENDA_MSG.pastDate],
      [{ profesional: '98765' }, 'profesional', AGENDA_MSG.unknownProfesional],
      [{ recurso: '98765' }, 'recurso', AGENDA_MSG.unknownRecurso],
      [{ duracion_min: '0' }, 'duracion_min', AGENDA_MSG.duracion],
      [{ duracion_min: '600' }, 'duracion_min', AGENDA_MSG.duracion],
    ];
    for (const [fields, name, message] of cases) {
      const res = await book({ patient_id: String(id), ...fields });
      assert.equal(res.status, 422, JSON.stringify(fields));
      assert.equal(fieldError(res.body, name), message);
    }
    assert.equal(await count(), 0);
    assert.equal((await book({ patient_id: 'abc' })).status, 404);
    assert.equal((await book({ patient_id: String(id), hora: '<script>' })).status, 422);
    assert.equal((await client.get('/agenda/citas/nueva/?patient_id=999999')).status, 404);
    assert.equal((await client.get('/agenda/citas/999999/')).status, 404);
    assert.equal((await client.post('/agenda/citas/999999/no-asistio/', {})).status, 404);
  });

  test('a visit: attended with the day exam offered, another missed, one cancelled with its reason', async () => {
    const id = await patientWithPlan({ nombre: 'Mañana' });
    await book({ patient_id: String(id), tipo: 'CONTROL_CPAP', fecha: '2026-11-22', hora: '11:00' });
    await book({ patient_id: String(id), tipo: 'CONTROL_CPAP', fecha: '2026-11-22', hora: '12:00' });
    const visits = await ctx.db.selectFrom('citas').select(['id', 'hora', 'ingreso_id']).where('paciente_id', '=', id).where('estado', '=', 'AGENDADA').orderBy('hora').execute();
    assert.equal(visits.length, 2);
    const exam = await ctx.db
      .insertInto('exam_records')
      .values({ ingreso_id: visits[0]!.ingreso_id, kind: 'MONITOREO', fecha: '2026-11-22', registrado_por: userId, created_at: '2026-11-22T16:00:00.000Z', observaciones: null, tipo: 'DESCARGA_CPAP', iah: null, saturacion_minima: null, horas_uso_promedio: 450, porcentaje_noches_4h: 7500, presion_cmh2o: null, fuga_lpm: null, tipo_sesion: null, numero_sesion: null, isi: null, epworth: null, nombre_examen: null, resultado: null, anulado_at: null, anulado_por: null, motivo_anulacion: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const page = await client.get(`/agenda/citas/${visits[0]!.id}/`);
    assert.match(page.body, new RegExp(`<option value="${exam.id}" selected`));
    const attended = await client.post(`/agenda/citas/${visits[0]!.id}/atendida/`, { exam_record_id: String(exam.id) });
    assert.equal(attended.status, 302);
    const missed = await client.post(`/agenda/citas/${visits[1]!.id}/no-asistio/`, {});
    assert.equal(missed.status, 302);
    const rows = await ctx.db.selectFrom('citas').select(['estado', 'exam_record_id']).where('id', 'in', [visits[0]!.id, visits[1]!.id]).orderBy('id').execute();
    assert.deepEqual(rows, [{ estado: 'ATENDIDA', exam_record_id: exam.id }, { estado: 'NO_ASISTIO', exam_record_id: null }]);
    const after = await client.follow(missed);
    assert.match(after.body, /No asistió/);

    const third = await book({ patient_id: String(id), tipo: 'PSG_BASAL', fecha: '2026-11-24', hora: '09:00', duracion_min: '60' });
    assert.equal(third.status, 302);
    const psg = await ctx.db.selectFrom('citas').select('id').where('paciente_id', '=', id).where('tipo', '=', 'PSG_BASAL').where('estado', '=', 'AGENDADA').executeTakeFirstOrThrow();
    const noReason = await client.post(`/agenda/citas/${psg.id}/cancelar/`, { motivo: '' });
    assert.equal(noReason.status, 422);
    assert.equal(fieldError(noReason.body, 'motivo'), AGENDA_MSG.motivo);
    const moved = await client.post(`/agenda/citas/${psg.id}/reprogramar/`, { fecha: '2026-11-25', hora: '10:00', duracion_min: '60', profesional: String(userId), recurso: '' });
    assert.equal(moved.status, 302);
    assert.equal((await client.post(`/agenda/citas/${psg.id}/cancelar/`, { motivo: 'Viaje' })).status, 302);
    const history = await client.get(`/agenda/citas/${psg.id}/`);
    assert.match(history.body, /Agendada → Cancelada/);
  });

  test('worklists on a small clinic: due this week, overdue, missed not re-booked, no next visit, CPAP non-adherent; filters', async () => {
    const marker = { entidad_salud: 'ENTITY_B' };
    // Due this week (today, Sunday 2026-11-22, to Sunday) and not booked: the day-0 consult of a cycle opened today.
    const due = await patientWithPlan({ ...marker, nombre: 'Semana' }, '2026-11-22');
    // Overdue: a cycle opened on 2026-10-25 (its basal PSG was due 2026-11-08).
    const overdue = await patientWithPlan({ ...marker, nombre: 'Vencida' }, '2026-10-25');
    // Missed and not re-booked.
    const missed = await patientWithPlan({ ...marker, nombre: 'Falta' }, '2026-11-22');
    await book({ patient_id: String(missed), tipo: 'CONSULTA_INGRESO', fecha: '2026-11-22', hora: '15:00' });
    const m = await ctx.db.selectFrom('citas').select('id').where('paciente_id', '=', missed).where('estado', '=', 'AGENDADA').executeTakeFirstOrThrow();
    await client.post(`/agenda/citas/${m.id}/no-asistio/`, {});
    // Active without any next visit: a cycle without a plan (inserted straight, as an old record).
    const none = await createPatient(ctx.db, { ...marker, nombre: 'Nadie' }, { fechaInicio: '2026-11-01' });
    // CPAP: non-adherent download within 30 days (3 h 59 on 80 %), adherent one, and none in the first 90 days.
    const low = await createPatient(ctx.db, { ...marker, nombre: 'Baja' }, { fechaInicio: '2026-06-01' });
    const good = await createPatient(ctx.db, { ...marker, nombre: 'Buena' }, { fechaInicio: '2026-06-01' });
    const never = await createPatient(ctx.db, { ...marker, nombre: 'Nunca' }, { fechaInicio: '2026-08-01' });
    const young = await createPatient(ctx.db, { ...marker, nombre: 'Joven' }, { fechaInicio: '2026-09-01' });
    const download = (ingresoId: number, horas: number, pct: number) =>
      ctx.db.insertInto('exam_records').values({ ingreso_id: ingresoId, kind: 'MONITOREO', fecha: '2026-11-10', registrado_por: userId, created_at: '2026-11-10T16:00:00.000Z', observaciones: null, tipo: 'DESCARGA_CPAP', iah: null, saturacion_minima: null, horas_uso_promedio: horas, porcentaje_noches_4h: pct, presion_cmh2o: null, fuga_lpm: null, tipo_sesion: null, numero_sesion: null, isi: null, epworth: null, nombre_examen: null, resultado: null, anulado_at: null, anulado_por: null, motivo_anulacion: null }).execute();
    await download(low.ingresoId!, 399, 8000);
    await download(good.ingresoId!, 400, 7000);

    const list = async (lista: string, extra = '') => {
      const res = await client.get(`/agenda/pendientes/?lista=${lista}&entidad=ENTITY_B${extra}`);
      assert.equal(res.status, 200);
      return [...res.body.matchAll(/<tr data-paciente="(\d+)"/g)].map((x) => Number(x[1]));
    };
    assert.ok((await list('semana')).includes(due));
    assert.ok(!(await list('semana')).includes(overdue));
    assert.ok((await list('vencidas')).includes(overdue));
    assert.ok(!(await list('vencidas')).includes(due));
    assert.deepEqual(await list('inasistencias'), [missed]);
    const sinProxima = await list('sin_proxima');
    assert.ok(sinProxima.includes(none.id) && !sinProxima.includes(due));
    const cpap = await list('cpap');
    assert.ok(cpap.includes(low.id), 'non-adherent at 3 h 59');
    assert.ok(!cpap.includes(good.id), 'adherent at 4 h and 70 %');
    assert.ok(cpap.includes(never.id), 'no control in the first 90 days');
    assert.ok(!cpap.includes(young.id), 'still within its first 90 days');
    assert.deepEqual(await list('inasistencias', '&programa=PROGRAMA+INSOMNIO'), []);
    assert.deepEqual(await list('inasistencias', `&profesional=${userId}`), [missed]);
    // Another professional, who never saw these patients: every list is empty for them.
    const other = await createUser(ctx.db);
    for (const lista of ['semana', 'vencidas', 'inasistencias', 'sin_proxima', 'cpap']) assert.deepEqual(await list(lista, `&profesional=${other.id}`), [], lista);
    assert.equal((await client.get('/agenda/pendientes/?lista=otra&programa=x&profesional=abc')).status, 200);
    // A filter that is not among its choices (a professional since gone, a link typed by hand): the list without it,
    // and a message that says so; none when the filters are known or empty.
    const unknownProfessional = await client.get('/agenda/pendientes/?lista=inasistencias&profesional=999999&entidad=NO_EXISTE');
    assert.equal(unknownProfessional.status, 200);
    assert.match(unknownProfessional.body, /data-filtro-desconocido="profesional">El profesional pedido \(o ya no está activo\) no está entre las opciones: la lista se muestra sin ese filtro\./);
    assert.match(unknownProfessional.body, /data-filtro-desconocido="entidad">La entidad pedida no está/);
    assert.doesNotMatch(unknownProfessional.body, /data-filtro-desconocido="programa"/);
    assert.deepEqual(await list('inasistencias', '&profesional=999999&entidad=NO_EXISTE'), await list('inasistencias'));
    assert.doesNotMatch((await client.get(`/agenda/pendientes/?lista=inasistencias&profesional=${userId}&programa=`)).body, /data-filtro-desconocido/);
    // Re-booked (the same kind, a later day): the no-show leaves its list.
    assert.equal((await book({ patient_id: String(missed), tipo: 'CONSULTA_INGRESO', fecha: '2026-11-24', hora: '15:00' })).status, 302);
    assert.deepEqual(await list('inasistencias'), []);
  });

  test('the dashboard shows the worklists counts, kept until the agenda changes', async () => {
    const count = async (kind: string) => Number(new RegExp(`data-worklist="${kind}" data-count="(\\d+)"`).exec((await client.get('/dashboard/')).body)?.[1]);
    const before = await count('semana');
    assert.ok(Number.isInteger(before));
    const id = await patientWithPlan({ nombre: 'Tablero' }, '2026-11-22');
    assert.equal(await count('semana'), before + 1);
    await book({ patient_id: String(id), tipo: 'CONSULTA_INGRESO', fecha: '2026-11-22', hora: '17:00' });
    assert.equal(await count('semana'), before);
  });

  test('a list is paged by 50, every row reachable; its count stops at 200, or at 50 under filters ("más de …")', async () => {
    // Active cycles without any visit (inserted straight, as old records): the list of those without a next visit.
    const insurer = { entidad_salud: 'ENTITY_B', programa: 'PROGRAMA INSOMNIO' };
    const unfiltered = '/agenda/pendientes/?lista=sin_proxima';
    const filtered = `${unfiltered}&programa=PROGRAMA+INSOMNIO&entidad=ENTITY_B`;
    const rowsOf = (body: string) => [...body.matchAll(/<tr data-paciente="(\d+)"/g)].map((m) => Number(m[1]));
    const countOf = (body: string) => Number(/data-count="(\d+)">Activos sin próxima cita/.exec(body)?.[1]);
    for (let i = 0; i < 60; i++) await createPatient(ctx.db, { ...insurer, nombre: `Lista${i}` }, { fechaInicio: '2026-10-01' });
    // Counted to 200: pages of 50, the last one known, a page past it shows the last.
    const first = await client.get(unfiltered);
    const known = countOf(first.body);
    assert.ok(known >= 60 && known <= 200, String(known));
    const pageCount = Math.ceil(known / 50);
    assert.equal(rowsOf(first.body).length, 50);
    assert.match(first.body, new RegExp(`Página 1 de ${pageCount}`));
    assert.match(first.body, /href="\/agenda\/pendientes\/\?lista=sin_proxima&amp;pagina=2" rel="next"/);
    const past = await client.get(`${unfiltered}&pagina=99`);
    assert.match(past.body, new RegExp(`Página ${pageCount} de ${pageCount}`));
    assert.equal(rowsOf(past.body).length, known - 50 * (pageCount - 1));
    assert.doesNotMatch(past.body, /rel="next"/);
    // Under filters the count stops at a page: more than 50, the pages go on as long as rows follow, without a last one.
    const firstFiltered = await client.get(filtered);
    assert.match(firstFiltered.body, /data-count="51">Activos sin próxima cita \(más de 50\)/);
    // The other lists' links keep the filters.
    assert.match(firstFiltered.body, /href="\/agenda\/pendientes\/\?lista=vencidas&amp;programa=PROGRAMA\+INSOMNIO&amp;entidad=ENTITY_B"/);
    assert.match(firstFiltered.body, /Página 1<\/span>/);
    assert.doesNotMatch(firstFiltered.body, /Última/);
    assert.match(firstFiltered.body, /href="\/agenda\/pendientes\/\?lista=sin_proxima&amp;programa=PROGRAMA\+INSOMNIO&amp;entidad=ENTITY_B&amp;pagina=2" rel="next"/);
    for (let i = 60; i < 201; i++) await createPatient(ctx.db, { ...insurer, nombre: `Lista${i}` }, { fechaInicio: '2026-10-01' });
    const page = await client.get(unfiltered);
    assert.equal(page.status, 200);
    assert.equal(rowsOf(page.body).length, 50);
    assert.match(page.body, /data-count="201">Activos sin próxima cita \(más de 200\)/);
    assert.match((await client.get('/dashboard/')).body, /data-worklist="sin_proxima" data-count="201">.*?: más de 200</);
    assert.doesNotMatch(page.body, /Última/);
    const one = await createPatient(ctx.db, { ...insurer, nombre: 'Uno' }, { fechaInicio: '2026-10-01' });
    const walk = async (base: string) => {
      const all: number[] = [];
      for (let n = 1; ; n++) {
        const body = (await client.get(`${base}&pagina=${n}`)).body;
        all.push(...rowsOf(body));
        if (!/rel="next"/.test(body)) {
          assert.ok(rowsOf(body).length > 0 && rowsOf(body).length <= 50);
          return all;
        }
        assert.equal(rowsOf(body).length, 50, `${base} page ${n}`);
      }
    };
    const all = await walk(unfiltered);
    assert.equal(new Set(all).size, all.length, 'no row on two pages');
    assert.equal(all.length, known + 142, 'every row of the list on its pages');
    assert.ok(all.includes(one.id), 'the last created is reachable too');
    const ours = await walk(filtered);
    assert.ok(ours.length >= 202 && ours.includes(one.id), String(ours.length));
    assert.deepEqual(ours, all.filter((id) => ours.includes(id)), 'the filtered pages in the list order');
    const beyond = await client.get(`${unfiltered}&pagina=99`);
    assert.equal(beyond.status, 200);
    assert.match(beyond.body, /Esta lista termina antes de la página 99\./);
    assert.match(beyond.body, /href="[^"]*pagina=98" rel="prev"/);
    // The first of the list gets a next visit: the kept pages change with it.
    const firstId = rowsOf((await client.get(unfiltered)).body)[0]!;
    assert.equal((await book({ patient_id: String(firstId), tipo: 'CONSULTA_CONTROL', fecha: '2026-11-24', hora: '11:00' })).status, 302);
    assert.ok(!rowsOf((await client.get(unfiltered)).body).includes(firstId), 'booked: it leaves the list');
  });

  test('no 500 on any input: malformed queries, ids and fields answer 200, 302, 404 or 422', async () => {
    const id = await patientWithPlan({ nombre: 'Ruido' });
    await book({ patient_id: String(id), tipo: 'CONSULTA_INGRESO', fecha: '2026-11-23', hora: '13:00' });
    const cita = await ctx.db.selectFrom('citas').select('id').where('paciente_id', '=', id).where('estado', '=', 'AGENDADA').executeTakeFirstOrThrow();
    const gets = [
      '/agenda/?fecha=9999-99-99&profesional=abc&recurso=-1&vista=x',
      '/agenda/?fecha[]=1',
      `/agenda/citas/nueva/?patient_id=${id}&tipo=%3Cscript%3E`,
      '/agenda/citas/nueva/?patient_id=0',
      '/agenda/citas/abc/',
      '/agenda/pendientes/?lista=%00&entidad=%FF',
      '/agenda/pendientes/?lista=vencidas&pagina=99999999999999999999',
      '/agenda/pendientes/?lista=cpap&programa=PROGRAMA+AOS&pagina=-3',
      '/agenda/recordatorios/?fecha=2026-02-31',
      '/agenda/consentimiento/abc/',
      '/agenda/ical/..%2F..%2Fetc.ics',
    ];
    for (const url of gets) assert.ok([200, 404].includes((await client.get(url)).status), url);
    const posts: [string, Record<string, string>][] = [
      [`/agenda/citas/${cita.id}/reprogramar/`, { fecha: 'x', hora: 'y', duracion_min: '-1', profesional: '0', recurso: 'z' }],
      [`/agenda/citas/${cita.id}/atendida/`, { exam_record_id: 'abc' }],
      [`/agenda/citas/${cita.id}/atendida/`, { exam_record_id: '99999999' }],
      [`/agenda/citas/${cita.id}/cancelar/`, { motivo: 'x'.repeat(600) }],
      [`/agenda/citas/${cita.id}/recordado/`, { canal: 'PALOMA' }],
      [`/agenda/citas/${cita.id}/reprogramar/`, { fecha: '2026-11-23', hora: '13:00', duracion_min: '30', profesional: String(userId), recurso: '', extra: '1' }],
      ['/agenda/consentimiento/retirar/99999/', { retirado_el: '2026-11-22' }],
      ['/agenda/calendario/99999/revocar/', {}],
      ['/agenda/citas/nueva/', { patient_id: String(id), tipo: 'CONTROL_CPAP', fecha: '2026-11-23', hora: '13:00', duracion_min: '30', profesional: String(userId), recurso: '', otro: 'x' }],
    ];
    for (const [url, body] of posts) {
      const res = await client.post(url, body);
      assert.ok([200, 302, 404, 422].includes(res.status), `${url} ${JSON.stringify(body)}: ${res.status}`);
    }
    const still = await ctx.db.selectFrom('citas').select(['estado', 'hora']).where('id', '=', cita.id).executeTakeFirstOrThrow();
    assert.deepEqual(still, { estado: 'AGENDADA', hora: '13:00' });
  });
});
