// npm run reliability:backup -- [ROUNDS]
// `npm run backup` run ROUNDS times (default RELIABILITY_ROUNDS or 5) against the real server under write load:
// every copy passes integrity_check and foreign_key_check and holds every create acknowledged before it started;
// then a second server is started on the last copy (the restore of docs/reliability.md) and reads it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkCopy, runCli } from './lib/backup.js';
import { Client } from './lib/client.js';
import { createHarnessDatabase, createHarnessUser, say, startServer } from './lib/server.js';
import { patientForm, uniqueDocumento } from './lib/world.js';

const rounds = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? process.env.RELIABILITY_ROUNDS ?? 5);
const dir = mkdtempSync(path.join(tmpdir(), 'somno-backups-'));
const database = await createHarnessDatabase('sqlite');
await createHarnessUser(database, 'respaldo', 'clave-de-la-prueba-de-respaldo');
const server = await startServer(database.url);
const problems: string[] = [];
const acknowledged: string[] = [];
let stop = false;
say(`backup: ${rounds} backups with npm run backup while 4 writers create patients`);
try {
  const login = Client.http(server.baseUrl);
  await login.login('respaldo', 'clave-de-la-prueba-de-respaldo');
  const writer = async () => {
    const c = Client.http(server.baseUrl);
    for (const [k, v] of login.cookies) c.cookies.set(k, v);
    c.csrfToken = login.csrfToken;
    while (!stop) {
      const documento = uniqueDocumento('Q');
      const res = await c.post('/patients/create/', patientForm({ documento, apellido: 'Respaldo' }));
      if (res.status === 302) acknowledged.push(documento.toUpperCase());
    }
  };
  const writers = [writer(), writer(), writer(), writer()];
  let last = '';
  for (let i = 1; i <= rounds; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const file = path.join(dir, `copia-${i}.sqlite`);
    const before = [...acknowledged];
    const t0 = Date.now();
    const res = await runCli('backup.ts', [file], database.url);
    if (res.code !== 0) {
      problems.push(`backup ${i}: exit ${res.code}: ${res.out}`);
      continue;
    }
    const check = checkCopy(file);
    const missing = before.filter((d) => !check.documentos.has(d));
    if (check.integrity !== 'ok') problems.push(`backup ${i}: integrity_check ${check.integrity}`);
    if (check.foreignKeys > 0) problems.push(`backup ${i}: ${check.foreignKeys} foreign key problems`);
    if (missing.length > 0) problems.push(`backup ${i}: ${missing.length} acknowledged creates missing`);
    say(`backup ${i}/${rounds}: ${((Date.now() - t0) / 1000).toFixed(1)} s, ${check.patients} patients (${before.length} acknowledged before it started, ${missing.length} missing), integrity_check ${check.integrity}`);
    last = file;
  }
  stop = true;
  await Promise.all(writers);
  if (last) {
    const restored = await startServer(`sqlite:${last}`);
    try {
      const reader = Client.http(restored.baseUrl);
      await reader.login('respaldo', 'clave-de-la-prueba-de-respaldo');
      const page = await reader.get('/patients/?query_search=respaldo');
      const shown = /data-patient-id="\d+"/.test(page.body);
      if (page.status !== 200 || !shown) problems.push(`restore: the server on the copy answered ${page.status} and listed ${shown ? 'patients' : 'none'}`);
      else say(`restore: a server started on ${path.basename(last)} logged in and listed its patients`);
    } finally {
      await restored.kill('SIGTERM');
    }
  }
} catch (err) {
  problems.push(err instanceof Error ? err.message : String(err));
} finally {
  stop = true;
  await server.kill('SIGTERM');
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
if (problems.length > 0) {
  say(`backup: FAILED\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
say(`backup: OK (${acknowledged.length} creates acknowledged during the run)`);
