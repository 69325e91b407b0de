// npm run bench:import-preview [-- --database URL] [--rows N]
//
// Times the spreadsheet import's preview (POST /patients/import/: multipart parse, reading the file and every row
// through the create form's validation in the import's worker thread, the duplicate lookups against the
// database, storing the analysis, the page) for a file of N rows (default 10,000), as CSV and as XLSX, against
// the bench database (100,000 patients). In process (app.inject), production settings, three runs each: the
// figure is the median. The server's own event loop and memory under an import: npm run reliability:import.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import ExcelJS from 'exceljs';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { IMPORT_FIELDS } from '../src/imports/import.rules.js';
import { systemClock } from '../src/shared/clock.js';
import { multipartBody } from '../test/imports/import-helpers.js';
import { BENCH_PASSWORD, BENCH_USERNAME, databaseUrlFrom, displayUrl, formatInt } from './common.js';
import { intBetween, lugar, personName, rng } from './synthetic.js';

const { values } = parseArgs({ options: { database: { type: 'string' }, rows: { type: 'string' } }, strict: true });
const url = databaseUrlFrom(values.database);
const ROWS = Number(values.rows ?? 10_000);

/** N synthetic rows, each valid, one in twenty with an error (a genero outside the list). */
function rows(n: number): string[][] {
  const r = rng(17);
  return Array.from({ length: n }, (_, i) => {
    const genero = r() < 0.5 ? 'F' : 'M';
    const name = personName(r, genero);
    const place = lugar(r);
    // A cédula of digits only (decision 0030) starting with 4, which neither the bench data nor its creates use.
    const d = `4${String(i).padStart(8, '0')}`;
    const birth = `${intBetween(r, 1935, 2005)}-${String(intBetween(r, 1, 12)).padStart(2, '0')}-${String(intBetween(r, 1, 28)).padStart(2, '0')}`;
    const v: Record<string, string> = {
      nombre: name.nombre, apellido: name.apellido, tipo_documento: 'CC', documento: d, fecha_nacimiento: birth, genero: i % 20 === 0 ? 'X' : genero,
      departamento: place.departamento, ciudad: place.ciudad, zona: 'URBANA', telefono: '6076000000', celular: '3001112233', estado_civil: 'CASADO',
      entidad_salud: 'ENTITY_A', estrato: String(intBetween(r, 1, 6)), peso: '72,5', altura: '1,68', perimetro_abdominal: '', cuello: '',
      medico_remitente: 'Dra. Ortiz', especialidad: 'Neumología', diagnostico_clinico: 'G47.3', programa: 'PROGRAMA AOS', valor_capita: '',
      fecha_inicio_programa: '', estado: '',
    };
    return IMPORT_FIELDS.map((f) => v[f] ?? '');
  });
}

function csv(data: string[][]): Buffer {
  const q = (s: string) => (/[;"\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  return Buffer.from(`\uFEFF${[[...IMPORT_FIELDS], ...data].map((r) => r.map(q).join(';')).join('\r\n')}\r\n`, 'utf8');
}

async function xlsx(data: string[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Pacientes');
  ws.addRow([...IMPORT_FIELDS]);
  for (const r of data) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const handle = openDatabase(url);
await migrateToLatest(handle.db);
const config = loadConfig({ ...process.env, APP_ENV: 'production', SIGNING_SECRET: 'b'.repeat(40), ALLOWED_HOSTS: 'localhost', DATABASE_URL: url }, mkdtempSync(path.join(tmpdir(), 'somno-bench-')));
const app = await buildApp({ config, db: handle.db, engine: handle.engine, clock: systemClock, logger: false, auditViewFlushMs: 0 });
await app.ready();
try {
  const cookies = new Map<string, string>();
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const remember = (res: { cookies: { name: string; value: string }[] }) => res.cookies.forEach((c) => cookies.set(c.name, c.value));
  const tokenOf = (html: string) => /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html)![1]!;
  const headers = (extra: Record<string, string> = {}) => ({ host: 'localhost', cookie: cookieHeader(), ...extra });
  let page = await app.inject({ method: 'GET', url: '/users/login/', headers: headers() });
  remember(page);
  const login = await app.inject({
    method: 'POST', url: '/users/login/', headers: headers({ 'content-type': 'application/x-www-form-urlencoded' }),
    payload: new URLSearchParams({ username: BENCH_USERNAME, password: BENCH_PASSWORD, csrfmiddlewaretoken: tokenOf(page.body) }).toString(),
  });
  remember(login);
  if (login.statusCode !== 302) throw new Error(`login failed: ${login.statusCode}`);
  page = await app.inject({ method: 'GET', url: '/patients/import/', headers: headers() });
  remember(page);
  const token = tokenOf(page.body);
  const data = rows(ROWS);
  const files = { csv: csv(data), xlsx: await xlsx(data) };
  console.log(`Import preview of ${formatInt(ROWS)} rows against ${displayUrl(url)} (${handle.engine}); median of 3 runs`);
  for (const kind of ['csv', 'xlsx'] as const) {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { payload, contentType } = multipartBody({ csrfmiddlewaretoken: token }, { name: `bench.${kind}`, data: files[kind] });
      const started = performance.now();
      const res = await app.inject({ method: 'POST', url: '/patients/import/', headers: headers({ 'content-type': contentType }), payload });
      times.push(performance.now() - started);
      if (res.statusCode !== 200 || !res.body.includes('data-import-preview')) throw new Error(`preview failed: ${res.statusCode} ${res.body.slice(0, 300)}`);
    }
    times.sort((a, b) => a - b);
    console.log(`  ${kind}: ${(files[kind].length / 1024 / 1024).toFixed(1)} MB, median ${(times[1]! / 1000).toFixed(2)} s (runs: ${times.map((t) => (t / 1000).toFixed(2)).join(', ')} s)`);
  }
} finally {
  await handle.db.deleteFrom('patient_import_uploads').where('file_name', 'in', ['bench.csv', 'bench.xlsx']).execute();
  await app.close();
  await handle.close();
}
