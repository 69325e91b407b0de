// npm run reliability:import -- [--engine sqlite|postgres] [--rows N]
//
// Spreadsheet imports against the real server process (the bundle `npm start` runs, with its 128 MB heap): a CSV
// and an .xlsx of N valid patients (default 20,000, the most a file may hold), each previewed and confirmed while
// /healthz is asked every 50 ms and the server's RSS is read as often. Prints the preview and confirm times, the
// worst /healthz latency and the peak RSS growth; exits 1 when a target is missed (preview ≤ 10 s, worst /healthz
// ≤ 100 ms, RSS growth ≤ 150 MB) or an import does not create every row. Decisions 0057 and 0058.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { IMPORT_FIELDS } from '../../src/imports/import.rules.js';
import { csvFile, importOutcome, multipartBody } from '../imports/import-helpers.js';
import { patientCells, patientsXlsx } from '../imports/import-files.js';
import { Client } from './lib/client.js';
import { createHarnessDatabase, createHarnessUser, say, startServer } from './lib/server.js';

const { values } = parseArgs({ options: { engine: { type: 'string', default: 'sqlite' }, rows: { type: 'string', default: '20000' } }, strict: true });
const engine = values.engine === 'postgres' || values.engine === 'pg' ? 'postgres' : 'sqlite';
const rows = Number(values.rows);
if (!(rows >= 1 && rows <= 20_000)) {
  console.error('Uso: npm run reliability:import -- [--engine sqlite|postgres] [--rows N ≤ 20000]');
  process.exit(2);
}
const TARGET = { previewMs: 10_000, healthzMs: 100, rssMb: 150 } as const;

/**
 * /healthz every 50 ms and the server's RSS, from a thread of their own: the harness's thread builds requests and
 * reads answers, and a probe waiting behind it would measure the harness, not the server. A probe that waits holds
 * the next one back, so a stall shows as long as it is. `take()` returns the worst latency since the last take.
 */
