// The import in the real server process (the bundle `npm start` runs, its heap capped at 128 MB, the import's
// worker thread beside it in dist/): the hostile tester's workbooks are refused and the server lives; files of the
// most rows allowed are previewed and confirmed. On the test engine (TEST_PG_URL for PostgreSQL). Decision 0057.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IMPORT_FIELDS } from '../../src/imports/import.rules.js';
import { ENGINE } from '../helpers.js';
import { Client } from '../reliability/lib/client.js';
import { createHarnessDatabase, createHarnessUser, startServer, type HarnessDatabase, type ServerProcess } from '../reliability/lib/server.js';
import { hugeStringXlsx, manyRowsXlsx, patientCells, patientsXlsx } from './import-files.js';
import { csvFile, importOutcome, multipartBody } from './import-helpers.js';

let database: HarnessDatabase;
let server: ServerProcess;
let client: Client;

before(async () => {
  database = await createHarnessDatabase(ENGINE);
  await createHarnessUser(database, 'importa', 'clave-de-la-prueba-de-importacion');
  server = await startServer(database.url);
  client = Client.http(server.baseUrl, 300_000);
  await client.login('importa', 'clave-de-la-prueba-de-importacion');
});
after(async () => {
  await server?.kill('SIGTERM');
  await database?.drop();
});

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&[a-z#0-9]+;/g, ' ').replace(/\s+/g, ' ');
const count = (html: string, what: string) => Number(new RegExp(`data-count="${what}">([\\d.]+)<`).exec(html)?.[1]?.replace(/\./g, '') ?? NaN);

async function upload(name: string, data: Buffer) {
  const { payload, contentType } = multipartBody({ csrfmiddlewaretoken: await client.token() }, { name, data });
  return client.postRaw('/patients/import/', payload, contentType);
}

async function alive(): Promise<void> {
  const res = await fetch(`${server.baseUrl}/healthz`);
  assert.equal(res.status, 200);
  assert.equal(server.child.exitCode, null, server.output().slice(-2000));
}

describe('the import in the server process, its heap capped at 128 MB', () => {
  test('the crafted workbooks (100,000 rows in 0.5 MB, a 400 MB shared string in 2 MB, the same declaring 1 KB) are refused and the server lives', async () => {
    const rows = await upload('filas.xlsx', manyRowsXlsx(100_000));
    assert.equal(rows.status, 400);
    assert.match(text(rows.body), /más de 20\.000 filas de datos/);
    await alive();
    const bomb = await upload('bomba.xlsx', await hugeStringXlsx(400 * 1024 * 1024));
    assert.equal(bomb.status, 400);
    assert.match(text(bomb.body), /ocupa demasiado al descomprimirlo/);
    await alive();
    const liar = await upload('miente.xlsx', await hugeStringXlsx(400 * 1024 * 1024, 1024));
    assert.equal(liar.status, 400);
    assert.match(text(liar.body), /dañado/);
    await alive();
  });

  test('a 20,000-row CSV and a 20,000-row .xlsx are previewed and confirmed', async () => {
    // 20,000 rows each, 500 people each: every row is read and analysed, the 19,500 repeated documentos are
    // omitted, so that the confirm writes 500 patients a file (npm run reliability:import writes all 20,000).
    const files = [
      { name: 'grande.csv', data: csvFile([...IMPORT_FIELDS], patientCells(20_000, '91', 500).cells, { encoding: 'utf8' }) },
      { name: 'grande.xlsx', data: patientsXlsx(20_000, '92', 500, ' Libro') },
    ];
    for (const file of files) {
      const preview = await upload(file.name, file.data);
      assert.equal(preview.status, 200, text(preview.body).slice(0, 400));
      assert.deepEqual([count(preview.body, 'total'), count(preview.body, 'crear'), count(preview.body, 'omitir')], [20_000, 500, 19_500]);
      const id = /name="upload_id" value="(\d+)"/.exec(preview.body)![1]!;
      const digest = /name="digest" value="([0-9a-f]+)"/.exec(preview.body)![1]!;
      const done = await client.post('/patients/import/confirm/', { upload_id: id, digest });
      const said = done.flashed.map((m) => m.text).join(' ');
      // Rows left out: the import page, where their report waits to be downloaded (also where a confirm that went
      // on in the background sends its person, decision 0135).
      assert.equal(done.location, said.includes('sigue en el servidor') ? '/patients/import/' : '/patients/import/#filas-omitidas');
      const outcome = await importOutcome(said, async (url) => (await client.get(url)).body);
      assert.match(outcome, new RegExp(`Importación de «${file.name}»: 500 pacientes creados, 19\\.500 filas omitidas\\.`));
      await alive();
    }
    assert.doesNotMatch(server.output(), /heap out of memory|FATAL ERROR/);
  });
});
