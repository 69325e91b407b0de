// The month's enrolment report per insurer (GET /dashboard/novedades/ and its CSV, issue 27, decision 0130): its
// totals agree with capita.csv for the same month and insurer, its novedades are the month's changes of estado and
// of insurer, each row links to the patient, and bad input is a clear message beside its field (400), never a 500.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, decodeEntities, loggedInClient, type TestClient, type TestContext } from '../../test/helpers.js';
import { createPatient as seedPatient, newPatientRow } from '../../test/fixtures/patient.fixtures.js';
import type { Db } from '../db/database.js';
import { applyStatusChange } from '../ingresos/ingreso.repository.js';
import { updatePatientRecord } from '../patients/patient.actions.js';
import type { PatientInput } from '../patients/patient.schema.js';
import { keysetBatches } from '../shared/csv.js';
import { capitaQueryOf } from './dashboard.export.js';
import { parseCapitaMonth } from './dashboard.rules.js';
import { findNovedadesPage, type NovedadRow } from './novedades.repository.js';
import { NOVEDADES_PAGE_SIZE, type ReportMonth } from './novedades.rules.js';

// Today: 2026-11-22 in America/Bogota (the TestClock's default instant).
const A = 'ENTITY_A';
const B = 'ENTITY_B';

/** A status change of an Ingreso as the lifecycle action writes it (its history row dated `fecha`). */
async function change(db: Db, ingresoId: number, from: 'ACTIVO' | 'SUSPENDIDO', to: 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO', fecha: string, at: string, motivo: string | null = null) {
  await db.transaction().execute(async (trx) => {
    const applied = await applyStatusChange(trx, { ingresoId, from, to, fechaFin: to === 'TERMINADO' ? fecha : null, motivo, fecha, userId: null, now: at });
    assert.ok(applied);
  });
}

/** The patient form's fields of a seeded patient, to save it again through the real action. */
function formOf(overrides: Partial<PatientInput>): PatientInput {
  const { nombre_norm: _n, apellido_norm: _a, documento_key: _k, created_at: _c, updated_at: _u, ...fields } = newPatientRow(overrides) as Record<string, unknown>;
  return fields as unknown as PatientInput;
}

interface World {
  ids: Record<string, number>;
}

