// A small clinic's October 2026 for ENTITY_A (issue 27): the RIPS page lists the expected problems, each with the
// link that fixes it; once they are fixed, the file is the golden one byte for byte, valid against the JSON Schema
// (ajv) and the checks a schema cannot say, and its generation is audited with its sha256. On SQLite and PostgreSQL.
// Regenerate the golden file (after a deliberate change, reviewed) with RIPS_UPDATE_GOLDEN=1.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import type { Db } from '../../src/db/database.js';
import { checkRipsFile } from '../../src/rips/rips.rules.js';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { createTestContext, createUser, decodeEntities, login, loggedInClient, TestClient, type TestContext } from '../helpers.js';

const GOLDEN = fileURLToPath(new URL('../fixtures/rips/rips-2026-10-ENTITY_A.json', import.meta.url));
const SCHEMA = JSON.parse(readFileSync(fileURLToPath(new URL('../../src/rips/schema/rips-res2275-v1.schema.json', import.meta.url)), 'utf8'));

type ExamRow = { ingreso_id: number; kind: 'MONITOREO' | 'PSICOLOGIA' | 'OTRO'; fecha: string; hora?: string | null; registrado_por: number; tipo?: string; tipo_sesion?: string; nombre_examen?: string };

async function exam(db: Db, e: ExamRow, voided = false): Promise<number> {
  const row = await db
    .insertInto('exam_records')
    .values({
      ingreso_id: e.ingreso_id,
      kind: e.kind,
      fecha: e.fecha,
      hora: e.hora ?? null,
      registrado_por: e.registrado_por,
      created_at: `${e.fecha}T15:00:00.000Z`,
      tipo: e.tipo ?? null,
      tipo_sesion: e.tipo_sesion ?? null,
      nombre_examen: e.nombre_examen ?? null,
      ...(voided ? { anulado_at: `${e.fecha}T16:00:00.000Z`, anulado_por: e.registrado_por, motivo_anulacion: 'Registrado por error' } : {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The problems the page lists: [kind, paciente id or '', exam id or '', link]. */
function problemsIn(html: string): string[][] {
  const out: string[][] = [];
  const re = /<li data-problem="(\w+)"(?: data-paciente="(\d+)")?(?: data-exam="(\d+)")?>[\s\S]*?<a href="([^"]+)">/g;
  for (let m = re.exec(html); m; m = re.exec(html)) out.push([m[1]!, m[2] ?? '', m[3] ?? '', decodeEntities(m[4]!)]);
  return out;
}

describe('RIPS of a small clinic’s month (golden file)', () => {
  let ctx: TestContext;
  let admin: TestClient;
  let biller: TestClient;
  const ids: Record<string, number> = {};
  const URL_PAGE = '/dashboard/rips/?mes=2026-10&entidad_salud=ENTITY_A';
  const URL_FILE = '/dashboard/rips.json?mes=2026-10&entidad_salud=ENTITY_A&factura=FEV1234&operacion=CapitaPeriodo';

  // The file is written to a temporary copy before it is sent (decision 0155): its own directory here, to see it go.
  const savedTmp = process.env.TMPDIR;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'rips-golden-'));
  const leftInTmp = () => readdirSync(tmp).filter((name) => name.startsWith('somno-rips-'));
  before(async () => {
    process.env.TMPDIR = tmp;
    try {
      await build();
    } catch (err) {
      throw new Error(`building the month: ${(err as Error).message}`);
    }
  });
  async function build() {
    ctx = await createTestContext();
    const db = ctx.db;
    admin = (await loggedInClient(ctx, { isAdmin: true })).client;
    biller = (await loggedInClient(ctx)).client;
    // Two professionals: one with a document, one without (she gives it on her account page once told).
    const p1 = await createUser(db, { username: 'neumologa' });
    await db.updateTable('users').set({ tipo_documento: 'CC', documento: '63000111' }).where('id', '=', p1.id).execute();
    const p2 = await createUser(db, { username: 'psicologo' });
    ids.prof1 = p1.id;
    ids.prof2 = p2.id;
    const base = { departamento: 'SANTANDER', ciudad: 'BUCARAMANGA', zona: 'URBANA' } as const;

    // P1 (ENTITY_A, AOS, active): basal and titration polysomnography, CPAP follow-up by the professional without a
    // document, a voided polygraphy, and an oximetry in September (another month).
    const a1 = await createPatient(db, { ...base, documento: '1098000001', nombre: 'Ana', apellido: 'Arias', tipo_usuario: '01', fecha_nacimiento: '1961-04-02', genero: 'F' }, { fechaInicio: '2026-01-05' });
    ids.a1 = a1.id;
    await exam(db, { ingreso_id: a1.ingresoId!, kind: 'MONITOREO', tipo: 'POLISOMNOGRAFIA', fecha: '2026-10-03', hora: '21:30', registrado_por: p1.id });
    await exam(db, { ingreso_id: a1.ingresoId!, kind: 'MONITOREO', tipo: 'POLIGRAFIA', fecha: '2026-10-05', hora: '20:00', registrado_por: p1.id }, true);
    await exam(db, { ingreso_id: a1.ingresoId!, kind: 'MONITOREO', tipo: 'TITULACION_CPAP', fecha: '2026-10-10', registrado_por: p1.id });
    ids.a1cpap = await exam(db, { ingreso_id: a1.ingresoId!, kind: 'MONITOREO', tipo: 'DESCARGA_CPAP', fecha: '2026-10-25', hora: '09:15', registrado_por: p2.id });
    await exam(db, { ingreso_id: a1.ingresoId!, kind: 'MONITOREO', tipo: 'OXIMETRIA', fecha: '2026-09-28', hora: '07:00', registrado_por: p1.id });

    // P2 (ENTITY_A, insomnia, no tipo_usuario): the psychology visits, CBT-I and an other exam not in the catalogue.
    const a2 = await createPatient(db, { ...base, documento: '1098000002', nombre: 'Bruno', apellido: 'Beltrán', programa: 'PROGRAMA INSOMNIO', tipo_usuario: '', fecha_nacimiento: '1975-12-30', genero: 'M', zona: 'RURAL' }, { fechaInicio: '2026-09-20' });
    ids.a2 = a2.id;
    await exam(db, { ingreso_id: a2.ingresoId!, kind: 'PSICOLOGIA', tipo_sesion: 'EVALUACION_INICIAL', fecha: '2026-10-02', hora: '10:00', registrado_por: p1.id });
    await exam(db, { ingreso_id: a2.ingresoId!, kind: 'PSICOLOGIA', tipo_sesion: 'TCC_I', fecha: '2026-10-09', hora: '10:00', registrado_por: p1.id });
    await exam(db, { ingreso_id: a2.ingresoId!, kind: 'PSICOLOGIA', tipo_sesion: 'SEGUIMIENTO', fecha: '2026-10-16', hora: '10:00', registrado_por: p1.id });
    ids.a2otro = await exam(db, { ingreso_id: a2.ingresoId!, kind: 'OTRO', nombre_examen: 'Actigrafía', fecha: '2026-10-20', hora: '08:30', registrado_por: p1.id });
    await exam(db, { ingreso_id: a2.ingresoId!, kind: 'PSICOLOGIA', tipo_sesion: 'CIERRE', fecha: '2026-10-30', hora: '11:45', registrado_por: p1.id });

    // P3 (ENTITY_A, suspended on 15 October): a polygraphy before and an oximetry on a suspended day (reported).
    const a3 = await createPatient(db, { ...base, documento: '1098000003', nombre: 'Carla', apellido: 'Castro', tipo_usuario: '04', fecha_nacimiento: '1958-07-19', genero: 'F' }, { fechaInicio: '2026-03-01' });
    ids.a3 = a3.id;
    await exam(db, { ingreso_id: a3.ingresoId!, kind: 'MONITOREO', tipo: 'POLIGRAFIA', fecha: '2026-10-08', hora: '22:00', registrado_por: p1.id });
    const status = async (estado: 'ACTIVO' | 'SUSPENDIDO', fecha: string) => {
      await db.updateTable('ingresos').set({ estado }).where('id', '=', a3.ingresoId!).execute();
      const desde = estado === 'ACTIVO' ? 'SUSPENDIDO' : 'ACTIVO';
      await db.insertInto('ingreso_historial').values({ ingreso_id: a3.ingresoId!, at: `${fecha}T15:00:00.000Z`, user_id: null, desde, hacia: estado, motivo: null, fecha }).execute();
    };
    await status('SUSPENDIDO', '2026-10-15');
    await status('ACTIVO', '2026-10-22');
    // Recorded after the reactivation with the day it was given, a suspended day (decision 0095: it is reported).
    await exam(db, { ingreso_id: a3.ingresoId!, kind: 'MONITOREO', tipo: 'OXIMETRIA', fecha: '2026-10-20', hora: '22:10', registrado_por: p1.id });
    await status('SUSPENDIDO', '2026-10-28');

    // P4 (ENTITY_A, cycle terminated on 12 October, a municipality the catalogue does not know): a polysomnography.
    const a4 = await createPatient(db, { ...base, ciudad: 'MACONDO', documento: '1098000004', nombre: 'Diego', apellido: 'Díaz', tipo_usuario: '02', fecha_nacimiento: '1949-01-01', genero: 'M' }, { fechaInicio: '2026-02-01' });
    ids.a4 = a4.id;
    await exam(db, { ingreso_id: a4.ingresoId!, kind: 'MONITOREO', tipo: 'POLISOMNOGRAFIA', fecha: '2026-10-06', hora: '21:00', registrado_por: p1.id });
    await db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: '2026-10-12', motivo: 'Alta' }).where('id', '=', a4.ingresoId!).execute();

    // P5 (ENTITY_B): not in ENTITY_A's file.
    const b1 = await createPatient(db, { ...base, documento: '1098000005', entidad_salud: 'ENTITY_B', tipo_usuario: '01' }, { fechaInicio: '2026-01-05' });
    await exam(db, { ingreso_id: b1.ingresoId!, kind: 'MONITOREO', tipo: 'POLISOMNOGRAFIA', fecha: '2026-10-07', hora: '21:00', registrado_por: p1.id });
  }
  after(async () => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(tmp, { recursive: true, force: true });
    await ctx?.close();
  });

  test('the page lists every problem the validator would reject, each with the link that fixes it', async () => {
    const res = await biller.get(URL_PAGE);
    assert.equal(res.status, 200);
    assert.match(res.body, /data-rips-patients="4" data-rips-services="11"/, 'four ENTITY_A patients, eleven services (voided and September ones left out)');
    assert.deepEqual(problemsIn(res.body), [
      ['settings', '', '', '/users/rips/'],
      ['settings', '', '', '/users/rips/'],
      ['profesional', String(ids.a1), String(ids.a1cpap), `/users/${ids.prof2}/#documento`],
      ['tipo_usuario', String(ids.a2), '', `/patients/${ids.a2}/`],
      ['catalogo', String(ids.a2), String(ids.a2otro), '/users/rips/#catalogo'],
      ['municipio', String(ids.a4), '', `/patients/${ids.a4}/`],
    ]);
    const file = await biller.get(URL_FILE);
    assert.equal(file.status, 400, 'no file while problems remain');
    assert.deepEqual(leftInTmp(), [], 'the refused file leaves no copy on disk');
    assert.doesNotMatch(String(file.headers['content-type']), /json/);
    assert.match(decodeEntities(file.body), /6 problema\(s\)/);
  });

  test('fixed, the file is the golden one byte for byte, valid against the schema, and its generation audited', async () => {
    // The administrator's settings and a catalogue edition for the other exams.
    const settings = await admin.post('/users/rips/', {
      nit: '900123456', codigo_prestador: '680010012301', modalidad_grupo_servicio: '01', grupo_servicios: '01', finalidad_tecnologia_salud: '15',
      causa_motivo_atencion: '38', via_ingreso_servicio_salud: '02', diagnostico_aos: 'G47.3', diagnostico_insomnio: 'G47.0',
    });
    assert.equal(settings.status, 302);
    const otro = await admin.post('/users/rips/catalogo/', { servicio: 'OTRO', vigente_desde: '2026-01-01', bloque: 'procedimientos', cups: '891806', cod_servicio: '332' });
    assert.equal(otro.status, 302);
    // A new CUPS edition from 5 October: the polysomnography of the 3rd keeps the old code, the 6th's takes the new one.
    const edition = await admin.post('/users/rips/catalogo/', { servicio: 'MONITOREO:POLISOMNOGRAFIA', vigente_desde: '2026-10-05', bloque: 'procedimientos', cups: '891901', cod_servicio: '331' });
    assert.equal(edition.status, 302);
    // The professional gives her document on her own account page.
    const prof2 = new TestClient(ctx.app);
    await login(prof2, 'psicologo');
    const doc = await prof2.post('/users/password/documento/', { tipo_documento: 'CC', documento: '1.098.111.222' });
    assert.equal(doc.status, 302);
    // Staff complete the patients.
    await ctx.db.updateTable('patients').set({ tipo_usuario: '12' }).where('id', '=', ids.a2!).execute();
    await ctx.db.updateTable('patients').set({ ciudad: 'FLORIDABLANCA' }).where('id', '=', ids.a4!).execute();

    const page = await biller.get(URL_PAGE);
    assert.deepEqual(problemsIn(page.body), []);
    assert.match(page.body, /data-rips-problems="0"/);

    const res = await biller.get(URL_FILE);
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['content-disposition'], 'attachment; filename="RIPS_900123456_FEV1234_2026-10.json"');
    if (process.env.RIPS_UPDATE_GOLDEN === '1' || !existsSync(GOLDEN)) writeFileSync(GOLDEN, res.body);
    assert.equal(res.body, readFileSync(GOLDEN, 'utf8'), 'the file, byte for byte');
    assert.deepEqual(leftInTmp(), [], 'the sent file leaves no copy on disk');

    const parsed = JSON.parse(res.body);
    const ajv = new Ajv({ allErrors: true, strict: false });
    const valid = ajv.validate(SCHEMA, parsed);
    assert.ok(valid, JSON.stringify(ajv.errors));
    assert.deepEqual(checkRipsFile(parsed as { usuarios: unknown[] }, { start: '2026-10-01', end: '2026-10-31' }), []);

    const entry = await ctx.db.selectFrom('audit_log').select(['changes', 'user_id']).where('action', '=', 'rips.generate').executeTakeFirstOrThrow();
    const changes = JSON.parse(entry.changes!);
    assert.equal(changes.sha256, createHash('sha256').update(res.body, 'utf8').digest('hex'));
    assert.equal(changes.usuarios, 4);
    assert.equal(changes.servicios, 11);
    assert.deepEqual(changes.filtros, { mes: '2026-10', entidad_salud: 'ENTITY_A', operacion: 'CapitaPeriodo', factura: 'FEV1234' });
  });

  test('RS: no invoice, tipoNota RS; the same services', async () => {
    const res = await biller.get('/dashboard/rips.json?mes=2026-10&entidad_salud=ENTITY_A&factura=&operacion=RS');
    assert.equal(res.status, 200);
    const parsed = JSON.parse(res.body);
    assert.equal(parsed.numFactura, null);
    assert.equal(parsed.tipoNota, 'RS');
    assert.equal(parsed.usuarios.length, 4);
    assert.ok(new Ajv({ strict: false }).validate(SCHEMA, parsed));
  });

  test('bad input: a clear message, no file, 400', async () => {
    const cases: [string, RegExp][] = [
      ['/dashboard/rips.json?mes=2026-13&entidad_salud=ENTITY_A&factura=FEV1&operacion=CapitaPeriodo', /no es un mes válido/],
      ['/dashboard/rips.json?mes=abc&entidad_salud=ENTITY_A&factura=FEV1&operacion=CapitaPeriodo', /no es un mes válido/],
      ['/dashboard/rips.json?mes=2026-12&entidad_salud=ENTITY_A&factura=FEV1&operacion=CapitaPeriodo', /todavía no ha empezado/],
      ['/dashboard/rips.json?mes=2026-10&entidad_salud=ENTITY_Z&factura=FEV1&operacion=CapitaPeriodo', /Elija la entidad de salud/],
      ['/dashboard/rips.json?mes=2026-10&entidad_salud=ENTITY_A&factura=FEV-1%202&operacion=CapitaPeriodo', /solo puede tener letras mayúsculas/],
      ['/dashboard/rips.json?mes=2026-10&entidad_salud=ENTITY_A&factura=fev%C3%B11&operacion=CapitaPeriodo', /solo puede tener letras mayúsculas/],
      ['/dashboard/rips.json?mes=2026-10&entidad_salud=ENTITY_A&factura=&operacion=CapitaFinal', /Escriba el número de la factura/],
      ['/dashboard/rips.json?mes=2026-10&entidad_salud=ENTITY_A&factura=FEV1&operacion=Otra', /Elija la operación/],
      ['/dashboard/rips.json?mes=2026-10&entidad_salud=ENTITY_A&factura=FEV1&operacion=RS', /no lleva número de factura/],
      ['/dashboard/rips.json?mes=2026-10&entidad_salud=ENTITY_A&mes=2026-09', /./],
      ['/dashboard/rips/?mes=2026-12&entidad_salud=ENTITY_A', /todavía no ha empezado/],
    ];
    for (const [url, message] of cases) {
      const res = await biller.get(url);
      assert.equal(res.status, 400, url);
      assert.match(String(res.headers['content-type']), /text\/html/, url);
      assert.match(decodeEntities(res.body), message, url);
    }
  });

  test('settings and catalogue: administrators only (403), form errors beside the field', async () => {
    for (const url of ['/users/rips/', '/users/rips/catalogo/', '/users/rips/entidad/']) {
      const res = url === '/users/rips/' ? await biller.get(url) : await biller.post(url, {});
      assert.equal(res.status, 403, url);
    }
    assert.equal((await biller.post('/users/rips/', { nit: '1' })).status, 403);
    const bad = await admin.post('/users/rips/', {
      nit: '900123456', codigo_prestador: '6800100123', modalidad_grupo_servicio: '01', grupo_servicios: '01', finalidad_tecnologia_salud: '15',
      causa_motivo_atencion: '38', via_ingreso_servicio_salud: '02', diagnostico_aos: 'G47.3', diagnostico_insomnio: 'G47.0',
    });
    assert.equal(bad.status, 200);
    assert.match(decodeEntities(bad.body), /tiene 12 dígitos/);
    const dup = await admin.post('/users/rips/catalogo/', { servicio: 'OTRO', vigente_desde: '2026-01-01', bloque: 'procedimientos', cups: '891806', cod_servicio: '332' });
    assert.equal(dup.status, 200);
    assert.match(decodeEntities(dup.body), /ya tiene una vigencia que empieza en esa fecha/);
    const audited = await ctx.db.selectFrom('audit_log').select('action').where('action', 'like', 'rips.%').orderBy('id').execute();
    assert.deepEqual(audited.map((a) => a.action), ['rips.settings', 'rips.catalogue', 'rips.catalogue', 'rips.generate', 'rips.generate']);
  });

  test('what the rules let through is checked against the JSON Schema too (a 5-character CUPS written straight in the database)', async () => {
    await ctx.db.insertInto('rips_catalogue').values({ servicio: 'PSICOLOGIA:CIERRE', vigente_desde: '2026-10-29', bloque: 'consultas', cups: '89030', cod_servicio: 344, created_at: '2026-11-01T00:00:00.000Z', created_by: null }).execute();
    const res = await biller.get(URL_PAGE);
    assert.deepEqual(problemsIn(res.body), [['schema', String(ids.a2), '', `/patients/${ids.a2}/`]]);
    assert.match(decodeEntities(res.body), /codConsulta must match pattern/);
    assert.equal((await biller.get(URL_FILE)).status, 400);
  });
});
