// npm run reliability:pg-restart -- [ROUNDS]      (on demand only: it stops the whole PostgreSQL server)
// The app on PostgreSQL under load while the database server is stopped for a few seconds and started again:
// while it is gone every answer is 503 (GET /healthz too), never a 500 and never a dropped connection; when it is
// back the app recovers by itself (no restart) and every acknowledged change is in the database.
//
// Environment: RELIABILITY_PG_URL (administrative URL; default TEST_PG_URL or postgres://postgres@127.0.0.1:5432/postgres),
// RELIABILITY_PG_STOP / RELIABILITY_PG_START (default: pg_ctlcluster 15 main stop -m fast / start),
// RELIABILITY_PG_DOWN_SECONDS (default 3). Never run it while other tests use the same PostgreSQL server.
import { execSync } from 'node:child_process';
import { Client, type Resp } from './lib/client.js';
import { createHarnessDatabase, createHarnessUser, say, startServer } from './lib/server.js';
import { brokenInvariants, patientForm, uniqueDocumento } from './lib/world.js';

const rounds = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? process.env.RELIABILITY_ROUNDS ?? 3);
const adminUrl = process.env.RELIABILITY_PG_URL ?? process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const stopCmd = process.env.RELIABILITY_PG_STOP ?? 'pg_ctlcluster 15 main stop -m fast';
const startCmd = process.env.RELIABILITY_PG_START ?? 'pg_ctlcluster 15 main start';
const downMs = Number(process.env.RELIABILITY_PG_DOWN_SECONDS ?? 3) * 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const database = await createHarnessDatabase('postgres', adminUrl);
await createHarnessUser(database, 'reinicio', 'clave-de-la-prueba-de-reinicio');
const server = await startServer(database.url);
const problems: string[] = [];
const statuses: Record<string, number> = {};
const acknowledged: string[] = [];
let phase: 'up' | 'down' | 'recovering' = 'up';
let stop = false;
const count = (key: string) => (statuses[key] = (statuses[key] ?? 0) + 1);
say(`pg-restart: ${rounds} rounds, database down ${downMs / 1000} s each; stop: ${stopCmd}; start: ${startCmd}`);

try {
  const login = Client.http(server.baseUrl, 20_000);
  await login.login('reinicio', 'clave-de-la-prueba-de-reinicio');
  const worker = async (w: number) => {
    const c = Client.http(server.baseUrl, 20_000);
    for (const [k, v] of login.cookies) c.cookies.set(k, v);
    c.csrfToken = login.csrfToken;
    for (let n = 0; !stop; n++) {
      const documento = uniqueDocumento('P');
      let res: Resp;
      try {
        res = n % 3 === 0 ? await c.post('/patients/create/', patientForm({ documento, apellido: `Reinicio ${w}` })) : await c.get(n % 2 ? '/patients/' : '/dashboard/');
      } catch (err) {
        count(`${phase}:no answer`);
        problems.push(`no answer while the database was ${phase}: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      count(`${phase}:${res.status}`);
      if (res.status >= 500 && res.status !== 503) problems.push(`${res.status} while the database was ${phase}`);
      if (res.status === 302 && res.location === '/patients/') acknowledged.push(documento.toUpperCase());
      if (res.status === 503) await sleep(100);
    }
  };
  const workers = Array.from({ length: 4 }, (_, w) => worker(w));
  for (let round = 1; round <= rounds; round++) {
    await sleep(2000);
    execSync(stopCmd, { stdio: 'inherit' });
    phase = 'down';
    const t0 = Date.now();
    let health503 = 0;
    while (Date.now() - t0 < downMs) {
      const h = await fetch(`${server.baseUrl}/healthz`, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
      if (h?.status === 503) health503++;
      else problems.push(`round ${round}: /healthz answered ${h?.status ?? 'nothing'} while the database was down`);
      await sleep(250);
    }
    execSync(startCmd, { stdio: 'inherit' });
    phase = 'recovering';
    const t1 = Date.now();
    for (;;) {
      const h = await fetch(`${server.baseUrl}/healthz`, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
      if (h?.status === 200) break;
      if (Date.now() - t1 > 60_000) {
        problems.push(`round ${round}: the app did not recover within 60 s`);
        break;
      }
      await sleep(100);
    }
    phase = 'up';
    const page = await login.get('/patients/');
    if (page.status !== 200) problems.push(`round ${round}: /patients/ answered ${page.status} after recovery`);
    say(`pg-restart round ${round}/${rounds}: /healthz answered 503 ${health503} times while down; recovered ${((Date.now() - t1) / 1000).toFixed(1)} s after the start, without restarting the app`);
  }
  await sleep(1000);
  stop = true;
  await Promise.all(workers);
  const h = database.open();
  try {
    const present = new Set((await h.db.selectFrom('patients').select('documento_key').execute()).map((r) => r.documento_key));
    const missing = acknowledged.filter((d) => !present.has(d));
    if (missing.length > 0) problems.push(`${missing.length} acknowledged creates missing: ${missing.slice(0, 5).join(', ')}`);
    problems.push(...(await brokenInvariants(h.db)));
  } finally {
    await h.close();
  }
  say(`pg-restart: answers by phase and status ${JSON.stringify(statuses)}; ${acknowledged.length} acknowledged creates checked`);
} catch (err) {
  problems.push(err instanceof Error ? err.message : String(err));
} finally {
  stop = true;
  if (server.child.exitCode !== null || server.child.signalCode !== null) {
    problems.push(`the app process died (exit ${server.child.exitCode ?? server.child.signalCode}); its last output:\n${server.output().slice(-3000)}`);
  }
  await server.kill('SIGTERM');
  await database.drop().catch(() => undefined);
}
if (problems.length > 0) {
  say(`pg-restart: FAILED\n  ${[...new Set(problems)].slice(0, 20).join('\n  ')}`);
  process.exit(1);
}
say('pg-restart: OK');
