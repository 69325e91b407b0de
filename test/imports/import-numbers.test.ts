// The spreadsheet import reads numbers as Colombians write them (issue 29, decision 0069): the same parser as the
// patient form, through validatePatientForm.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IMPORT_FIELDS } from '../../src/imports/import.rules.js';
import { createTestContext, decodeEntities, loggedInClient, type TestClient, type TestContext } from '../helpers.js';
import { confirmFields, countIn, csvFile, patientRow, uploadFile, xlsxFile } from './import-helpers.js';

let ctx: TestContext;
let client: TestClient;
let seq = 0;
const doc = () => `7${String(process.pid % 100000).padStart(5, '0')}${String(++seq).padStart(3, '0')}`;
const byDocumento = (documento: string) => ctx.db.selectFrom('patients').selectAll().where('documento', '=', documento).executeTakeFirst();
const text = (html: string) => decodeEntities(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');

before(async () => {
  ctx = await createTestContext();
  ({ client } = await loggedInClient(ctx));
});
after(async () => ctx?.close());

describe('import: es-CO numbers', () => {
  test('CSV rows with valor cápita «259.783» and «259.783,50» and peso «72.500» are created; «1.234,5» kg is skipped with its reading', async () => {
    const [d1, d2, d3] = [doc(), doc(), doc()];
    const file = csvFile([...IMPORT_FIELDS], [
      patientRow({ documento: d1, nombre: 'Cápita', apellido: 'Con Puntos', valor_capita: '259.783', peso: '72.500' }),
      patientRow({ documento: d2, nombre: 'Cápita', apellido: 'Con Centavos', valor_capita: '$ 259.783,50', altura: '1.72' }),
      patientRow({ documento: d3, nombre: 'Peso', apellido: 'Imposible', peso: '1.234,5' }),
    ]);
    const preview = await uploadFile(ctx, client, 'capita.csv', file);
    assert.equal(preview.status, 200, text(preview.body).slice(0, 400));
    assert.equal(countIn(preview.body, 'crear'), 2);
    assert.equal(countIn(preview.body, 'omitir'), 1);
    const bad = /<tr id="fila-[0-9]*" data-import-line="4"[\s\S]*?<\/tr>/.exec(preview.body)![0];
    assert.match(decodeEntities(bad), /El valor máximo es 999,99; «1\.234,5» se leyó como 1234,5\./);
    const done = await client.post('/patients/import/confirm/', confirmFields(preview.body));
    assert.equal(done.status, 302);
    const a = (await byDocumento(d1))!;
    assert.deepEqual([Number(a.valor_capita), a.peso], [25978300, 7250]);
    const b = (await byDocumento(d2))!;
    assert.deepEqual([Number(b.valor_capita), b.altura], [25978350, 172]);
    assert.equal(await byDocumento(d3), undefined);
  });

  test('an .xlsx text cell «259.783» is read as the form reads it', async () => {
    const d = doc();
    const header = [...IMPORT_FIELDS];
    const file = await xlsxFile(header, [header.map((f) => patientRow({ documento: d, nombre: 'Libro', apellido: 'Texto', valor_capita: '259.783' })[f]!)]);
    const preview = await uploadFile(ctx, client, 'libro.xlsx', file);
    assert.equal(countIn(preview.body, 'crear'), 1, text(preview.body).slice(0, 600));
    assert.equal((await client.post('/patients/import/confirm/', confirmFields(preview.body))).status, 302);
    assert.equal(Number((await byDocumento(d))!.valor_capita), 25978300);
  });
});
