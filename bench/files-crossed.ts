// npx tsx bench/files-crossed.ts
//
// The source files whose functions run while the server answers one request, by V8's precise coverage (call
// counts reset just before the request): a patient's record not yet kept, the same kept, and the creation form
// posted. In-process on a test database (SQLite, or PostgreSQL with TEST_PG_URL); every module is warmed up first,
// so lazily loaded code is not counted as the request's. docs/architecture.md lists what it printed.

import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestContext, loggedInClient } from '../test/helpers.js';
import { patientFormBody } from './scenarios.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const ctx = await createTestContext();
const { client } = await loggedInClient(ctx);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

let created = 0;
/** Posts the creation form of a new patient (its page fetched before, for the token). */
async function postCreation(): Promise<void> {
  created++;
  const body = patientFormBody(client.csrfToken!, String(800_000_000 + created), `1970-01-${String(1 + (created % 28)).padStart(2, '0')}`);
  const res = await client.post('/patients/create/', Object.fromEntries(new URLSearchParams(body)));
  if (res.status !== 302) throw new Error(`the creation answered ${res.status}`);
}

/** A new patient's id. */
async function createPatient(): Promise<number> {
  await client.get('/patients/create/');
  await postCreation();
  const row = await ctx.db.selectFrom('patients').select((eb) => eb.fn.max('id').as('id')).executeTakeFirstOrThrow();
  return Number(row.id);
}

async function filesCrossedBy(label: string, request: () => Promise<unknown>): Promise<void> {
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  await request();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = result
    .filter((script) => script.url.includes('/src/') && script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0))
    .map((script) => path.relative(ROOT, fileURLToPath(script.url)))
    .sort();
  console.log(`${label}: ${files.length} files`);
  for (const file of files) console.log(`  ${file}`);
}

for (let i = 0; i < 3; i++) await client.get(`/patients/${await createPatient()}/`);
const patientId = await createPatient();
await filesCrossedBy('GET /patients/<id>/ (not kept)', () => client.get(`/patients/${patientId}/`));
await filesCrossedBy('GET /patients/<id>/ (kept)', () => client.get(`/patients/${patientId}/`));
await client.get('/patients/create/');
await filesCrossedBy('POST /patients/create/', () => postCreation());
session.disconnect();
await ctx.close();
