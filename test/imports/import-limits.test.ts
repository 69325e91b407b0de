// The import against a hostile tester (issue 25; decisions 0057–0059): rows counted as records, crafted workbooks,
// thousands of people born the same day, data changed between preview and confirm, previews bounded per person,
// long file names. On the test engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IMPORT_FIELDS } from '../../src/imports/import.rules.js';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { createTestContext, decodeEntities, loggedInClient, messagesIn, type TestClient, type TestContext } from '../helpers.js';
import { hugeStringXlsx, manyRowsXlsx, patientCells } from './import-files.js';
import { confirmFields, countIn, csvFile, patientRow, uploadFile } from './import-helpers.js';

let ctx: TestContext;
let client: TestClient;
let seq = 0;
const doc = (p: string) => `${p}${String(process.pid % 10000).padStart(4, '0')}${String(++seq).padStart(4, '0')}`;

before(async () => {
  ctx = await createTestContext();
  ({ client } = await loggedInClient(ctx));
});
after(async () => ctx?.close());

const text = (html: string) => decodeEntities(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
const byDocumento = (documento: string) => ctx.db.selectFrom('patients').select('id').where('documento', '=', documento).executeTakeFirst();
const uploadsOf = async (userId: number) => ctx.db.selectFrom('patient_import_uploads').select(['id', 'file_name']).where('user_id', '=', userId).orderBy('id').execute();

/** A CSV (UTF-8, ';') of the given rows, each with an «Observaciones» cell of two lines, and a blank line after every tenth. */
function multilineCsv(rows: readonly Record<string, string>[]): Buffer {
  const q = (s: string) => (/[;"\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = [[...IMPORT_FIELDS, 'Observaciones'].join(';')];
  rows.forEach((r, i) => {
    lines.push([...IMPORT_FIELDS.map((f) => q(r[f] ?? '')), q(`Ronca.\r\nControl en ${i % 12 + 1} meses`)].join(';'));
    if (i % 10 === 9) lines.push('');
  });
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
}

describe('rows are records, not lines', () => {
  test('12,000 records with line breaks inside quoted cells and blank lines between them: 12,000 rows previewed', async () => {
    const res = await uploadFile(ctx, client, 'notas.csv', multilineCsv(patientCells(12_000, '61').cells));
    assert.equal(res.status, 200, text(res.body).slice(0, 300));
    assert.equal(countIn(res.body, 'total'), 12_000);
    assert.equal(countIn(res.body, 'crear'), 12_000);
    assert.match(text(res.body), /Columnas que no se importan \(se ignoran\): «Observaciones»/);
  });

  test('20,001 records of two lines each: refused at the 20,001st, nothing kept', async () => {
    const before = await uploadsOf(1);
    const res = await uploadFile(ctx, client, 'muchas.csv', multilineCsv(patientCells(20_001, '62', 50).cells));
    assert.equal(res.status, 400);
    assert.match(text(res.body), /más de 20\.000 filas de datos; el máximo es 20\.000/);
    assert.deepEqual(await uploadsOf(1), before);
  });
});

describe('crafted workbooks: a clear message, and the application goes on answering', () => {
  const cases: [string, () => Promise<Buffer> | Buffer, RegExp][] = [
    ['100,000 one-cell rows in 0.5 MB', () => manyRowsXlsx(100_000), /más de 20\.000 filas de datos/],
    ['a 400 MB shared string in 2 MB', () => hugeStringXlsx(400 * 1024 * 1024), /ocupa demasiado al descomprimirlo/],
  ];
  for (const [name, make, message] of cases) {
    test(name, async () => {
      const res = await uploadFile(ctx, client, 'hostil.xlsx', await make());
      assert.equal(res.status, 400, text(res.body).slice(0, 300));
      assert.match(text(res.body), message);
      assert.equal((await ctx.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      assert.equal(await ctx.db.selectFrom('patient_import_uploads').select('id').where('file_name', '=', 'hostil.xlsx').executeTakeFirst(), undefined);
    });
  }

  test('more than 50 rows born the same day with nearly the same name: refused with the date and a line', async () => {
    const rows = Array.from({ length: 51 }, (_, i) => patientRow({ documento: doc('63'), nombre: 'Ana', apellido: i % 2 ? 'Ruiz' : 'Ruis', fecha_nacimiento: '1950-05-05' }));
    const res = await uploadFile(ctx, client, 'mismas.csv', csvFile([...IMPORT_FIELDS], rows, { encoding: 'utf8' }));
    assert.equal(res.status, 400);
    assert.match(text(res.body), /Más de 50 filas tienen la misma fecha de nacimiento \(1950-05-05\) y nombres casi iguales \(la fila 52 es una de ellas\)/);
  });
});

describe('between preview and confirm', () => {
  test('a documento registered and a similar person registered meanwhile: those rows are left out and named, the rest created', async () => {
    const [dA, dB, dC] = [doc('64'), doc('64'), doc('64')];
    const file = csvFile([...IMPORT_FIELDS], [
      patientRow({ documento: dA, nombre: 'Rosa', apellido: 'Lema Toro', fecha_nacimiento: '1951-06-07' }),
      patientRow({ documento: dB, nombre: 'Bruno', apellido: 'Díaz Mora', fecha_nacimiento: '1952-07-08' }),
      patientRow({ documento: dC, nombre: 'Clara', apellido: 'Ríos Paz', fecha_nacimiento: '1953-08-09' }),
    ], { encoding: 'utf8' });
    const preview = await uploadFile(ctx, client, 'cambios.csv', file);
    assert.equal(countIn(preview.body, 'crear'), 3);
    await createPatient(ctx.db, { documento: dB, nombre: 'Otro', apellido: 'Registro' });
    await createPatient(ctx.db, { documento: doc('65'), nombre: 'Rosa', apellido: 'Lemma Toro', fecha_nacimiento: '1951-06-07' });
    const done = await client.post('/patients/import/confirm/', confirmFields(preview.body));
    assert.equal(done.location, '/patients/');
    const message = messagesIn((await client.follow(done)).body)[0]!.text;
    assert.match(message, /1 paciente creado, 2 filas omitidas\. 2 filas no se importaron porque mientras tanto se registró un paciente con su documento o una persona parecida \(filas 2, 3\)/);
    assert.ok(await byDocumento(dC));
    assert.equal(await byDocumento(dA), undefined);
    const entry = await ctx.db.selectFrom('audit_log').select('changes').where('action', '=', 'patient.import').orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.deepEqual([JSON.parse(entry.changes!).omitidos_por_cambios, JSON.parse(entry.changes!).filas_omitidas_por_cambios], [2, [2, 3]]);
  });
});

describe('previews kept per person (decision 0059)', () => {
  test('a sixth preview replaces the oldest, with a notice; the replaced one cannot be confirmed; a preview can be discarded', async () => {
    const { client: mine, user } = await loggedInClient(ctx);
    const previews = [];
    for (let i = 1; i <= 6; i++) {
      const res = await uploadFile(ctx, mine, `lote-${i}.csv`, csvFile([...IMPORT_FIELDS], [patientRow({ documento: doc('66') })], { encoding: 'utf8' }));
      assert.equal(res.status, 200);
      previews.push(res.body);
      if (i < 6) assert.doesNotMatch(res.body, /data-import-replaced/);
    }
    assert.match(text(previews[5]!), /Se descartó su vista previa más antigua sin confirmar \(«lote-1\.csv»\): cada persona guarda hasta 5 vistas previas/);
    assert.deepEqual((await uploadsOf(user.id)).map((u) => u.file_name), ['lote-2.csv', 'lote-3.csv', 'lote-4.csv', 'lote-5.csv', 'lote-6.csv']);
    const gone = await mine.post('/patients/import/confirm/', confirmFields(previews[0]!));
    assert.match(messagesIn((await mine.follow(gone)).body)[0]!.text, /ya no está disponible/);

    const page = await mine.get('/patients/import/');
    assert.equal((page.body.match(/data-pending-upload=/g) ?? []).length, 5);
    const discarded = await mine.post('/patients/import/discard/', { upload_id: confirmFields(previews[1]!).upload_id });
    assert.match(messagesIn((await mine.follow(discarded)).body)[0]!.text, /Se descartó la vista previa de «lote-2\.csv»/);
    assert.equal((await uploadsOf(user.id)).length, 4);
    // Another person's preview cannot be discarded.
    const theirs = await client.post('/patients/import/discard/', { upload_id: confirmFields(previews[2]!).upload_id });
    assert.match(messagesIn((await client.follow(theirs)).body)[0]!.text, /ya no está disponible/);
    assert.equal((await uploadsOf(user.id)).length, 4);
  });

  test('the database itself refuses a sixth preview of one person, a batch added to a ready preview, a state going back', async () => {
    const { user } = await loggedInClient(ctx);
    const row = (i: number) => ({ user_id: user.id, file_name: `f${i}.csv`, digest: 'x', created_at: '2026-11-22T15:00:00.000Z', bytes: 10, summary: '{}' });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(Number((await ctx.db.insertInto('patient_import_uploads').values(row(i)).returning('id').executeTakeFirstOrThrow()).id));
    await assert.rejects(ctx.db.insertInto('patient_import_uploads').values(row(5)).execute());
    await ctx.db.updateTable('patient_import_uploads').set({ state: 'lista' }).where('id', '=', ids[0]!).execute();
    await assert.rejects(ctx.db.insertInto('patient_import_batches').values({ upload_id: ids[0]!, seq: 0, rows_json: '[]' }).execute());
    await assert.rejects(ctx.db.updateTable('patient_import_uploads').set({ state: 'preparando' }).where('id', '=', ids[0]!).execute());
    await ctx.db.deleteFrom('patient_import_uploads').where('user_id', '=', user.id).execute();
  });
});

describe('file names', () => {
  test('a 250-character name ending in .csv is read as a CSV and kept shortened, its extension kept', async () => {
    const name = `${'a'.repeat(246)}.csv`;
    const res = await uploadFile(ctx, client, name, csvFile([...IMPORT_FIELDS], [patientRow({ documento: doc('67') })], { encoding: 'utf8' }));
    assert.equal(res.status, 200, text(res.body).slice(0, 300));
    const kept = (await ctx.db.selectFrom('patient_import_uploads').select('file_name').where('file_name', 'like', 'aaaa%').executeTakeFirstOrThrow()).file_name;
    assert.equal([...kept].length, 200);
    assert.match(kept, /^a+….csv$/);
    assert.match(text(res.body), /Vista previa de «a+…\.csv»/);
  });
});
