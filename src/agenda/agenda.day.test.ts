// The agenda's day and week (both engines, decision 0200): the whole clinic's days come a hundred visits a page,
// in the order of day, time and booking, with the total and the page links; one professional's or resource's
// days come whole; a bad page number shows the first page (or the last, past it), never an error.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, createUser, ENGINE, loggedInClient, type TestClient, type TestContext } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { visitRow } from '../../test/fixtures/agenda.fixtures.js';

let ctx: TestContext;
let client: TestClient;
let userId: number;
let otherId: number;

// Far from the other tests' days (today is 2026-11-22): Wednesday 2027-03-10, in the week from Monday 2027-03-08.
const DAY = '2027-03-10';
const FRIDAY = '2027-03-12';

const rowsOf = (html: string) => [...html.matchAll(/<tr data-cita="(\d+)">[\s\S]*?<td data-label="Hora">([^<]*)</g)].map((m) => ({ id: Number(m[1]), hora: m[2]! }));
const totalOf = (html: string) => /class="result-count" data-total="(\d+)"/.exec(html)?.[1] ?? null;
const hhmm = (min: number) => `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;

before(async () => {
  ctx = await createTestContext();
  const logged = await loggedInClient(ctx);
  client = logged.client;
  userId = logged.user.id;
  otherId = (await createUser(ctx.db)).id;
  const p = await createPatient(ctx.db, { nombre: 'Pagina' }, { fechaInicio: null });
  assert.equal((await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: '2026-11-20', query_search: '', page: '' })).status, 302);
  const ingreso = await ctx.db.selectFrom('ingresos').select('id').where('paciente_id', '=', p.id).executeTakeFirstOrThrow();
  const now = ctx.clock.now().toISOString();
  const visit = (fecha: string, hora: string, profesional: number, estado: 'AGENDADA' | 'ATENDIDA' | 'NO_ASISTIO' | 'CANCELADA') =>
    visitRow({ patient: { id: p.id, ingresoId: ingreso.id }, estado, fecha, hora, duracionMin: 2, profesional, now });
  // 205 visits on the day, 3 minutes apart from 07:00 (the last at 17:12), booked from the last to the first so
  // that the order is the time's and not the booking's; two at 07:00 (the other professional's booked last); two
  // cancelled, which the agenda does not show; three on the Friday.
  const rows = [];
  for (let i = 204; i >= 0; i--) rows.push(visit(DAY, hhmm(7 * 60 + 3 * i), userId, i % 3 === 0 ? 'ATENDIDA' : i % 3 === 1 ? 'AGENDADA' : 'NO_ASISTIO'));
  rows.push(visit(DAY, '07:00', otherId, 'AGENDADA'));
  rows.push(visit(DAY, '07:01', otherId, 'CANCELADA'), visit(DAY, '07:04', otherId, 'CANCELADA'));
  rows.push(visit(FRIDAY, '08:00', userId, 'AGENDADA'), visit(FRIDAY, '08:05', userId, 'AGENDADA'), visit(FRIDAY, '09:00', otherId, 'AGENDADA'));
  for (const row of rows) await ctx.db.insertInto('citas').values(row).execute();
});
after(async () => ctx.close());

describe(`the agenda's day and week on ${ENGINE}`, () => {
  test('the whole clinic\'s day: 100 visits a page by time, the total, "página N de M" and its links', async () => {
    const first = await client.get(`/agenda/?fecha=${DAY}`);
    assert.equal(first.status, 200);
    assert.equal(totalOf(first.body), '206');
    assert.match(first.body, /206 citas · página 1 de 3, 100 por página/);
    const rows = rowsOf(first.body);
    assert.equal(rows.length, 100);
    // Two at 07:00, in the order they were booked (the first professional's, booked first), then by time.
    assert.deepEqual(rows.slice(0, 3).map((r) => r.hora), ['07:00–07:02', '07:00–07:02', '07:03–07:05']);
    assert.ok(rows[0]!.id < rows[1]!.id);
    assert.equal(rows[99]!.hora, '11:54–11:56');
    assert.match(first.body, /<nav class="pagination" aria-label="Paginación">/);
    assert.match(first.body, new RegExp(`href="/agenda/\\?fecha=${DAY}&amp;pagina=2" rel="next"`));
    assert.match(first.body, new RegExp(`href="/agenda/\\?fecha=${DAY}&amp;pagina=3" data-page="3"`));

    const second = rowsOf((await client.get(`/agenda/?fecha=${DAY}&pagina=2`)).body);
    assert.equal(second.length, 100);
    assert.equal(second[0]!.hora, '11:57–11:59');
    const last = await client.get(`/agenda/?fecha=${DAY}&pagina=3`);
    assert.match(last.body, /206 citas · página 3 de 3/);
    assert.deepEqual(rowsOf(last.body).map((r) => r.hora), ['16:57–16:59', '17:00–17:02', '17:03–17:05', '17:06–17:08', '17:09–17:11', '17:12–17:14']);
    assert.match(last.body, /rel="prev"/);
    assert.doesNotMatch(last.body, /rel="next"/);
    // Every visit once across the pages, none cancelled.
    const all = [...rows, ...second, ...rowsOf(last.body)].map((r) => r.id);
    assert.equal(new Set(all).size, 206);
  });

  test('a page that is not a number shows the first page, one past the last shows the last; never an error', async () => {
    for (const pagina of ['abc', '0', '-1', '1.5', '', '%00']) {
      const res = await client.get(`/agenda/?fecha=${DAY}&pagina=${pagina}`);
      assert.equal(res.status, 200, pagina);
      assert.match(res.body, /página 1 de 3/, pagina);
    }
    assert.equal((await client.get(`/agenda/?fecha=${DAY}&pagina[]=2`)).status, 200);
    for (const pagina of ['4', '2147483647', '99999999999']) {
      const res = await client.get(`/agenda/?fecha=${DAY}&pagina=${pagina}`);
      assert.equal(res.status, 200, pagina);
      assert.match(res.body, /página 3 de 3/, pagina);
      assert.equal(rowsOf(res.body).length, 6, pagina);
    }
  });

  test("the whole clinic's week is paged the same way; a day with fewer than 100 visits has no page links", async () => {
    const week = await client.get(`/agenda/?fecha=${DAY}&vista=semana`);
    assert.equal(totalOf(week.body), '209');
    assert.match(week.body, /209 citas · página 1 de 3/);
    assert.match(week.body, new RegExp(`href="/agenda/\\?fecha=${DAY}&amp;vista=semana&amp;pagina=2"`));
    const last = rowsOf((await client.get(`/agenda/?fecha=${DAY}&vista=semana&pagina=3`)).body);
    assert.equal(last.length, 9);
    assert.deepEqual(last.slice(-3).map((r) => r.hora), ['08:00–08:02', '08:05–08:07', '09:00–09:02']);
    const friday = await client.get(`/agenda/?fecha=${FRIDAY}`);
    assert.equal(totalOf(friday.body), '3');
    assert.match(friday.body, /3 citas</);
    assert.doesNotMatch(friday.body, /class="pagination"/);
    const empty = await client.get('/agenda/?fecha=2027-03-11');
    assert.equal(totalOf(empty.body), null);
    assert.match(empty.body, /No hay citas agendadas\./);
  });

  test("one professional's day and week come whole, without paging (the page number is ignored)", async () => {
    const day = await client.get(`/agenda/?fecha=${DAY}&profesional=${userId}&pagina=2`);
    assert.equal(rowsOf(day.body).length, 205);
    assert.equal(totalOf(day.body), null);
    assert.doesNotMatch(day.body, /class="pagination"/);
    const week = await client.get(`/agenda/?fecha=${DAY}&vista=semana&profesional=${otherId}`);
    assert.deepEqual(rowsOf(week.body).map((r) => r.hora), ['07:00–07:02', '09:00–09:02']);
  });

  test("a professional's day names them and offers the resources as they are now: a rename or a new resource shows at once (decision 0310)", async () => {
    const heading = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
    const recursoOptions = (html: string) => [.../<select id="id_recurso" name="recurso">([\s\S]*?)<\/select>/.exec(html)![1]!.matchAll(/<option value="\d+"[^>]*>([^<]*)</g)].map((m) => m[1]);
    const before = await client.get(`/agenda/?fecha=${DAY}&profesional=${otherId}`);
    const name = (await ctx.db.selectFrom('users').select('username').where('id', '=', otherId).executeTakeFirstOrThrow()).username;
    assert.equal(heading(before.body), `Agenda del miércoles 10 de marzo de 2027 · ${name}`);
    assert.ok(!recursoOptions(before.body).includes('Sala de sueño 9'));
    await ctx.db.updateTable('users').set({ username: 'renombrada.dia' }).where('id', '=', otherId).execute();
    await ctx.db.insertInto('agenda_recursos').values({ nombre: 'Sala de sueño 9', clase: 'SALA', activo: 1 }).execute();
    const after = await client.get(`/agenda/?fecha=${DAY}&profesional=${otherId}`);
    assert.equal(heading(after.body), 'Agenda del miércoles 10 de marzo de 2027 · renombrada.dia');
    assert.match(after.body, new RegExp(`<option value="${otherId}" selected>renombrada\\.dia</option>`));
    assert.ok(recursoOptions(after.body).includes('Sala de sueño 9'));
    // A resource's day names it; a professional not among the active ones is named nowhere, and the day still shows.
    const recurso = (await ctx.db.selectFrom('agenda_recursos').select('id').where('nombre', '=', 'Sala de sueño 9').executeTakeFirstOrThrow()).id;
    assert.equal(heading((await client.get(`/agenda/?fecha=${DAY}&recurso=${recurso}`)).body), 'Agenda del miércoles 10 de marzo de 2027 · Sala de sueño 9');
    const unknown = await client.get(`/agenda/?fecha=${DAY}&profesional=999999`);
    assert.equal(unknown.status, 200);
    assert.equal(heading(unknown.body), 'Agenda del miércoles 10 de marzo de 2027');
  });
});
