// Issue 29, point 5: an import preview that explains itself. Every problem listed and linked to its row, the
// reason in the row's result cell, the values and dates as the file had them under the file's own headings,
// labelled cells for the phone's cards, an unused column ignored with a notice (a formula in it too), and after
// confirming, the rows left out as a CSV with a «motivo» column, ready to fix and import again. On SQLite, or
// PostgreSQL with TEST_PG_URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, decodeEntities, loggedInClient, messagesIn, type TestClient, type TestContext } from '../helpers.js';
import { confirmFields, countIn, csvFile, patientRow, uploadFile, xlsxFile } from './import-helpers.js';

let ctx: TestContext;
let client: TestClient;
let other: TestClient;
before(async () => {
  ctx = await createTestContext();
  ({ client } = await loggedInClient(ctx));
  ({ client: other } = await loggedInClient(ctx));
});
after(async () => ctx.close());

let seq = 0;
const doc = () => `7${String(process.pid % 100000).padStart(5, '0')}${String(++seq).padStart(3, '0')}`;
const text = (html: string) => decodeEntities(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
const byDocumento = (documento: string) => ctx.db.selectFrom('patients').selectAll().where('documento', '=', documento).executeTakeFirst();

// The headings a coordinator's spreadsheet has: Spanish titles, a formula column «Edad» and a notes column.
const HEADER = ['Nombre', 'Apellido', 'Tipo de documento', 'Número de documento', 'Fecha de nacimiento', 'Edad', 'Género', 'Departamento', 'Ciudad',
  'Zona', 'Teléfono', 'Celular', 'Estado civil', 'Entidad de salud', 'Estrato', 'Peso (kg)', 'Altura (m)', 'Médico remitente', 'Especialidad',
  'Diagnóstico clínico', 'Programa', 'Valor cápita', 'Observaciones'];
const KEYS = ['nombre', 'apellido', 'tipo_documento', 'documento', 'fecha_nacimiento', 'edad', 'genero', 'departamento', 'ciudad', 'zona', 'telefono',
  'celular', 'estado_civil', 'entidad_salud', 'estrato', 'peso', 'altura', 'medico_remitente', 'especialidad', 'diagnostico_clinico', 'programa',
  'valor_capita', 'nota'];

/** The HTML of row `line` of the preview's table. */
const rowHtml = (html: string, line: number) => new RegExp(`<tr id="fila-${line}" data-import-line="${line}"[\\s\\S]*?</tr>`).exec(html)?.[0] ?? '';

describe('an import preview that explains itself', () => {
  const good = doc();
  const bad = doc();
  let preview = '';

  test('a CSV with a formula in its unused «Edad» column is previewed, the column ignored with a notice', async () => {
    const file = csvFile(HEADER, [
      patientRow({ nombre: 'Rosa', apellido: 'Válida', documento: good, fecha_nacimiento: '14/03/1975', edad: '=AÑO(HOY())-1975', valor_capita: '259.783', nota: 'ok' }),
      patientRow({ nombre: 'Pedro', apellido: 'Errado', documento: bad, fecha_nacimiento: '02/07/1968', edad: '=AÑO(HOY())-1968', valor_capita: 'doscientos', nota: 'revisar' }),
    ], { keys: KEYS });
    const res = await uploadFile(ctx, client, 'semana.csv', file);
    assert.equal(res.status, 200, text(res.body).slice(0, 300));
    preview = res.body;
    assert.equal(countIn(preview, 'crear'), 1);
    assert.equal(countIn(preview, 'omitir'), 1);
    const t = text(preview);
    assert.match(t, /Columnas que no se importan \(se ignoran\): «Edad», «Observaciones»\. La columna «Edad» tiene fórmulas: no se leen, así que no impiden la importación\./);
  });

  test('every problem is listed and linked to its row, and the row says why in its result cell', async () => {
    const list = /<section class="card import-problems"[\s\S]*?<\/section>/.exec(preview)?.[0] ?? '';
    assert.match(decodeEntities(list), /<li data-problem-line="3" data-import-status="omitir"><a href="#fila-3">Fila 3<\/a> · Valor cápita: [^<]+<\/li>/);
    const row = decodeEntities(rowHtml(preview, 3));
    assert.match(row, /<td data-label="Resultado" class="import-result"><span class="import-status import-omitir">Se omitirá<\/span><ul class="import-notes"><li class="error">Valor cápita: /);
    // The filter: a checkbox that leaves only the rows with problems.
    assert.match(preview, /<input type="checkbox" id="solo-problemas"[^>]*>\s*Mostrar solo las filas con problemas/);
  });

  test('values and dates as the file had them, under its own headings, each cell labelled for the phone', async () => {
    const thead = /<thead>[\s\S]*?<\/thead>/.exec(preview)![0];
    assert.match(decodeEntities(thead), /<th scope="col">Fecha de nacimiento<\/th><th scope="col">Género<\/th>/);
    assert.doesNotMatch(thead, /fecha_nacimiento|valor_capita/);
    const row = decodeEntities(rowHtml(preview, 2));
    assert.match(row, /data-field="fecha_nacimiento" data-label="Fecha de nacimiento">14\/03\/1975</);
    assert.match(row, /data-field="valor_capita" data-label="Valor cápita">259\.783</);
    // Every cell of every row carries its column's name (the phone's cards show it beside the value).
    for (const line of [2, 3]) {
      const cells = [...rowHtml(preview, line).matchAll(/<(td|th)\b[^>]*>/g)].map((m) => m[0]);
      assert.equal(cells.length, 2 + 21);
      assert.ok(cells.every((c) => /data-label="[^"]+"/.test(c)), cells.find((c) => !/data-label=/.test(c)));
    }
  });

  test('after confirming, the rows left out download as a CSV with «motivo», fixed and imported again', async () => {
    const done = await client.post('/patients/import/confirm/', confirmFields(preview));
    assert.equal(done.status, 302);
    assert.equal(done.location, '/patients/import/#filas-omitidas');
    const page = await client.follow(done);
    assert.match(messagesIn(page.body)[0]!.text, /1 paciente creado, 1 fila omitida\. Descargue abajo las filas omitidas/);
    assert.ok(await byDocumento(good));
    assert.equal(await byDocumento(bad), undefined);
    const link = /<a href="(\/patients\/import\/omitidas\/\d+\/)" download="filas-omitidas-semana\.csv">Descargar la fila omitida de «semana\.csv» \(CSV\)<\/a>/.exec(decodeEntities(page.body));
    assert.ok(link, 'the report is offered on the import page');

    const csv = await client.get(link[1]!);
    assert.equal(csv.status, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.match(String(csv.headers['content-disposition']), /filas-omitidas-semana\.csv/);
    assert.ok(csv.body.startsWith('\uFEFF'));
    const lines = csv.body.slice(1).split('\r\n').filter((l) => l !== '');
    // The file's own columns that were read, then «motivo»; the row as the file had it (its date dd/mm/aaaa).
    assert.equal(lines[0], [...HEADER.filter((h) => h !== 'Edad' && h !== 'Observaciones'), 'motivo'].join(';'));
    assert.equal(lines.length, 2);
    const cells = lines[1]!.split(';');
    assert.equal(cells[3], bad);
    assert.equal(cells[4], '02/07/1968');
    assert.equal(cells[20], 'doscientos');
    assert.match(cells[21]!, /^Valor cápita: /);

    // Another person never gets it.
    assert.equal((await other.get(link[1]!)).status, 404);

    // Fixed in place and uploaded again: the «motivo» column is ignored, the row is created.
    const fixed = Buffer.from(csv.body.replace('doscientos', '250.000'), 'utf8');
    const again = await uploadFile(ctx, client, 'semana-corregida.csv', fixed);
    assert.equal(again.status, 200, text(again.body).slice(0, 300));
    assert.equal(countIn(again.body, 'crear'), 1);
    assert.match(text(again.body), /«motivo»/);
    const ok = await client.post('/patients/import/confirm/', confirmFields(again.body));
    assert.equal(ok.location, '/patients/');
    assert.equal((await byDocumento(bad))?.valor_capita, 25000000);
  });

  test('an .xlsx: a formula in an ignored column is ignored, in a column the import reads it is refused with its cell', async () => {
    const header = ['nombre', 'apellido', 'tipo_documento', 'documento', 'fecha_nacimiento', 'Edad', 'genero', 'departamento', 'ciudad', 'zona',
      'telefono', 'celular', 'estado_civil', 'entidad_salud', 'estrato', 'medico_remitente', 'especialidad', 'diagnostico_clinico', 'programa'];
    const cells = (documento: string, edad: string | { formula: string }, estrato: string | { formula: string }) => [
      'Luz', 'Libro', 'CC', documento, new Date(Date.UTC(1971, 4, 6)), edad, 'F', 'SANTANDER', 'BUCARAMANGA', 'URBANA', '6076000000', '3001112233',
      'CASADO', 'ENTITY_A', estrato, 'Dra. Ortiz', 'Neumología', 'G47.3', 'PROGRAMA AOS'];
    const okFile = await xlsxFile(header, [cells(doc(), { formula: 'YEAR(TODAY())-1971' }, '3')]);
    const res = await uploadFile(ctx, client, 'libro.xlsx', okFile);
    assert.equal(res.status, 200, text(res.body).slice(0, 300));
    assert.equal(countIn(res.body, 'crear'), 1);
    assert.match(text(res.body), /La columna «Edad» tiene fórmulas/);
    // An .xlsx date cell reads as a Spanish-locale Excel shows it.
    assert.match(decodeEntities(rowHtml(res.body, 2)), /data-label="fecha_nacimiento">06\/05\/1971</);
    const badFile = await xlsxFile(header, [cells(doc(), '55', { formula: '1+2' })]);
    const refused = await uploadFile(ctx, client, 'libro2.xlsx', badFile);
    assert.equal(refused.status, 400);
    assert.match(text(refused.body), /La celda O2 contiene una fórmula/);
  });
});
