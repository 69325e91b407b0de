// /patients/import/: the spreadsheet import journey on the test engine (decision 0042).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import { sql } from 'kysely';
import { BATCH_ROWS } from '../../src/imports/import.plan.js';
import { IMPORT_FIELDS } from '../../src/imports/import.rules.js';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { createTestContext, decodeEntities, ENGINE, loggedInClient, messagesIn, type TestClient, type TestContext } from '../helpers.js';
import { confirmFields, countIn, csvFile, multipartBody, patientRow, uploadFile, xlsxFile } from './import-helpers.js';

let ctx: TestContext;
let client: TestClient;
let seq = 0;
// Digits only, as a cédula (CC) holds since decision 0030, and so already canonical: stored as generated.
const doc = (p = '1') => `${p}${String(process.pid % 100000).padStart(5, '0')}${String(++seq).padStart(3, '0')}`;

before(async () => {
  ctx = await createTestContext();
  ({ client } = await loggedInClient(ctx));
});
after(async () => ctx?.close());

const count = async (table: 'patients' | 'ingresos' | 'audit_log') =>
  Number((await sql<{ n: number }>`select cast(count(*) as integer) as n from ${sql.table(table)}`.execute(ctx.db)).rows[0]!.n);
const snapshot = async () => ({ patients: await count('patients'), ingresos: await count('ingresos'), audit: await count('audit_log') });
const byDocumento = (documento: string) => ctx.db.selectFrom('patients').selectAll().where('documento', '=', documento).executeTakeFirst();
const text = (html: string) => decodeEntities(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');

describe('GET /patients/import/', () => {
  test('the upload form and both templates', async () => {
    const page = await client.get('/patients/import/');
    assert.equal(page.status, 200);
    assert.match(page.body, /enctype="multipart\/form-data"/);
    assert.match(page.body, /href="\/patients\/import\/plantilla\.csv"/);
    const csv = await client.get('/patients/import/plantilla.csv');
    assert.equal(csv.status, 200);
    assert.equal(csv.body.replace(/^\uFEFF/, '').trim(), IMPORT_FIELDS.join(';'));
    const res = await ctx.app.inject({ method: 'GET', url: '/patients/import/plantilla.xlsx', headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    assert.equal(res.statusCode, 200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    assert.deepEqual((wb.worksheets[0]!.getRow(1).values as unknown[]).slice(1), [...IMPORT_FIELDS]);
  });
});

describe('POST /patients/import/ and /confirm/', () => {
  test('CSV in Windows-1252 with ";" and Spanish headings: the preview writes nothing; the confirm creates each patient and its first cycle; the same file again creates nothing', async () => {
    const header = ['Nombre', 'APELLIDO', 'Tipo de documento', 'Número de documento', 'Fecha de nacimiento', 'género', 'Departamento', 'Ciudad',
      'Zona', 'Teléfono', 'Celular', 'Estado civil', 'Entidad de salud', 'Estrato', 'Peso (kg)', 'Altura (m)', 'Médico remitente', 'Especialidad',
      'Diagnóstico clínico', 'Programa', 'fecha_inicio_programa', 'Estado', 'Observación interna'];
    const keys = ['nombre', 'apellido', 'tipo_documento', 'documento', 'fecha_nacimiento', 'genero', 'departamento', 'ciudad', 'zona', 'telefono',
      'celular', 'estado_civil', 'entidad_salud', 'estrato', 'peso', 'altura', 'medico_remitente', 'especialidad', 'diagnostico_clinico', 'programa',
      'fecha_inicio_programa', 'estado', 'nota'];
    const d1 = doc();
    const d2 = doc();
    const file = csvFile(header, [
      patientRow({ nombre: 'Íngrid', apellido: 'Peñaloza', documento: d1, fecha_nacimiento: '14/03/1975', estado_civil: 'union libre', ciudad: 'floridablanca', nota: 'x' }),
      patientRow({ nombre: 'Óscar', apellido: 'Muñoz', documento: d2, fecha_nacimiento: '1980-02-29', fecha_inicio_programa: '2026-10-01', estado: 'suspendido' }),
    ], { keys });
    const before = await snapshot();
    const preview = await uploadFile(ctx, client, 'pacientes ñ.csv', file);
    assert.equal(preview.status, 200, text(preview.body).slice(0, 500));
    assert.equal(countIn(preview.body, 'total'), 2);
    assert.equal(countIn(preview.body, 'crear'), 2);
    assert.equal(countIn(preview.body, 'omitir'), 0);
    assert.match(text(preview.body), /Columnas que no se importan \(se ignoran\): «Observación interna»/);
    assert.deepEqual(await snapshot(), before, 'the preview writes nothing');

    const done = await client.post('/patients/import/confirm/', confirmFields(preview.body));
    assert.equal(done.status, 302);
    assert.equal(done.location, '/patients/');
    const list = await client.follow(done);
    assert.match(messagesIn(list.body)[0]!.text, /2 pacientes creados, 0 filas omitidas/);

    const a = (await byDocumento(d1))!;
    assert.equal(a.nombre, 'Íngrid');
    assert.equal(a.apellido, 'Peñaloza');
    assert.equal(a.fecha_nacimiento, '1975-03-14');
    assert.equal(a.estado_civil, 'UNIÓN LIBRE');
    assert.equal(a.ciudad, 'FLORIDABLANCA');
    assert.equal(a.peso, 7050);
    const b = (await byDocumento(d2))!;
    const cyclesA = await ctx.db.selectFrom('ingresos').selectAll().where('paciente_id', '=', a.id).execute();
    const cyclesB = await ctx.db.selectFrom('ingresos').selectAll().where('paciente_id', '=', b.id).execute();
    assert.deepEqual(cyclesA.map((i) => [i.estado, i.fecha_inicio]), [['ACTIVO', '2026-11-22']]);
    assert.deepEqual(cyclesB.map((i) => [i.estado, i.fecha_inicio]), [['SUSPENDIDO', '2026-10-01']]);

    const imports = await ctx.db.selectFrom('audit_log').selectAll().where('action', '=', 'patient.import').execute();
    const entry = imports.find((e) => (e.changes ?? '').includes('pacientes ñ.csv'))!;
    const changes = JSON.parse(entry.changes!);
    assert.equal(changes.creados, 2);
    assert.match(changes.sha256, /^[0-9a-f]{64}$/);
    const creates = await ctx.db.selectFrom('audit_log').select('patient_id').where('action', '=', 'patient.create').where('patient_id', 'in', [a.id, b.id]).execute();
    assert.equal(creates.length, 2);

    // The same file again: both rows are duplicates of stored patients; confirming creates nothing.
    const again = await uploadFile(ctx, client, 'pacientes ñ.csv', file);
    assert.equal(countIn(again.body, 'crear'), 0);
    assert.equal(countIn(again.body, 'omitir'), 2);
    assert.match(again.body, new RegExp(`href="/patients/${a.id}/"`));
    const mid = await snapshot();
    const second = await client.post('/patients/import/confirm/', confirmFields(again.body));
    assert.equal(second.status, 302);
    const after = await snapshot();
    assert.equal(after.patients, mid.patients);
    assert.equal(after.ingresos, mid.ingresos);
    // A confirmed preview cannot be confirmed twice.
    const twice = await client.post('/patients/import/confirm/', confirmFields(again.body));
    assert.equal(twice.location, '/patients/import/');
  });

  test('XLSX with date and number cells; row errors shown beside their cell; invalid rows skipped', async () => {
    const d1 = doc('2');
    const d2 = doc('2');
    const header = [...IMPORT_FIELDS];
    const row = (o: Record<string, string | number | Date>) => header.map((f) => (f in o ? o[f]! : patientRow()[f]!));
    const file = await xlsxFile(header, [
      row({ documento: d1, nombre: 'Sara', apellido: 'Excel', fecha_nacimiento: new Date(Date.UTC(1971, 4, 6)), estrato: 2, altura: 1.58, peso: 61 }),
      row({ documento: d2, nombre: 'Malo', apellido: 'Excel', genero: 'X', fecha_nacimiento: '2030-01-01' }),
    ]);
    const preview = await uploadFile(ctx, client, 'libro.xlsx', file);
    assert.equal(preview.status, 200, text(preview.body).slice(0, 400));
    assert.equal(countIn(preview.body, 'crear'), 1);
    assert.equal(countIn(preview.body, 'omitir'), 1);
    const bad = /<tr id="fila-[0-9]*" data-import-line="3"[\s\S]*?<\/tr>/.exec(preview.body)![0];
    assert.match(bad, /data-import-status="omitir"/);
    assert.match(bad, /data-field="genero" data-label="genero" aria-invalid="true">X<span class="field-error error">Seleccione una opción de la lista\.<\/span>/);
    assert.match(decodeEntities(bad), /debe ser anterior a hoy/);
    const done = await client.post('/patients/import/confirm/', confirmFields(preview.body));
    assert.equal(done.status, 302);
    const sara = (await byDocumento(d1))!;
    assert.equal(sara.fecha_nacimiento, '1971-05-06');
    assert.equal(sara.estrato, 2);
    assert.equal(sara.altura, 158);
    assert.equal(await byDocumento(d2), undefined);
  });

  test('duplicates: the same documento twice in the file, one already stored, and a similar person born the same day', async () => {
    const stored = await createPatient(ctx.db, { nombre: 'Hernán', apellido: 'Vargas Lleras', fecha_nacimiento: '1955-09-09', documento: doc('5') });
    const d1 = doc('3');
    const d2 = doc('3');
    const file = csvFile([...IMPORT_FIELDS], [
      patientRow({ documento: d1, nombre: 'Uno', apellido: 'Archivo' }),
      patientRow({ documento: ` ${d1.slice(0, 3)}.${d1.slice(3, 6)}.${d1.slice(6)} `, nombre: 'Dos', apellido: 'Archivo' }),
      patientRow({ documento: stored.documento, nombre: 'Tres', apellido: 'Archivo' }),
      patientRow({ documento: d2, nombre: 'hernan', apellido: 'Lleras Vargas', fecha_nacimiento: '1955-09-09' }),
    ], { encoding: 'utf8' });
    const preview = await uploadFile(ctx, client, 'dup.csv', file);
    assert.equal(countIn(preview.body, 'crear'), 1);
    assert.equal(countIn(preview.body, 'omitir'), 2);
    assert.equal(countIn(preview.body, 'revisar'), 1);
    const t = text(preview.body);
    assert.match(t, /Fila 3 · documento: El mismo documento ya está en la fila 2\./);
    assert.match(t, new RegExp(`Fila 4 · documento: Ya existe un paciente con este documento \\(ficha n\\.º ${stored.id}\\)`));
    assert.match(t, new RegExp(`Fila 5 · Posible duplicado: misma fecha de nacimiento y nombre parecido que la ficha n\\.º ${stored.id}\\.`));
    assert.match(preview.body, new RegExp(`<a href="/patients/${stored.id}/">Ver la ficha n\\.º ${stored.id}</a>`));

    // Without ticking "son otras personas" the similar person is left out; a second upload with it ticked brings her in.
    await client.post('/patients/import/confirm/', confirmFields(preview.body));
    assert.ok(await byDocumento(d1));
    assert.equal(await byDocumento(d2), undefined);
    const again = await uploadFile(ctx, client, 'dup.csv', file);
    assert.equal(countIn(again.body, 'revisar'), 1);
    await client.post('/patients/import/confirm/', { ...confirmFields(again.body), incluir_posibles_duplicados: '1' });
    const hernan = (await byDocumento(d2))!;
    const entry = await ctx.db.selectFrom('audit_log').select('changes').where('patient_id', '=', hernan.id).where('action', '=', 'patient.create').executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(entry.changes!).otra_persona_confirmada, [null, [stored.id]]);
  });

  test('a confirm that fails part-way keeps each written patient whole, says so, and goes on from there when confirmed again', async () => {
    // Three batches of rows (the confirm writes a batch per transaction: decision 0058); one row of the third is refused.
    const docs = Array.from({ length: 3 * BATCH_ROWS }, () => doc('4'));
    const refused = 2 * BATCH_ROWS + 2;
    const births = docs.map((_, i) => `19${String(40 + i).padStart(2, '0')}-0${1 + (i % 9)}-1${i % 10}`);
    const file = csvFile([...IMPORT_FIELDS], docs.map((d, i) => patientRow({ documento: d, nombre: i === refused ? 'Fallaimport' : `Lote${i}`, fecha_nacimiento: births[i]! })), { encoding: 'utf8' });
    const preview = await uploadFile(ctx, client, 'falla.csv', file);
    assert.equal(countIn(preview.body, 'crear'), 3 * BATCH_ROWS);
    // The database refuses that patient (a trigger standing for any failure during the write).
    if (ENGINE === 'postgres') {
      await sql`create function refuse_import() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(ctx.db);
      await sql`create trigger refuse_import before insert on patients for each row when (new.nombre = 'Fallaimport') execute function refuse_import()`.execute(ctx.db);
    } else {
      await sql`create trigger refuse_import before insert on patients when new.nombre = 'Fallaimport' begin select raise(abort, 'refused'); end`.execute(ctx.db);
    }
    const before = await snapshot();
    const failed = await client.post('/patients/import/confirm/', confirmFields(preview.body));
    assert.equal(failed.location, '/patients/import/');
    const page = await client.follow(failed);
    assert.match(text(page.body), new RegExp(`La importación de «falla\\.csv» se interrumpió\\. Se crearon ${2 * BATCH_ROWS} pacientes, cada uno completo`));
    assert.match(page.body, /Continuar la importación/);
    const mid = await snapshot();
    // The first two batches whole (patient, first cycle, creation entry each), nothing of the third.
    assert.equal(mid.patients - before.patients, 2 * BATCH_ROWS);
    assert.equal(mid.ingresos - before.ingresos, 2 * BATCH_ROWS);
    assert.equal(mid.audit - before.audit, 2 * BATCH_ROWS);
    assert.ok(await byDocumento(docs[2 * BATCH_ROWS - 1]!));
    assert.equal(await byDocumento(docs[2 * BATCH_ROWS]!), undefined);
    await sql`drop trigger refuse_import ${ENGINE === 'postgres' ? sql`on patients` : sql``}`.execute(ctx.db);
    const ok = await client.post('/patients/import/confirm/', confirmFields(page.body));
    assert.equal(ok.status, 302);
    assert.match((await client.follow(ok)).body, new RegExp(`${3 * BATCH_ROWS} pacientes creados, 0 filas omitidas`));
    for (const d of docs) assert.ok(await byDocumento(d));
    const entries = await ctx.db.selectFrom('audit_log').select('changes').where('action', '=', 'patient.import').execute();
    const mine = entries.filter((e) => (e.changes ?? '').includes('falla.csv')).map((e) => JSON.parse(e.changes!));
    assert.equal(mine.length, 1);
    assert.equal(mine[0].creados, 3 * BATCH_ROWS);
    assert.equal((await snapshot()).patients - before.patients, 3 * BATCH_ROWS);
  });
});

describe('POST /patients/import/ — bad files: a clear message, nothing written, never a 500', () => {
  const header = [...IMPORT_FIELDS];
  const cases: [string, () => Promise<{ name: string; data: Buffer }>, RegExp, number][] = [
    ['over 5 MB', async () => ({ name: 'grande.csv', data: Buffer.alloc(5 * 1024 * 1024 + 10, 'a') }), /supera 5 MB/, 413],
    ['over 20,000 rows', async () => ({ name: 'filas.csv', data: csvFile(header, Array.from({ length: 20_001 }, () => ({ nombre: 'x' })), { encoding: 'utf8' }) }), /más de 20\.000 filas de datos; el máximo es 20\.000/, 400],
    ['not a CSV or XLSX', async () => ({ name: 'informe.pdf', data: Buffer.from('%PDF-1.4 ...') }), /Solo se aceptan archivos \.csv o \.xlsx/, 400],
    ['a binary file named .csv', async () => ({ name: 'foto.csv', data: Buffer.from([0xff, 0xd8, 0xff, 0, 0, 1, 2]) }), /no es texto/, 400],
    ['a formula cell in an XLSX', async () => ({ name: 'f.xlsx', data: await xlsxFile(header, [header.map((f) => (f === 'estrato' ? { formula: '1+2' } : patientRow({ documento: doc() })[f]!))]) }), /La celda N2 contiene una fórmula/, 400],
    ['a formula in a CSV', async () => ({ name: 'f.csv', data: csvFile(header, [patientRow({ documento: '=HYPERLINK("x")' })], { encoding: 'utf8' }) }), /La celda D2 contiene una fórmula/, 400],
    ['a password-protected workbook', async () => ({ name: 'clave.xlsx', data: Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(1000)]) }), /protegido con contraseña/, 400],
    ['a corrupt workbook', async () => ({ name: 'roto.xlsx', data: Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(2000, 7)]) }), /dañado/, 400],
    ['a truncated workbook', async () => ({ name: 'cortado.xlsx', data: (await xlsxFile(header, [])).subarray(0, 300) }), /dañado/, 400],
    ['missing required columns', async () => ({ name: 'pocas.csv', data: csvFile(['nombre', 'apellido'], [{ nombre: 'a', apellido: 'b' }], { encoding: 'utf8' }) }), /Faltan columnas obligatorias: tipo_documento, documento/, 400],
    ['an empty file', async () => ({ name: 'vacio.csv', data: Buffer.alloc(0) }), /Elija un archivo|vacío/, 400],
  ];
  for (const [name, make, message, status] of cases) {
    test(name, async () => {
      const file = await make();
      const before = await snapshot();
      const res = await uploadFile(ctx, client, file.name, file.data);
      assert.equal(res.status, status, text(res.body).slice(0, 300));
      assert.match(text(res.body), message);
      assert.match(res.body, /data-import-error/);
      assert.deepEqual(await snapshot(), before);
      assert.equal(await ctx.db.selectFrom('patient_import_uploads').select('id').where('file_name', '=', file.name).executeTakeFirst(), undefined);
    });
  }

  test('without the CSRF token: 403; a multipart body on another route: 415', async () => {
    const res = await uploadFile(ctx, client, 'a.csv', csvFile(header, [patientRow({ documento: doc() })]), { csrf: false });
    assert.equal(res.status, 403);
    const other = await uploadFile(ctx, client, 'a.csv', csvFile(header, [patientRow({ documento: doc() })]), { url: '/patients/create/' });
    assert.equal(other.status, 415);
  });

  test('a malformed multipart body: 400, not 500', async () => {
    const { payload, contentType } = multipartBody({ csrfmiddlewaretoken: client.csrfToken! }, { name: 'a.csv', data: Buffer.from('nombre\r\nx') });
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await ctx.app.inject({ method: 'POST', url: '/patients/import/', payload: payload.subarray(0, payload.length - 30), headers: { cookie, 'content-type': contentType } });
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, String(res.statusCode));
  });

  test('another user cannot confirm my preview', async () => {
    const preview = await uploadFile(ctx, client, 'mio.csv', csvFile(header, [patientRow({ documento: doc() })]));
    const { client: other } = await loggedInClient(ctx);
    const res = await other.post('/patients/import/confirm/', confirmFields(preview.body));
    assert.equal(res.location, '/patients/import/');
    assert.ok(await ctx.db.selectFrom('patient_import_uploads').select('id').where('file_name', '=', 'mio.csv').executeTakeFirst());
  });
});