async function buildWorld(ctx: TestContext): Promise<World> {
  const db = ctx.db;
  const ids: Record<string, number> = {};
  const add = async (key: string, fields: Partial<PatientInput>, fechaInicio: string) => {
    const p = await seedPatient(db, fields, { fechaInicio });
    ids[key] = p.id;
    ids[`${key}i`] = p.ingresoId!;
    return p;
  };
  await add('a1', { nombre: 'Ana', apellido: 'Álvarez', entidad_salud: A }, '2026-11-03');
  await add('a2', { nombre: 'Beatriz', apellido: 'Bernal', entidad_salud: A, valor_capita: 20000000 }, '2025-03-01');
  await add('a3', { nombre: 'Carla', apellido: 'Castro', entidad_salud: A }, '2026-05-10');
  await change(db, ids.a3i!, 'ACTIVO', 'SUSPENDIDO', '2026-10-12', '2026-10-12T15:00:00.000Z', 'Viaje');
  await add('a4', { nombre: 'Dora', apellido: 'Díaz', entidad_salud: A }, '2026-04-01');
  await change(db, ids.a4i!, 'ACTIVO', 'SUSPENDIDO', '2026-09-15', '2026-09-15T14:00:00.000Z', 'Hospitalización');
  await change(db, ids.a4i!, 'SUSPENDIDO', 'ACTIVO', '2026-11-05', '2026-11-05T14:00:00.000Z');
  await add('a5', { nombre: 'Elsa', apellido: 'Espitia', entidad_salud: A }, '2026-01-05');
  await change(db, ids.a5i!, 'ACTIVO', 'TERMINADO', '2026-11-10', '2026-11-12T15:00:00.000Z', 'Alta por mejoría');
  // a7: a suspension stored without its date (rows older than the change's `fecha`): dated by its timestamp, 22:00
  // on 30 September in Bogota (03:00 UTC on 1 October), so a novedad of September.
  await add('a7', { nombre: 'Gloria', apellido: 'Galvis', entidad_salud: A }, '2026-08-01');
  await db.updateTable('ingresos').set({ estado: 'SUSPENDIDO', updated_at: '2026-10-01T03:00:00.000Z' }).where('id', '=', ids.a7i!).execute();
  await db
    .insertInto('ingreso_historial')
    .values({ ingreso_id: ids.a7i!, at: '2026-10-01T03:00:00.000Z', user_id: null, desde: 'ACTIVO', hacia: 'SUSPENDIDO', motivo: null, fecha: null })
    .execute();
  // a6 moves from ENTITY_A to ENTITY_B on 5 November, through the real update of the record (its trail entry).
  const a6 = await add('a6', { nombre: 'Fabiola', apellido: 'Fuentes', entidad_salud: A, documento: 'NOV6' }, '2026-02-01');
  const at = new Date('2026-11-05T15:00:00.000Z');
  const saved = await updatePatientRecord(
    { db, clock: { now: () => at }, timeZone: ctx.config.timeZone, actor: null, requestId: 'test' },
    a6.id,
    { patient: formOf({ nombre: 'Fabiola', apellido: 'Fuentes', entidad_salud: B, documento: 'NOV6' }), fechaInicioPrograma: null },
  );
  assert.ok(saved.ok);
  await add('b1', { nombre: 'Bruno', apellido: 'Benítez', entidad_salud: B, programa: 'PROGRAMA INSOMNIO', valor_capita: 10000050 }, '2026-06-15');
  await add('b2', { nombre: 'Gabriel', apellido: 'Gómez', entidad_salud: B }, '2026-02-01');
  await change(db, ids.b2i!, 'ACTIVO', 'TERMINADO', '2026-09-30', '2026-10-02T15:00:00.000Z', 'Abandono');
  // Enough patients of ENTITY_B for the list to take two pages.
  for (let k = 0; k < NOVEDADES_PAGE_SIZE + 2; k++) {
    await seedPatient(db, { nombre: `Paciente ${String(k).padStart(2, '0')}`, apellido: 'Zapata', entidad_salud: B }, { fechaInicio: '2026-08-01' });
  }
  return { ids };
}

/** The lines of a CSV after its heading, each split into its cells (no cell of these data holds a ';'). */
const csvRows = (body: string): string[][] =>
  body
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .slice(1)
    .filter((l) => l !== '')
    .map((l) => l.split(';'));

/** '259783,00' → 25978300 hundredths. */
const hundredths = (cell: string): number => Number(cell.replace(',', ''));

const figure = (html: string, name: string): { value: string; data: string | undefined } => {
  const m = new RegExp(`data-figure="${name}"(?: data-value="(\\d+)")?><span class="figure-value">([^<]*)<`).exec(html);
  assert.ok(m, `figure ${name} not found`);
  return { value: decodeEntities(m[2]!), data: m[1] };
};

/** The rows of a table of the page: [data-tipo, patient id, the row's text]. */
function tableRows(html: string, table: string): { tipo: string | undefined; pacienteId: number; text: string }[] {
  const section = new RegExp(`data-table="${table}"[\\s\\S]*?</table>`).exec(html)?.[0] ?? '';
  return [...section.matchAll(/<tr(?: data-tipo="(\w+)")? data-paciente-id="(\d+)">([\s\S]*?)<\/tr>/g)].map((m) => ({
    tipo: m[1],
    pacienteId: Number(m[2]),
    text: decodeEntities(m[3]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()),
  }));
}

