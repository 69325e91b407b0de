// npm run reliability:soak -- [SECONDS] [--engine sqlite|postgres] [--concurrency N]
// Mixed read/write load against the real server process: zero errors, RSS at the end within 10 % of RSS after
// warm-up, p99 stable (the last window's p99 within 2× the first window's, or under 250 ms). SECONDS defaults to
// RELIABILITY_SOAK_SECONDS or 600 (CI: 60).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { todayIn } from '../../src/shared/dates.js';
import { Client } from './lib/client.js';
import { createHarnessDatabase, createHarnessUser, percentile, say, startServer } from './lib/server.js';
import { examForm, patientForm, uniqueDocumento } from './lib/world.js';

const { values, positionals } = parseArgs({
  options: { engine: { type: 'string', default: 'sqlite' }, concurrency: { type: 'string', default: '8' } },
  allowPositionals: true,
});
const seconds = Number(positionals[0] ?? process.env.RELIABILITY_SOAK_SECONDS ?? 600);
const concurrency = Number(values.concurrency);
const engine = values.engine === 'postgres' || values.engine === 'pg' ? 'postgres' : 'sqlite';
// The warm-up takes at least 15 s and five windows of latencies follow it: a shorter run would have empty windows.
const MIN_SECONDS = 30;
if (!(seconds >= MIN_SECONDS) || !(concurrency >= 1)) {
  console.error(`Uso: npm run reliability:soak -- [SEGUNDOS ≥ ${MIN_SECONDS}] [--engine sqlite|postgres] [--concurrency N]`);
  process.exit(2);
}

const rssOf = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

/**
 * The bytes of the soak's patients' record pages and clinical views: the pages the server keeps per patient
 * (decision 0049), bounded by their caches. They grow as the patients' timelines do; that growth is data, not a
 * leak, and is taken out of the RSS growth the soak allows.
 */
async function patientPagesBytes(c: Client, ids: readonly number[]): Promise<number> {
  let bytes = 0;
  for (const id of ids) {
    for (const url of [`/patients/${id}/`, `/exams/${id}/`]) bytes += Buffer.byteLength((await c.get(url)).body);
  }
  return bytes;
}

