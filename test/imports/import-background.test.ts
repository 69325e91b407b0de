// A confirm that takes longer than its wait goes on in the background (decision 0135): the person is told so at
// once, the pending list shows its progress, the import page gives its outcome once when it has ended, and a second
// confirm of the same upload meanwhile neither writes anyone twice nor starts a second import.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { IMPORT_FIELDS } from '../../src/imports/import.rules.js';
import { createTestContext, decodeEntities, loggedInClient, messagesIn, type TestClient, type TestContext } from '../helpers.js';
import { confirmFields, csvFile, importOutcome, patientRow, uploadFile } from './import-helpers.js';

let ctx: TestContext;
let client: TestClient;
const ROWS = 300;

before(async () => {
  // No wait: every confirm answers at once and its import goes on in the background.
  ctx = await createTestContext({ importConfirmWaitMs: 0 });
  ({ client } = await loggedInClient(ctx));
});
after(async () => ctx?.close());

const text = (html: string) => decodeEntities(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
const documentos = Array.from({ length: ROWS }, (_, i) => `7${String(process.pid % 10000).padStart(4, '0')}${String(i).padStart(4, '0')}`);

test('a confirm past its wait: told at once, the progress listed, the outcome given once at the end, every row written once', async () => {
  // Each person born another day, so no two rows are possible duplicates of each other.
  const born = (i: number) => new Date(Date.UTC(1950, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
  const file = csvFile(IMPORT_FIELDS, documentos.map((documento, i) => patientRow({ documento, fecha_nacimiento: born(i) })));
  const preview = await uploadFile(ctx, client, 'grande.csv', file);
  assert.equal(preview.status, 200, text(preview.body).slice(0, 400));
  const fields = confirmFields(preview.body);

  const first = await client.post('/patients/import/confirm/', fields);
  assert.equal(first.status, 302);
  assert.equal(first.location, '/patients/import/');
  // Confirmed again at once (a second tab, an impatient click): never a second import of the same rows.
  const second = await client.post('/patients/import/confirm/', fields);
  assert.equal(second.location, '/patients/import/');

  const page = await client.follow(first);
  const said = messagesIn(page.body).map((m) => m.text).join(' ');
  assert.match(said, /La importación de «grande\.csv» sigue en el servidor/);
  // While it runs, its row says how far it is and offers no second confirm; once done, the row is gone.
  const row = /<tr data-pending-upload="\d+">[\s\S]*?<\/tr>/.exec(page.body)?.[0];
  if (row !== undefined) {
    assert.match(text(row), /Importándose ahora: [\d.]+ de 300 pacientes creados|Importación a medias|Sin confirmar/);
    if (/Importándose ahora/.test(row)) assert.doesNotMatch(row, /Continuar la importación|Descartar/);
  }

  const outcome = await importOutcome(said, async (url) => (await client.get(url)).body);
  assert.equal(outcome, 'Importación de «grande.csv»: 300 pacientes creados, 0 filas omitidas.');
  const again = await client.get('/patients/import/');
  assert.doesNotMatch(text(again.body), /Importación de «grande\.csv»: 300/, 'the outcome is given once');
  assert.doesNotMatch(again.body, /data-pending-upload=/, 'nothing left pending');

  const written = await ctx.db.selectFrom('patients').select('documento').where('documento', 'in', documentos).execute();
  assert.equal(written.length, ROWS);
  const entries = await ctx.db.selectFrom('audit_log').select('changes').where('action', '=', 'patient.import').execute();
  assert.equal(entries.filter((e) => (e.changes ?? '').includes('grande.csv')).length, 1, 'one import entry');
});