describe('the month\'s enrolment report per insurer (novedades)', () => {
  let ctx: TestContext;
  let client: TestClient;
  let world: World;

  before(async () => {
    ctx = await createTestContext();
    world = await buildWorld(ctx);
    ({ client } = await loggedInClient(ctx));
  });
  after(async () => ctx.close());

  test('its totals and its list agree with capita.csv, for several months and both insurers', async () => {
    for (const mes of ['2026-08', '2026-09', '2026-10', '2026-11', '2020-01']) {
      for (const entidad of [A, B]) {
        const label = `${mes} ${entidad}`;
        const capita = await client.get(`/dashboard/capita.csv?mes=${mes}&entidad=${entidad}`);
        assert.equal(capita.status, 200, label);
        const capitaRows = csvRows(capita.body);
        const page = await client.get(`/dashboard/novedades/?mes=${mes}&entidad_salud=${entidad}`);
        assert.equal(page.status, 200, label);
        assert.equal(Number(figure(page.body, 'inscritos').value), capitaRows.length, label);
        const total = capitaRows.reduce((s, r) => s + hundredths(r[7]!), 0);
        assert.equal(Number(figure(page.body, 'valor').data), total, label);

        // The CSV's enrolled rows are capita.csv's, row for row (documento … valor_capita).
        const csv = await client.get(`/dashboard/novedades.csv?mes=${mes}&entidad_salud=${entidad}`);
        assert.equal(csv.status, 200, label);
        const inscritos = csvRows(csv.body).filter((r) => r[0] === 'INSCRITO');
        assert.deepEqual(
          inscritos.map((r) => [r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9]]),
          capitaRows,
          label,
        );

        // Every page of the list, in order, is capita.csv's list.
        const pages = Math.max(1, Math.ceil(capitaRows.length / NOVEDADES_PAGE_SIZE));
        const listed: string[] = [];
        for (let n = 1; n <= pages; n++) {
          const html = n === 1 ? page.body : (await client.get(`/dashboard/novedades/?mes=${mes}&entidad_salud=${entidad}&page=${n}`)).body;
          listed.push(...tableRows(html, 'inscritos').map((r) => r.text));
        }
        assert.equal(listed.length, capitaRows.length, label);
        capitaRows.forEach((r, k) => assert.ok(listed[k]!.includes(`${r[2]} ${r[3]}`) && listed[k]!.includes(r[0]!), `${label} row ${k}: ${listed[k]} / ${r.join(';')}`));
      }
    }
  });

  test('November of ENTITY_A: the enrolled patients and each novedad, linking to the patient', async () => {
    const { ids } = world;
    const res = await client.get('/dashboard/novedades/?mes=2026-11&entidad_salud=ENTITY_A');
    assert.equal(res.status, 200);
    assert.deepEqual(tableRows(res.body, 'inscritos').map((r) => r.pacienteId), [ids.a1, ids.a2, ids.a4]);
    assert.equal(figure(res.body, 'APERTURA').value, '1');
    assert.equal(figure(res.body, 'SUSPENSION').value, '0');
    assert.equal(figure(res.body, 'REACTIVACION').value, '1');
    assert.equal(figure(res.body, 'TERMINACION').value, '1');
    assert.equal(figure(res.body, 'CAMBIO_ENTIDAD').value, '1');
    const rows = tableRows(res.body, 'novedades');
    assert.deepEqual(
      rows.map((r) => [r.tipo, r.pacienteId]),
      [
        ['APERTURA', ids.a1],
        ['REACTIVACION', ids.a4],
        ['CAMBIO_ENTIDAD', ids.a6],
        ['TERMINACION', ids.a5],
      ],
    );
    assert.match(rows[2]!.text, /05\/11\/2026 Cambio de entidad Fabiola Fuentes NOV6 ENTITY_A → ENTITY_B/);
    assert.match(rows[3]!.text, /10\/11\/2026 Terminación Elsa Espitia .* Alta por mejoría/);
    for (const id of [ids.a1, ids.a4, ids.a5, ids.a6]) assert.match(res.body, new RegExp(`<a href="/patients/${id}/">`));
  });

  test('the insurer change is a novedad of both insurers; suspensions and terminations fall in the month they took effect', async () => {
    const { ids } = world;
    const novB = await client.get('/dashboard/novedades/?mes=2026-11&entidad_salud=ENTITY_B');
    assert.deepEqual(tableRows(novB.body, 'novedades').map((r) => [r.tipo, r.pacienteId]), [['CAMBIO_ENTIDAD', ids.a6]]);
    const octA = await client.get('/dashboard/novedades/?mes=2026-10&entidad_salud=ENTITY_A');
    const oct = tableRows(octA.body, 'novedades');
    assert.deepEqual(oct.map((r) => [r.tipo, r.pacienteId]), [['SUSPENSION', ids.a3]]);
    assert.match(oct[0]!.text, /12\/10\/2026 Suspensión Carla Castro .* Viaje/);
    // Recorded on 2 October, dated 30 September: a novedad of September.
    const sepB = tableRows((await client.get('/dashboard/novedades/?mes=2026-09&entidad_salud=ENTITY_B')).body, 'novedades');
    assert.deepEqual(sepB.map((r) => [r.tipo, r.pacienteId]), [['TERMINACION', ids.b2]]);
    const sepA = tableRows((await client.get('/dashboard/novedades/?mes=2026-09&entidad_salud=ENTITY_A')).body, 'novedades');
    assert.deepEqual(sepA.map((r) => [r.tipo, r.pacienteId]), [['SUSPENSION', ids.a4], ['SUSPENSION', ids.a7]]);
    assert.match(sepA[1]!.text, /^30\/09\/2026 Suspensión Gloria Galvis/);
    const octB = await client.get('/dashboard/novedades/?mes=2026-10&entidad_salud=ENTITY_B');
    assert.deepEqual(tableRows(octB.body, 'novedades'), []);
    assert.match(octB.body, /Sin novedades en este mes/);
    // The 52 openings of August, on two pages of the list of novedades.
    const aug1 = await client.get('/dashboard/novedades/?mes=2026-08&entidad_salud=ENTITY_B');
    assert.equal(figure(aug1.body, 'APERTURA').value, String(NOVEDADES_PAGE_SIZE + 2));
    assert.equal(tableRows(aug1.body, 'novedades').length, NOVEDADES_PAGE_SIZE);
    assert.match(aug1.body, /href="\/dashboard\/novedades\/\?mes=2026-08&amp;entidad_salud=ENTITY_B&amp;page_novedades=2"/);
    const aug2 = await client.get('/dashboard/novedades/?mes=2026-08&entidad_salud=ENTITY_B&page_novedades=2');
    assert.equal(tableRows(aug2.body, 'novedades').length, 2);
  });

  test('the CSV: es-CO, the enrolled rows then the novedades, and its export entry in the trail', async () => {
    const res = await client.get('/dashboard/novedades.csv?mes=2026-11&entidad_salud=ENTITY_A');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.equal(res.headers['content-disposition'], 'attachment; filename="novedades-2026-11-ENTITY_A.csv"');
    assert.deepEqual([...Buffer.from(res.body, 'utf8').subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const lines = res.body.replace(/^\uFEFF/, '').split('\r\n');
    assert.equal(lines[0], 'novedad;fecha;documento;tipo_documento;nombre;apellido;entidad_salud;programa;mes_capita;valor_capita;motivo;entidad_anterior;entidad_nueva');
    const rows = csvRows(res.body);
    assert.deepEqual(rows.map((r) => r[0]), ['INSCRITO', 'INSCRITO', 'INSCRITO', 'APERTURA', 'REACTIVACION', 'CAMBIO_ENTIDAD', 'TERMINACION']);
    assert.deepEqual(rows[1]!.slice(1, 10), ['2025-03-01', rows[1]![2]!, 'CC', 'Beatriz', 'Bernal', A, 'PROGRAMA AOS', '18', '200000,00']);
    assert.deepEqual(rows[5]!.slice(-3), ['', A, B]);
    assert.deepEqual(rows[5]!.slice(1, 3), ['2026-11-05', 'NOV6']);
    assert.deepEqual(rows[6]!.slice(0, 2), ['TERMINACION', '2026-11-10']);
    assert.equal(rows[6]![10], 'Alta por mejoría');
    const entry = await ctx.db.selectFrom('audit_log').selectAll().where('action', '=', 'export').orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(entry.changes!), { exportacion: 'novedades', filtros: { mes: '2026-11', entidad_salud: A }, filas: 7 });
    assert.ok(entry.user_id);
  });

  test('the CSV\'s novedades read by keyset in small batches are the page\'s order, row for row', async () => {
    for (const [mes, entidad] of [['2026-08', B], ['2026-11', A], ['2026-09', A]] as const) {
      const q = { ...capitaQueryOf(parseCapitaMonth(mes, '2026-11-22') as ReportMonth, entidad, ctx.config.timeZone), entidad };
      const all = await findNovedadesPage(ctx.db, q, { offset: 0, limit: 1000 });
      const batched: NovedadRow[] = [];
      for await (const batch of keysetBatches<NovedadRow>((after) => findNovedadesPage(ctx.db, q, { after, limit: 3 }), 3)) batched.push(...batch);
      assert.ok(all.length > 0, mes);
      assert.deepEqual(batched, all, `${mes} ${entidad}`);
    }
  });

  test('the first visit shows the form; the dashboard links to the report', async () => {
    const res = await client.get('/dashboard/novedades/');
    assert.equal(res.status, 200);
    assert.match(res.body, /<form method="get" action="\/dashboard\/novedades\/"/);
    assert.match(res.body, /value="2026-11"/);
    assert.doesNotMatch(res.body, /data-table="inscritos"/);
    assert.match((await client.get('/dashboard/')).body, /href="\/dashboard\/novedades\/"/);
  });

  test('bad input: a clear message beside its field, 400, never a 500; the page and the CSV alike', async () => {
    const cases = [
      ['mes=2026-13&entidad_salud=ENTITY_A', 'mes', 'no es un mes válido'],
      ['mes=noviembre&entidad_salud=ENTITY_A', 'mes', 'no es un mes válido'],
      ['mes=&entidad_salud=ENTITY_A', 'mes', 'Indique el mes'],
      ['entidad_salud=ENTITY_A', 'mes', 'Indique el mes'],
      ['mes=2026-12&entidad_salud=ENTITY_A', 'mes', 'todavía no ha comenzado'],
      ['mes=2099-01&entidad_salud=ENTITY_B', 'mes', 'todavía no ha comenzado'],
      ['mes=2026-11&entidad_salud=OTRA', 'entidad_salud', 'entidad de salud indicada no existe'],
      ['mes=2026-11&entidad_salud=', 'entidad_salud', 'Elija la entidad de salud'],
      ['mes=2026-11', 'entidad_salud', 'Elija la entidad de salud'],
      ['mes=2026-11&mes=2026-10&entidad_salud=ENTITY_A', 'mes', 'Indique el mes'],
      [`mes=${'9'.repeat(5000)}&entidad_salud=${'x'.repeat(5000)}`, 'mes', 'no es un mes válido'],
    ] as const;
    for (const path of ['/dashboard/novedades/', '/dashboard/novedades.csv']) {
      for (const [query, field, text] of cases) {
        const res = await client.get(`${path}?${query}`);
        assert.equal(res.status, 400, `${path}?${query.slice(0, 60)}`);
        assert.match(String(res.headers['content-type']), /text\/html/);
        const error = new RegExp(`<p class="field-error" id="error_${field}">([^<]*)</p>`).exec(res.body)?.[1];
        assert.ok(error && decodeEntities(error).includes(text), `${query.slice(0, 60)}: ${error}`);
        assert.match(res.body, new RegExp(`id="id_${field}"[^>]*aria-invalid="true"`));
      }
    }
    // Page numbers that make no sense are page 1, or the last page.
    for (const page of ['0', '-1', 'abc', '99999999', '1e3']) {
      const res = await client.get(`/dashboard/novedades/?mes=2026-11&entidad_salud=ENTITY_B&page=${page}&page_novedades=${page}`);
      assert.equal(res.status, 200, page);
    }
    const last = await client.get('/dashboard/novedades/?mes=2026-11&entidad_salud=ENTITY_B&page=999');
    assert.equal(tableRows(last.body, 'inscritos').length, NOVEDADES_PAGE_SIZE + 4 - NOVEDADES_PAGE_SIZE);
    // However many digits: past the last page is the last page, as on the patients' lists.
    for (const page of ['99999999', '99999999999999999999']) {
      const far = await client.get(`/dashboard/novedades/?mes=2026-11&entidad_salud=ENTITY_B&page=${page}`);
      assert.equal(tableRows(far.body, 'inscritos').length, 4, page);
    }
  });

  test('logged out: to the login page, as the dashboard', async () => {
    const { TestClient } = await import('../../test/helpers.js');
    const anonymous = new TestClient(ctx.app);
    for (const path of ['/dashboard/novedades/?mes=2026-11&entidad_salud=ENTITY_A', '/dashboard/novedades.csv?mes=2026-11&entidad_salud=ENTITY_A']) {
      const res = await anonymous.get(path);
      assert.equal(res.status, 302);
      assert.match(res.location ?? '', /\/users\/login\//);
    }
  });
});