const database = await createHarnessDatabase(engine);
await createHarnessUser(database, 'carga', 'clave-de-la-prueba-de-carga');
const server = await startServer(database.url);
const pid = server.child.pid!;
const problems: string[] = [];
try {
  const login = Client.http(server.baseUrl);
  await login.login('carga', 'clave-de-la-prueba-de-carga');
  const today = todayIn('America/Bogota', new Date());
  // The patients the load reads and writes. Two hundred, so that each one's clinical timeline grows as a busy
  // patient's might (about 60 monitoring records in ten minutes), not without bound (with 20 it reached 600).
  const ids: number[] = [];
  const documentos = new Map<number, string>();
  for (let i = 0; i < 200; i++) {
    const documento = uniqueDocumento('S');
    await login.post('/patients/create/', patientForm({ documento, apellido: `Carga ${i}` }));
    const list = await login.get(`/patients/?query_search=${documento}`);
    const id = /data-patient-id="(\d+)"/.exec(list.body)?.[1];
    if (id) {
      ids.push(Number(id));
      documentos.set(Number(id), documento);
    }
  }
  if (ids.length === 0) throw new Error('could not create the patients the load reads');

  const warmupMs = Math.max(15_000, seconds * 200); // 20 %, at least 15 s: caches and the JIT settle first
  const start = Date.now();
  const end = start + seconds * 1000;
  const windows = 5;
  const windowMs = (end - start - warmupMs) / windows;
  const latencies: number[][] = Array.from({ length: windows }, () => []);
  let requests = 0;
  let errors = 0;
  let writes = 0;
  const errorSamples: string[] = [];
  let rssWarm = NaN;
  // After the warm-up, every patient's pages are read once (so each is kept) before the RSS the end is held to.
  let pagesWarm = null as Promise<number> | null; // set by the sampler: typed wide so the read below is not narrowed to null
  const rssSamples: number[] = [];
  const sampler = setInterval(() => {
    const t = Date.now();
    if (pagesWarm === null && t - start >= warmupMs) {
      pagesWarm = patientPagesBytes(login, ids).then((bytes) => {
        rssWarm = rssOf(pid);
        return bytes;
      });
    }
    if (!Number.isNaN(rssWarm)) rssSamples.push(rssOf(pid));
  }, 1000);

  const worker = async (w: number) => {
    const c = Client.http(server.baseUrl);
    for (const [k, v] of login.cookies) c.cookies.set(k, v);
    c.csrfToken = login.csrfToken;
    let n = 0;
    while (Date.now() < end) {
      const id = ids[(w * 7 + n++) % ids.length]!;
      const r = n % 50 === 0 ? 0 : n % 10 === 1 ? 1 : n % 10 === 2 ? 2 : 3;
      const t0 = performance.now();
      let ok = false;
      let what = '';
      try {
        if (r === 0) {
          what = 'create';
          const res = await c.post('/patients/create/', patientForm({ documento: uniqueDocumento('S'), apellido: `Carga ${w}` }));
          ok = res.status === 302;
          writes++;
        } else if (r === 1) {
          what = 'exam';
          const res = await c.post(`/exams/${id}/monitoreo/`, examForm('monitoreo', today));
          ok = res.status === 302;
          writes++;
        } else if (r === 2) {
          what = 'update';
          const res = await c.post(`/patients/${id}/`, patientForm({ documento: documentos.get(id)!, apellido: 'Carga', telefono: String(3000000000 + n) }));
          ok = res.status === 302;
          writes++;
        } else {
          const pages = ['/patients/', `/patients/?query_search=carga&page=2`, '/patients/follow', '/dashboard/', `/exams/${id}/`, '/exams/', `/patients/${id}/`];
          what = pages[n % pages.length]!;
          const res = await c.get(what);
          ok = res.status === 200;
        }
      } catch (err) {
        what += ` (${err instanceof Error ? err.message : String(err)})`;
      }
      const ms = performance.now() - t0;
      const t = Date.now() - start;
      requests++;
      if (!ok) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(what);
      }
      if (t >= warmupMs) latencies[Math.min(windows - 1, Math.floor((t - warmupMs) / windowMs))]!.push(ms);
    }
  };
  say(`soak: engine ${engine}, ${seconds} s, concurrency ${concurrency}, warm-up ${(warmupMs / 1000).toFixed(0)} s, 22 % writes (patient creates 2 %, updates 10 %, exam records 10 %), reads of lists, searches, follow, dashboard, detail and clinical pages`);
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  clearInterval(sampler);
  const rssEnd = percentile(rssSamples.slice(-5), 50);
  const MB = 1024 * 1024;
  const pagesGrowth = ((await patientPagesBytes(login, ids)) - ((await pagesWarm) ?? 0)) / MB;
  const p99s = latencies.map((l) => percentile(l, 99));
  say(`soak: ${requests} requests (${writes} writes), ${errors} errors${errorSamples.length ? `: ${errorSamples.join('; ')}` : ''}`);
  say(`soak: p50 per window ${latencies.map((l) => percentile(l, 50).toFixed(1)).join(' / ')} ms; p99 per window ${p99s.map((p) => p.toFixed(1)).join(' / ')} ms`);
  const growth = rssEnd - rssWarm - Math.max(0, pagesGrowth);
  say(`soak: RSS after warm-up ${rssWarm.toFixed(1)} MB, at the end ${rssEnd.toFixed(1)} MB (${(((rssEnd - rssWarm) / rssWarm) * 100).toFixed(1)} %), peak ${Math.max(...rssSamples).toFixed(1)} MB`);
  say(`soak: the patients' kept pages grew by ${pagesGrowth.toFixed(1)} MB (their timelines); the rest of the growth: ${growth.toFixed(1)} MB (${((growth / rssWarm) * 100).toFixed(1)} %)`);
  if (errors > 0) problems.push(`${errors} errors`);
  if (!(growth <= rssWarm * 0.1)) problems.push(`RSS grew by more than 10 % beside the kept pages (${rssWarm.toFixed(1)} → ${rssEnd.toFixed(1)} MB, pages +${pagesGrowth.toFixed(1)} MB)`);
  const [first, last] = [p99s[0]!, p99s[windows - 1]!];
  if (!(last <= Math.max(first * 2, 250))) problems.push(`p99 not stable: first window ${first.toFixed(1)} ms, last ${last.toFixed(1)} ms`);
} catch (err) {
  problems.push(err instanceof Error ? err.message : String(err));
} finally {
  await server.kill('SIGTERM');
  await database.drop();
}
if (problems.length > 0) {
  say(`soak: FAILED: ${problems.join('; ')}`);
  process.exit(1);
}
say('soak: OK');
