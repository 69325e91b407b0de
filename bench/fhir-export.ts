// npm run bench:fhir-export [-- --database URL]
//
// Times the FHIR NDJSON export (src/fhir/fhir.bulk.ts) of the bench database into a temporary folder and samples
// the process's resident memory every 50 ms: the export must stay flat (a batch of patients in memory at once).

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/connection.js';
import { BULK_RESOURCE_TYPES, exportNdjson } from '../src/fhir/fhir.bulk.js';
import { countRows, databaseUrlFrom, displayUrl, formatInt, seconds } from './common.js';

const { values } = parseArgs({ options: { database: { type: 'string' } }, strict: true });
const url = databaseUrlFrom(values.database);
const handle = openDatabase(url);
const out = mkdtempSync(path.join(tmpdir(), 'somno-fhir-bench-'));
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
try {
  const patients = await countRows(handle.db, 'patients');
  const rssStart = process.memoryUsage.rss();
  let rssPeak = rssStart;
  const samples: number[] = [];
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss();
    samples.push(rss);
    if (rss > rssPeak) rssPeak = rss;
  }, 50);
  const started = performance.now();
  const counts = await exportNdjson(handle.db, out, { timeZone: process.env.TIME_ZONE ?? 'America/Bogota' });
  const elapsed = performance.now() - started;
  clearInterval(timer);
  // Flat memory: the resident size over the second half of the run against the first half.
  const half = Math.floor(samples.length / 2);
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
  const bytes = BULK_RESOURCE_TYPES.reduce((s, t) => s + statSync(path.join(out, `${t}.ndjson`)).size, 0);
  console.log(`FHIR NDJSON export of ${displayUrl(url)} (${handle.engine}), ${formatInt(patients)} patients`);
  console.log(`  ${BULK_RESOURCE_TYPES.map((t) => `${formatInt(counts[t])} ${t}`).join(', ')}; ${mb(bytes)} written`);
  console.log(`  time ${seconds(elapsed)} (${formatInt(Math.round(patients / (elapsed / 1000)))} patients/s)`);
  console.log(`  RSS start ${mb(rssStart)}, peak ${mb(rssPeak)}, mean first half ${mb(avg(samples.slice(0, half)))}, second half ${mb(avg(samples.slice(half)))}`);
} finally {
  rmSync(out, { recursive: true, force: true });
  await handle.close();
}
