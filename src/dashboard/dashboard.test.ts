import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../db/database.js';
import { patientDerivedColumns } from '../patients/patient.rules.js';
import { createTestContext, loggedInClient, messagesIn, type TestClient, type TestContext } from '../../test/helpers.js';

// Today in these tests: 2026-11-22 in America/Bogota (the TestClock's default instant).

interface HistoryStep {
  at: string;
  desde: string | null;
  hacia: string;
  fecha?: string | null;
}

async function addPatient(
  db: Db,
  p: { nombre: string; apellido: string; documento: string; tipo?: string; entidad: string; programa: string; valor: number },
): Promise<number> {
  const now = '2026-01-01T00:00:00.000Z';
  const row = await db
    .insertInto('patients')
    .values({
      nombre: p.nombre,
      apellido: p.apellido,
      tipo_documento: p.tipo ?? 'CC',
      documento: p.documento,
      fecha_nacimiento: '1970-01-01',
      genero: 'F',
      departamento: 'SANTANDER',
      ciudad: 'BUCARAMANGA',
      zona: 'URBANA',
      telefono: '6070000',
      celular: '3000000000',
      estado_civil: 'CASADO',
      entidad_salud: p.entidad,
      estrato: 3,
      medico_remitente: 'Dr. X',
      especialidad: 'Neumología',
      diagnostico_clinico: 'G47.3',
      programa: p.programa,
      valor_capita: p.valor,
      ...patientDerivedColumns(p),
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function addIngreso(
  db: Db,
  pacienteId: number,
  i: { fecha_inicio: string; estado: 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO'; fecha_fin?: string; history: HistoryStep[] },
): Promise<number> {
  const row = await db
    .insertInto('ingresos')
    .values({
      paciente_id: pacienteId,
      fecha_inicio: i.fecha_inicio,
      fecha_fin: i.fecha_fin ?? null,
      estado: i.estado,
      motivo: i.estado === 'TERMINADO' ? 'Fin' : null,
      created_at: i.history[0]!.at,
      updated_at: i.history.at(-1)!.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const h of i.history) {
    await db
      .insertInto('ingreso_historial')
      .values({ ingreso_id: row.id, at: h.at, user_id: null, desde: h.desde, hacia: h.hacia, motivo: null, fecha: h.fecha ?? null })
      .execute();
  }
  return row.id;
}

const opened = (fecha: string): HistoryStep => ({ at: `${fecha}T15:00:00.000Z`, desde: null, hacia: 'ACTIVO', fecha });
const A = 'ENTITY_A';
const B = 'ENTITY_B';
const AOS = 'PROGRAMA AOS';
const INS = 'PROGRAMA INSOMNIO';

/** The known data set: ids by short name. */
async function buildDataSet(db: Db) {
  const ids: Record<string, number> = {};
  // P1 ACTIVO, started this month (mes 1).
  ids.p1 = await addPatient(db, { nombre: 'Ana', apellido: 'Álvarez', documento: 'D1', entidad: A, programa: AOS, valor: 25978300 });
  await addIngreso(db, ids.p1, { fecha_inicio: '2026-11-03', estado: 'ACTIVO', history: [opened('2026-11-03')] });
  // P2 ACTIVO since June (mes 6), documento that a spreadsheet would read as a formula, cents in valor_capita.
  ids.p2 = await addPatient(db, { nombre: 'Bruno', apellido: 'Benítez', documento: '+5730012', tipo: 'TI', entidad: B, programa: INS, valor: 10000050 });
  await addIngreso(db, ids.p2, { fecha_inicio: '2026-06-15', estado: 'ACTIVO', history: [opened('2026-06-15')] });
  // P3 suspended on 12 October.
  ids.p3 = await addPatient(db, { nombre: 'Carla', apellido: 'Castro', documento: 'D3', entidad: A, programa: AOS, valor: 25978300 });
  await addIngreso(db, ids.p3, {
    fecha_inicio: '2026-05-10',
    estado: 'SUSPENDIDO',
    history: [opened('2026-05-10'), { at: '2026-10-12T15:00:00.000Z', desde: 'ACTIVO', hacia: 'SUSPENDIDO' }],
  });
  // P4 terminated this month (fecha_fin 10 November).
  ids.p4 = await addPatient(db, { nombre: 'Diego', apellido: 'Díaz', documento: 'D4', entidad: B, programa: AOS, valor: 25978300 });
  await addIngreso(db, ids.p4, {
    fecha_inicio: '2026-01-05',
    estado: 'TERMINADO',
    fecha_fin: '2026-11-10',
    history: [opened('2026-01-05'), { at: '2026-11-12T15:00:00.000Z', desde: 'ACTIVO', hacia: 'TERMINADO', fecha: '2026-11-10' }],
  });
  // P5 ACTIVO past month 18, a name with a formula, a separator and quotes.
  ids.p5 = await addPatient(db, { nombre: '=1+2', apellido: 'Eslava; "la jefa"', documento: 'D5', entidad: A, programa: AOS, valor: 20000000 });
  await addIngreso(db, ids.p5, { fecha_inicio: '2025-03-01', estado: 'ACTIVO', history: [opened('2025-03-01')] });
  // P6 terminated on 30 September (recorded on 2 October).
  ids.p6 = await addPatient(db, { nombre: 'Fabio', apellido: 'Fuentes', documento: 'D6', entidad: B, programa: INS, valor: 25978300 });
  await addIngreso(db, ids.p6, {
    fecha_inicio: '2026-02-01',
    estado: 'TERMINADO',
    fecha_fin: '2026-09-30',
    history: [opened('2026-02-01'), { at: '2026-10-02T15:00:00.000Z', desde: 'ACTIVO', hacia: 'TERMINADO', fecha: '2026-09-30' }],
  });
  // P7 suspended 15 September, reactivated 5 November: not billable in October.
  ids.p7 = await addPatient(db, { nombre: 'Gina', apellido: 'Gómez', documento: 'D7', entidad: B, programa: AOS, valor: 25978300 });
  await addIngreso(db, ids.p7, {
    fecha_inicio: '2026-04-01',
    estado: 'ACTIVO',
    history: [
      opened('2026-04-01'),
      { at: '2026-09-15T14:00:00.000Z', desde: 'ACTIVO', hacia: 'SUSPENDIDO' },
      { at: '2026-11-05T14:00:00.000Z', desde: 'SUSPENDIDO', hacia: 'ACTIVO' },
    ],
  });
  // P8 suspended at 22:00 on 30 September in Bogota (03:00 UTC on 1 October): not billable in October.
  ids.p8 = await addPatient(db, { nombre: 'Hugo', apellido: 'Herrera', documento: 'D8', entidad: A, programa: INS, valor: 25978300 });
  await addIngreso(db, ids.p8, {
    fecha_inicio: '2026-08-01',
    estado: 'SUSPENDIDO',
    history: [opened('2026-08-01'), { at: '2026-10-01T03:00:00.000Z', desde: 'ACTIVO', hacia: 'SUSPENDIDO' }],
  });
  return ids;
}

/** Monitoring records: P1 recent, P2 only old, P5 recent but voided, P7 none. */
async function addMonitoring(db: Db, ids: Record<string, number>, userId: number) {
  const active = async (pacienteId: number) =>
    (await db.selectFrom('ingresos').select('id').where('paciente_id', '=', pacienteId).where('estado', '=', 'ACTIVO').executeTakeFirstOrThrow()).id;
  const add = async (pacienteId: number, fecha: string) =>
    (
      await db
        .insertInto('exam_records')
        .values({ ingreso_id: await active(pacienteId), kind: 'MONITOREO', fecha, registrado_por: userId, created_at: `${fecha}T15:00:00.000Z`, tipo: 'OXIMETRIA', observaciones: null, iah: null, saturacion_minima: null, horas_uso_promedio: null, porcentaje_noches_4h: null, presion_cmh2o: null, fuga_lpm: null, tipo_sesion: null, numero_sesion: null, isi: null, epworth: null, nombre_examen: null, resultado: null, anulado_at: null, anulado_por: null, motivo_anulacion: null })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  // Within P1's cycle (it started on 2026-11-03): the database refuses a record dated outside its Ingreso.
  await add(ids.p1!, '2026-11-10');
  await add(ids.p2!, '2026-07-01');
  const voided = await add(ids.p5!, '2026-11-01');
  await db
    .updateTable('exam_records')
    .set({ anulado_at: '2026-11-02T15:00:00.000Z', anulado_por: userId, motivo_anulacion: 'Paciente equivocado' })
    .where('id', '=', voided)
    .execute();
}

const figure = (html: string, name: string): number => {
  const m = new RegExp(`data-figure="${name}"><span class="figure-value">(\\d+)<`).exec(html);
  assert.ok(m, `figure ${name} not found`);
  return Number(m[1]);
};

const tableCount = (html: string, table: string, key: string): number | null => {
  const section = new RegExp(`data-table="${table}"[\\s\\S]*?</table>`).exec(html)?.[0] ?? '';
  const m = new RegExp(`data-key="${key}"><th scope="row">[^<]*</th><td data-count="(\\d+)"`).exec(section);
  return m ? Number(m[1]) : null;
};

const csvDocumentos = (body: string): string[] =>
  body
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .slice(1)
    .filter((l) => l !== '')
    .map((l) => l.split(';')[0]!);

describe('dashboard and capitation report', () => {
  let ctx: TestContext;
  let client: TestClient;

  before(async () => {
    ctx = await createTestContext();
    const ids = await buildDataSet(ctx.db);
    let user: { id: number };
    ({ client, user } = await loggedInClient(ctx));
    await addMonitoring(ctx.db, ids, user.id);
  });
  after(async () => ctx.close());

  test('the figures of the known data set', async () => {
    const res = await client.get('/dashboard/');
    assert.equal(res.status, 200);
    const html = res.body;
    assert.equal(figure(html, 'activos'), 4);
    assert.equal(figure(html, 'suspendidos'), 2);
    assert.equal(figure(html, 'iniciados'), 1);
    assert.equal(figure(html, 'finalizados'), 1);
    assert.equal(tableCount(html, 'programa', 'PROGRAMA AOS'), 4);
    assert.equal(tableCount(html, 'programa', 'PROGRAMA INSOMNIO'), 2);
    assert.equal(tableCount(html, 'entidad', 'ENTITY_A'), 4);
    assert.equal(tableCount(html, 'entidad', 'ENTITY_B'), 2);
    assert.match(html, /Cuentan los pacientes con un ingreso ACTIVO o SUSPENDIDO/);
  });

  test('the mes_capita chart is an SVG with a text equivalent', async () => {
    const html = (await client.get('/dashboard/')).body;
    const svg = /<svg[^>]*data-chart="mes-capita"[\s\S]*?<\/svg>/.exec(html)?.[0];
    assert.ok(svg);
    assert.match(svg, /role="img"/);
    assert.match(svg, /<title id="chart-mes-title">/);
    // One drawing for every width of screen (decision 0055).
    assert.equal([...html.matchAll(/data-chart="mes-capita"/g)].length, 1);
    const bars = [...svg.matchAll(/data-mes="(\d+)" data-count="(\d+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
    assert.equal(bars.length, 18);
    const expected = new Map([[1, 1], [6, 1], [8, 1], [18, 1]]);
    for (const [mes, n] of bars) assert.equal(n, expected.get(mes!) ?? 0, `mes ${mes}`);
    assert.doesNotMatch(html, /style=/);
    const table = /data-table="mes-capita"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    assert.match(table, /<th scope="row">18<\/th><td>1<\/td>/);
  });

  test('capitation per insurer in Colombian pesos, and the Ingresos at month 18', async () => {
    const html = (await client.get('/dashboard/')).body;
    const capita = /data-table="capita"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    assert.match(capita, /data-key="ENTITY_A"><th scope="row">ENTITY_A<\/th><td>2<\/td><td class="money" data-value="45978300">\$ 459\.783<\/td>/);
    assert.match(capita, /data-key="ENTITY_B"><th scope="row">ENTITY_B<\/th><td>2<\/td><td class="money" data-value="35978350">\$ 359\.783,50<\/td>/);
    assert.match(capita, /\$ 819\.566,50/);
    const limite = /data-table="limite"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    assert.equal([...limite.matchAll(/data-ingreso-id=/g)].length, 1);
    assert.match(limite, /href="\/patients\/follow\?query_search=D5"/);
  });

  test('active patients without a monitoring record in the last 90 days link to their clinical view', async () => {
    const html = (await client.get('/dashboard/')).body;
    const table = /data-table="sin-monitoreo"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    const listed = [...table.matchAll(/<a href="\/exams\/(\d+)\/">([^<]+)<\/a>/g)].map((m) => m[2]!.replace(/\s+/g, ' '));
    assert.deepEqual(listed, ['Bruno Benítez', '=1+2 Eslava; &quot;la jefa&quot;', 'Gina Gómez']);
    assert.match(table, /01\/07\/2026/);
    assert.match(table, /Nunca/);
    assert.match(html, /3 pacientes con ingreso ACTIVO sin registro de monitoreo/);
  });

  test('current month CSV: exact bytes', async () => {
    const res = await client.get('/dashboard/capita.csv?mes=2026-11');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.equal(res.headers['content-disposition'], 'attachment; filename="capita-2026-11.csv"');
    const expected =
      '\uFEFFdocumento;tipo_documento;nombre;apellido;entidad_salud;programa;mes_capita;valor_capita\r\n' +
      'D1;CC;Ana;Álvarez;ENTITY_A;PROGRAMA AOS;1;259783,00\r\n' +
      'D5;CC;\'=1+2;"Eslava; ""la jefa""";ENTITY_A;PROGRAMA AOS;18;200000,00\r\n' +
      "'+5730012;TI;Bruno;Benítez;ENTITY_B;PROGRAMA INSOMNIO;6;100000,50\r\n" +
      'D7;CC;Gina;Gómez;ENTITY_B;PROGRAMA AOS;8;259783,00\r\n';
    assert.equal(res.body, expected);
    assert.deepEqual([...Buffer.from(res.body, 'utf8').subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  });

  test('current month CSV for one insurer, logged as an export', async () => {
    const res = await client.get('/dashboard/capita.csv?mes=2026-11&entidad=ENTITY_B');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-disposition'], 'attachment; filename="capita-2026-11-ENTITY_B.csv"');
    assert.deepEqual(csvDocumentos(res.body), ["'+5730012", 'D7']);
    assert.match(res.body, /;259783,00\r\n$/, 'the last line is a patient: no total line');
    const entry = await ctx.db.selectFrom('audit_log').selectAll().where('action', '=', 'export').orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(entry.changes!), { exportacion: 'capita', filtros: { mes: '2026-11', entidad: 'ENTITY_B' }, filas: 2 });
    assert.ok(entry.user_id);
  });

  test('past month CSV follows the status history', async () => {
    const oct = await client.get('/dashboard/capita.csv?mes=2026-10');
    assert.equal(oct.status, 200);
    assert.equal(
      oct.body,
      '\uFEFFdocumento;tipo_documento;nombre;apellido;entidad_salud;programa;mes_capita;valor_capita\r\n' +
        'D3;CC;Carla;Castro;ENTITY_A;PROGRAMA AOS;6;259783,00\r\n' +
        'D5;CC;\'=1+2;"Eslava; ""la jefa""";ENTITY_A;PROGRAMA AOS;18;200000,00\r\n' +
        "'+5730012;TI;Bruno;Benítez;ENTITY_B;PROGRAMA INSOMNIO;5;100000,50\r\n" +
        'D4;CC;Diego;Díaz;ENTITY_B;PROGRAMA AOS;10;259783,00\r\n',
    );
    const sep = await client.get('/dashboard/capita.csv?mes=2026-09');
    assert.deepEqual(csvDocumentos(sep.body).sort(), ["'+5730012", 'D3', 'D4', 'D5', 'D6', 'D7', 'D8'].sort());
    const old = await client.get('/dashboard/capita.csv?mes=2020-01');
    assert.equal(old.body, '\uFEFFdocumento;tipo_documento;nombre;apellido;entidad_salud;programa;mes_capita;valor_capita\r\n');
  });

  test('invalid, missing and future months get a clear message, never a 500', async () => {
    for (const [query, text] of [
      ['mes=2026-13', 'no es un mes válido'],
      ['mes=noviembre', 'no es un mes válido'],
      ['mes=', 'Indique el mes'],
      ['', 'Indique el mes'],
      ['mes=2026-12', 'todavía no ha comenzado'],
      ['mes=2026-11&entidad=OTRA', 'entidad de salud indicada no existe'],
      ['mes=2026-11&mes=2026-10', 'Indique el mes'],
    ] as const) {
      const res = await client.get(`/dashboard/capita.csv${query ? `?${query}` : ''}`);
      assert.equal(res.status, 400, query);
      assert.match(String(res.headers['content-type']), /text\/html/);
      const errors = messagesIn(res.body).filter((m) => m.level === 'error');
      assert.ok(errors.some((m) => m.text.includes(text)), `${query}: ${JSON.stringify(errors)}`);
      assert.match(res.body, /data-chart="mes-capita"/);
    }
  });
});