function startProbe(baseUrl: string, pid: number) {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { readFileSync } = require('node:fs');
    const rss = () => Number(/VmRSS:\\s+(\\d+) kB/.exec(readFileSync('/proc/' + workerData.pid + '/status', 'utf8'))[1]) / 1024;
    let worst = 0, probes = 0, failures = 0, peak = rss(), running = true, over = 0, all = [];
    parentPort.on('message', (m) => {
      if (m === 'stop') running = false;
      const sorted = all.sort((a, b) => a - b);
      const p99 = sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] : 0;
      parentPort.postMessage({ worst, probes, failures, peak, over, count: all.length, p99 });
      worst = 0; over = 0; all = [];
    });
    (async () => {
      while (running) {
        const started = performance.now();
        try {
          const res = await fetch(workerData.url, { signal: AbortSignal.timeout(60000) });
          await res.text();
          if (res.status !== 200) failures++;
        } catch { failures++; }
        const ms = performance.now() - started;
        probes++;
        worst = Math.max(worst, ms);
        all.push(ms);
        if (ms > 100) over++;
        try { peak = Math.max(peak, rss()); } catch {}
        await new Promise((r) => setTimeout(r, Math.max(0, 50 - ms)));
      }
    })();`;
  const worker = new Worker(code, { eval: true, workerData: { url: `${baseUrl}/healthz`, pid } });
  const ask = (m: string) => new Promise<{ worst: number; probes: number; failures: number; peak: number; over: number; count: number; p99: number }>((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(m);
  });
  return { take: () => ask('take'), stop: async () => {
    const last = await ask('stop');
    await worker.terminate();
    return last;
  } };
}

const rssOf = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

// The files first: building them is the harness's work, not the server's.
const files = {
  csv: csvFile([...IMPORT_FIELDS], patientCells(rows, '81').cells, { encoding: 'utf8' }),
  xlsx: patientsXlsx(rows, '82', rows, ' Segunda'),
};
const database = await createHarnessDatabase(engine);
await createHarnessUser(database, 'importa', 'clave-de-la-prueba-de-importacion');
// Production settings: the audit writer's thread runs beside the server, as it does in a clinic (decision 0052).
const server = await startServer(database.url, { APP_ENV: 'production', ALLOWED_HOSTS: '127.0.0.1' });
const pid = server.child.pid!;
const problems: string[] = [];
try {
  const client = Client.http(server.baseUrl, 600_000);
  await client.login('importa', 'clave-de-la-prueba-de-importacion');
  await client.get('/patients/import/');
  const baseRss = rssOf(pid);
  const probe = startProbe(server.baseUrl, pid);
  let worst = 0;
  const importOnce = async (kind: 'csv' | 'xlsx', data: Buffer) => {
    const { payload, contentType } = multipartBody({ csrfmiddlewaretoken: await client.token() }, { name: `pacientes-${kind}.${kind}`, data });
    await probe.take();
    let started = performance.now();
    const preview = await client.postRaw('/patients/import/', payload, contentType);
    const previewMs = performance.now() - started;
    const afterPreview = await probe.take();
    const previewWorst = afterPreview.worst;
    const crear = Number(/data-count="crear">([\d.]+)</.exec(preview.body)?.[1]?.replace(/\./g, '') ?? NaN);
    const id = /name="upload_id" value="(\d+)"/.exec(preview.body)?.[1];
    const digest = /name="digest" value="([0-9a-f]+)"/.exec(preview.body)?.[1];
    if (preview.status !== 200 || !id || !digest) throw new Error(`${kind} preview failed: ${preview.status} ${preview.body.replace(/<[^>]+>/g, ' ').slice(0, 400)}`);
    started = performance.now();
    const done = await client.post('/patients/import/confirm/', { upload_id: id, digest });
    // Past its wait the confirm goes on in the background (decision 0135): the import page gives its outcome.
    const message = await importOutcome(done.flashed.map((m) => m.text).join(' '), async (url) => (await client.get(url)).body);
    const confirmMs = performance.now() - started;
    const afterConfirm = await probe.take();
    const confirmWorst = afterConfirm.worst;
    worst = Math.max(worst, previewWorst, confirmWorst);
    const spread = (p: typeof afterPreview) => `worst /healthz ${p.worst.toFixed(0)} ms, p99 ${p.p99.toFixed(0)} ms, ${p.over} of ${p.count} over 100 ms`;
    say(`${kind}: ${(data.length / 1024 / 1024).toFixed(1)} MB, ${rows.toLocaleString('es-CO')} rows; preview ${(previewMs / 1000).toFixed(2)} s (${spread(afterPreview)}), ` +
      `confirm ${(confirmMs / 1000).toFixed(2)} s (${spread(afterConfirm)}); peak RSS ${afterPreview.peak.toFixed(0)} MB after the preview, ` +
      `${afterConfirm.peak.toFixed(0)} MB after the confirm: ${message}`);
    if (crear !== rows) problems.push(`${kind}: the preview would create ${crear} of ${rows} rows`);
    if (!message.includes(`${rows.toLocaleString('es-CO')} pacientes creados`)) problems.push(`${kind}: the confirm said «${message}»`);
    if (previewMs > TARGET.previewMs) problems.push(`${kind}: preview ${(previewMs / 1000).toFixed(2)} s > ${TARGET.previewMs / 1000} s`);
  };

  await importOnce('csv', files.csv);
  await importOnce('xlsx', files.xlsx);
  const { probes, failures, peak: peakRss } = await probe.stop();
  const growth = peakRss - baseRss;
  say(`engine ${engine}: ${probes} /healthz probes, ${failures} failed, worst ${worst.toFixed(0)} ms (target ≤ ${TARGET.healthzMs}); ` +
    `RSS ${baseRss.toFixed(0)} → peak ${peakRss.toFixed(0)} MB, growth ${growth.toFixed(0)} MB (target ≤ ${TARGET.rssMb})`);
  if (failures > 0) problems.push(`${failures} /healthz probes failed`);
  if (worst > TARGET.healthzMs) problems.push(`worst /healthz ${worst.toFixed(0)} ms > ${TARGET.healthzMs} ms`);
  if (growth > TARGET.rssMb) problems.push(`RSS growth ${growth.toFixed(0)} MB > ${TARGET.rssMb} MB`);
  if (server.child.exitCode !== null) problems.push(`the server exited (${server.child.exitCode})`);
} catch (err) {
  problems.push(String(err));
} finally {
  await server.kill('SIGTERM');
  await database.drop();
}
if (problems.length > 0) {
  say(`FAILED:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
say('ok');
