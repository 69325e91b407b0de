// npm run bench:profile -- [--database URL] [--requests N] [--only a,b] [--statements] [--plans] [--keep-pages] [--concurrency N]   (pages: the names of PAGES below, e.g.
// --only baseline,agenda-day,agenda-day-prof,agenda-week,worklists,worklists-filtered for the agenda's;
// rips-page, rips-file, novedades-csv, worklists, worklists-filtered and create run only when named)
//
// Where an uncached page's time goes (issue 30): the application in this process (kept pages off: every page
// rendered anew, as for a patient nobody opened before), driven by app.inject over random patients and pages of a
// benchmark database. For each page: the statements a request runs, the CPU time a request costs this process,
// the part of it spent inside the database driver's calls (SQLite runs in this thread, so its time is all there;
// PostgreSQL's own work is in its server process, only the client's share is here), and what a logged-in request
// that reads nothing costs (plumbing and session). CPU time, not wall time: it holds on a shared machine.
// Beside each page, the garbage collector's pauses during its requests (decision 0266): how many scavenges and major
// collections, their pause time a request, the longest. `--concurrency N` keeps N requests in flight (the server under
// load holds many at once, and what they hold survives the scavenges); 1 by default.
// `--plans` (PostgreSQL): the named statements PostgreSQL planned anew at each execution (custom plans) while the
// page's requests ran, with one connection in the pool so that every statement is on it (decision 0380).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { databaseUrlFrom, formatInt } from './common.js';
import { fillRipsFacts } from './rips.js';
import { loggedInInject, pagesOf as pagesOfList } from './in-process.js';
import { rng } from './synthetic.js';
import { searchesFrom } from './uncached.js';
import { WORKLIST_KINDS } from './agenda.js';
import { patientFormBody } from './scenarios.js';
import { addDays, todayIn } from '../src/shared/dates.js';

const args = parseArgs({
  options: {
    database: { type: 'string' },
    requests: { type: 'string', default: '400' },
    only: { type: 'string' },
    'keep-pages': { type: 'boolean', default: false },
    statements: { type: 'boolean', default: false },
    plans: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '1' },
  },
}).values;
const url = databaseUrlFrom(args.database);
const N = Number(args.requests);
const CONCURRENCY = Math.max(1, Number(args.concurrency) || 1);
const handle = openDatabase(url, { poolSize: args.plans ? 1 : 4 });
// As the server does at its start: this checkout's migrations and generated triggers.
await migrateToLatest(handle.db);

/** This thread's CPU time in ns (the whole process's where Node cannot tell threads apart). */
const cpuNow = (): bigint => {
  const u = (process as any).threadCpuUsage?.() ?? process.cpuUsage();
  return BigInt(u.user + u.system) * 1000n;
};
/**
 * A synchronous call's time in this thread: its CPU where Node tells threads apart, else its wall time. SQLite runs in
 * this thread; the process's CPU over one of its calls would also hold what other threads did meanwhile (the audit
 * writer's commit of the views, the collector's helpers).
 */
const inThreadNow: () => bigint = (process as any).threadCpuUsage ? cpuNow : () => process.hrtime.bigint();
/**
 * This thread's CPU time in ns from Linux's /proc (10 ms ticks: for totals over many requests), or null elsewhere.
 * The process's time above also holds the other threads': the audit writer's commits of the views, the collector's.
 */
const mainThreadNow = (): bigint | null => {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (BigInt(fields[11]!) + BigInt(fields[12]!)) * 10_000_000n;
  } catch {
    return null;
  }
};
// Every statement the driver runs, and the CPU time inside its calls.
const meter = { statements: 0, ns: 0n };
// --statements: the same split by statement (its first 90 characters); on PostgreSQL each one's wall time instead.
const bySql = new Map<string, { n: number; ns: bigint }>();
if (handle.engine === 'sqlite') {
  const SQLite = createRequire(import.meta.url)('better-sqlite3');
  const probe = new SQLite(':memory:').prepare('select 1');
  const proto = Object.getPrototypeOf(probe);
  for (const m of ['all', 'get', 'run', 'iterate'] as const) {
    const original = proto[m];
    proto[m] = function (this: unknown, ...a: unknown[]) {
      meter.statements++;
      if (process.env.PROFILE_PRINT_SQL) console.log('  sql:', String((this as any).source).replace(/\s+/g, ' ').slice(0, 160));
      if (process.env.PROFILE_PRINT_SQL === 'full') console.log('  full:', JSON.stringify({ text: (this as any).source, values: a }));
      const t = inThreadNow();
      try {
        return original.apply(this, a);
      } finally {
        const spent = inThreadNow() - t;
        meter.ns += spent;
        if (args.statements) {
          const key = String((this as any).source).replace(/\s+/g, ' ').trim().slice(0, 90);
          const s = bySql.get(key) ?? { n: 0, ns: 0n };
          s.n++;
          s.ns += spent;
          bySql.set(key, s);
        }
      }
    };
  }
} else {
  const pg = createRequire(import.meta.url)('pg');
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...a: unknown[]) {
    meter.statements++;
    if (process.env.PROFILE_PRINT_SQL) console.log('  sql:', String((a[0] as any)?.text ?? a[0]).replace(/\s+/g, ' ').slice(0, 160));
    // PROFILE_PRINT_SQL=full: whole statements with their parameters, for EXPLAIN ANALYZE.
    if (process.env.PROFILE_PRINT_SQL === 'full') console.log('  full:', JSON.stringify({ text: (a[0] as any)?.text ?? a[0], values: (a[0] as any)?.values ?? a[1] }));
    const t = cpuNow();
    // --statements on PostgreSQL: the server's work is not this process's CPU, so each statement's wall time to its
    // answer is noted instead (the machine's load is in it: compare runs alternated on the same machine).
    const wall = args.statements ? process.hrtime.bigint() : 0n;
    try {
      const result = original.apply(this, a);
      if (args.statements && result && typeof result.then === 'function') {
        const key = String((a[0] as any)?.text ?? a[0]).replace(/\s+/g, ' ').trim().slice(0, 90);
        const note = () => {
          const s = bySql.get(key) ?? { n: 0, ns: 0n };
          s.n++;
          s.ns += process.hrtime.bigint() - wall;
          bySql.set(key, s);
        };
        result.then(note, note);
      }
      return result;
    } finally {
      meter.ns += cpuNow() - t;
    }
  };
}

/** The collector's pauses (main thread), by kind, while a page's requests are measured. */
const gc = { minor: 0, major: 0, minorMs: 0, majorMs: 0, longestMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      gc.minor++;
      gc.minorMs += entry.duration;
    } else {
      gc.major++;
      gc.majorMs += entry.duration;
    }
    gc.longestMs = Math.max(gc.longestMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

const config = loadConfig({ APP_ENV: 'production', SIGNING_SECRET: 'p'.repeat(40), ALLOWED_HOSTS: 'localhost', DATABASE_URL: url });
const app: FastifyInstance = await buildApp({
  config,
  db: handle.db,
  engine: handle.engine,
  clock: { now: () => new Date() },
  logger: false,
  sqliteFile: handle.sqliteFile,
  keepPages: args['keep-pages'] ?? false,
});
await app.ready();

const inject = await loggedInInject(app);

const db = handle.db as unknown as Kysely<any>;
const r = rng(7);
const people = await db.selectFrom('patients').select(['id', 'nombre', 'apellido', 'documento']).execute();
const ids = people.map((p) => Number(p.id));
const randomId = () => ids[Math.floor(r() * ids.length)]!;
const searches = searchesFrom(people.map((p) => ({ nombre: String(p.nombre), apellido: String(p.apellido), documento: String(p.documento) })), r, 5000);
const pagesOf = (path: string) => pagesOfList(inject, path);
const lastMonth = (() => {
  const [y, m] = new Date().toISOString().slice(0, 7).split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
})();
const listPages = { patients: await pagesOf('/patients/'), follow: await pagesOf('/patients/follow'), exams: await pagesOf('/exams/') };

const PAGES: Record<string, () => string> = {
  baseline: () => '/healthz/cache',
  record: () => `/patients/${randomId()}/`,
  clinical: () => `/exams/${randomId()}/`,
  history: () => `/patients/${randomId()}/?consultas=1`,
  fhir: () => `/patients/${randomId()}/fhir/`,
  list: () => `/patients/?page=${1 + Math.floor(r() * listPages.patients)}`,
  'list-first': () => `/patients/?page=${1 + Math.floor(r() * 3)}`,
  'list-middle': () => `/patients/?page=${Math.floor(listPages.patients / 2) - 1 + Math.floor(r() * 3)}`,
  'list-last': () => `/patients/?page=${listPages.patients - Math.floor(r() * 3)}`,
  follow: () => `/patients/follow?page=${1 + Math.floor(r() * listPages.follow)}`,
  'follow-middle': () => `/patients/follow?page=${Math.floor(listPages.follow / 2) - 1 + Math.floor(r() * 3)}`,
  'exams-list': () => `/exams/?page=${1 + Math.floor(r() * listPages.exams)}`,
  search: () => `/patients/?query_search=${encodeURIComponent(searches[Math.floor(r() * searches.length)]!)}`,
  // The month's RIPS (issue 27): the last whole month of the larger insurer; run them alone (`--only rips-page`).
  'rips-page': () => `/dashboard/rips/?mes=${lastMonth}&entidad_salud=ENTITY_A`,
  'rips-file': () => `/dashboard/rips.json?mes=${lastMonth}&entidad_salud=ENTITY_A&factura=FEV1&operacion=CapitaPeriodo`,
  // The enrolment report's CSV of this month for the larger insurer (issue 27: under 2 s).
  'novedades-csv': () => `/dashboard/novedades.csv?mes=${new Date().toISOString().slice(0, 7)}&entidad_salud=ENTITY_A`,
};
// The agenda (issue 28): random days two weeks either side of today, random professionals with visits then.
const today = todayIn(process.env.TIME_ZONE ?? 'America/Bogota', new Date());
const agendaProfessionals = await db
  .selectFrom('citas')
  .select('profesional_id')
  .distinct()
  .where('fecha', '>=', addDays(today, -14))
  .where('fecha', '<=', addDays(today, 14))
  .where('profesional_id', 'is not', null)
  .execute()
  .then((rows) => rows.map((row) => Number(row.profesional_id)), () => [] as number[]);
const aroundToday = () => addDays(today, Math.floor(r() * 29) - 14);
const aProfessional = () => agendaProfessionals[Math.floor(r() * agendaProfessionals.length)] ?? 1;
Object.assign(PAGES, {
  'agenda-day': () => `/agenda/?fecha=${aroundToday()}`,
  'agenda-day-prof': () => `/agenda/?fecha=${aroundToday()}&profesional=${aProfessional()}`,
  'agenda-week': () => `/agenda/?fecha=${aroundToday()}&vista=semana&profesional=${aProfessional()}`,
  // The whole clinic's week (its first page once the clinic's days are paged), and a page further in.
  'agenda-week-clinic': () => `/agenda/?fecha=${aroundToday()}&vista=semana`,
  'agenda-week-clinic-p30': () => `/agenda/?fecha=${aroundToday()}&vista=semana&pagina=30`,
  worklists: () => `/agenda/pendientes/?lista=${WORKLIST_KINDS[Math.floor(r() * WORKLIST_KINDS.length)]}`,
  'worklists-filtered': () =>
    `/agenda/pendientes/?lista=${WORKLIST_KINDS[Math.floor(r() * WORKLIST_KINDS.length)]}&programa=PROGRAMA+AOS&profesional=${aProfessional()}`,
});
// The rest of the agenda (decision 0240): booking a patient, a visit's page, tomorrow's reminders around today, a
// professional's iCalendar feed (a feed per professional with a known token, written here when missing).
const agendaVisitIds = await db
  .selectFrom('citas')
  .select('id')
  .where('fecha', '>=', addDays(today, -14))
  .where('fecha', '<=', addDays(today, 14))
  .limit(5000)
  .execute()
  .then((rows) => rows.map((row) => Number(row.id)), () => [] as number[]);
const feedToken = (userId: number) => `profile-feed-${String(userId).padStart(6, '0')}`;
for (const userId of agendaProfessionals.slice(0, 50)) {
  const tokenHash = createHash('sha256').update(feedToken(userId)).digest('hex');
  if (await db.selectFrom('agenda_feeds').select('id').where('token_hash', '=', tokenHash).executeTakeFirst()) continue;
  await db.insertInto('agenda_feeds').values({ user_id: userId, token_hash: tokenHash, created_at: new Date().toISOString(), revocado_at: null }).execute().catch(() => undefined);
}
Object.assign(PAGES, {
  'agenda-booking': () => `/agenda/citas/nueva/?patient_id=${randomId()}`,
  'agenda-reminders': () => `/agenda/recordatorios/?fecha=${aroundToday()}`,
});
// A visit's page and a feed only where there are visits (each answers 404 otherwise).
if (agendaVisitIds.length > 0) PAGES['agenda-visit'] = () => `/agenda/citas/${agendaVisitIds[Math.floor(r() * agendaVisitIds.length)]!}/`;
const feedOwners = agendaProfessionals.slice(0, 50);
if (feedOwners.length > 0) PAGES['agenda-feed'] = () => `/agenda/ical/${feedToken(feedOwners[Math.floor(r() * feedOwners.length)]!)}.ics`;
// The create (POST /patients/create/): a patient of its own each time, born on a day of its own with a surname of
// this run's own, so no create meets a similar person. It writes to the benchmark database: run it alone.
const createForm = await (async () => {
  const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec((await inject('GET', '/patients/create/')).body)?.[1] ?? '';
  const stamp = Date.now();
  const run = `Perfil${stamp.toString(36).replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!)}`;
  let n = 0;
  return (): Record<string, string> => {
    n++;
    const born = new Date(Date.UTC(1920, 0, 1) + (n % 30_000) * 86_400_000).toISOString().slice(0, 10);
    return Object.fromEntries(new URLSearchParams(patientFormBody(token, `${stamp}${String(n).padStart(6, '0')}`, born, { apellido: run })));
  };
})();
/** Pages that post a form: their path, and the next form (each call another). */
const POSTS: Record<string, { path: string; form: () => Record<string, string> }> = {
  create: { path: '/patients/create/', form: createForm },
};
for (const [name, post] of Object.entries(POSTS)) PAGES[name] = () => post.path;
/** Pages not run unless named in --only (each reads a whole month, or the agenda's worklists at their slowest; the create writes). */
const NAMED_ONLY = new Set(['rips-page', 'rips-file', 'novedades-csv', 'worklists', 'worklists-filtered', 'create']);
const only = args.only ? new Set(args.only.split(',')) : null;
if (only?.has('rips-page') || only?.has('rips-file')) await fillRipsFacts(db);

console.log(`${url.startsWith('sqlite') ? 'SQLite' : 'PostgreSQL'}, ${formatInt(ids.length)} patients, ${N} requests a page (${CONCURRENCY} at a time), kept pages ${args['keep-pages'] ? 'on' : 'off'}`);
/**
 * The longest stretch of CPU time this thread spent between two turns of the event loop during one more request
 * of a page that reads a month (what another user's request waits at worst on an idle machine; CPU time, so the
 * machine's load does not count): a callback set again at each turn notes the CPU time used since the last one.
 */
async function longestTurnMs(path: string): Promise<number> {
  let longest = 0n;
  let last = cpuNow();
  let running = true;
  const turn = () => {
    const now = cpuNow();
    if (now - last > longest) longest = now - last;
    last = now;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  await inject('GET', path);
  // The callback already set counts the last stretch (all of it, when the request never let the loop turn).
  await new Promise((resolve) => setImmediate(resolve));
  running = false;
  return Number(longest) / 1e6;
}

/**
 * PostgreSQL on this machine: the CPU time (ns, 10 ms ticks) of each server process of this database, by pid, from
 * /proc; null elsewhere. The database's own share of a request, which the columns above leave out.
 */
async function databaseCpu(): Promise<Map<number, bigint> | null> {
  if (handle.engine !== 'postgres') return null;
  const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.execute(handle.db);
  const out = new Map<number, bigint>();
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out.set(pid, (BigInt(fields[11]!) + BigInt(fields[12]!)) * 10_000_000n);
    } catch {
      return null;
    }
  }
  return out;
}
/** --plans: the plans each named statement of the (one) connection has had so far, by name. */
async function plansSoFar(): Promise<Map<string, { text: string; generic: number; custom: number }>> {
  const out = new Map<string, { text: string; generic: number; custom: number }>();
  if (!args.plans || handle.engine !== 'postgres') return out;
  const { rows } = await sql<{ name: string; statement: string; generic_plans: number; custom_plans: number }>`
    select name, statement, generic_plans, custom_plans from pg_prepared_statements`.execute(handle.db);
  for (const r of rows) out.set(r.name, { text: r.statement.replace(/\s+/g, ' ').trim().slice(0, 90), generic: Number(r.generic_plans), custom: Number(r.custom_plans) });
  return out;
}
const databaseNs = (start: Map<number, bigint> | null, end: Map<number, bigint> | null): number | null =>
  start && end ? Number([...end].reduce((sum, [pid, ns]) => sum + ns - (start.get(pid) ?? 0n), 0n)) : null;

/** One request of the page `name`: a GET of its next path, or the next form posted. */
const requestOf = (name: string, next: () => string) => {
  const post = POSTS[name];
  return post ? inject('POST', post.path, post.form()) : inject('GET', next());
};
const answeredWell = (name: string, status: number) => (POSTS[name] ? status === 302 : status === 200);

console.log(`${'page'.padEnd(14)} ${'stmts/req'.padStart(9)} ${'cpu µs/req'.padStart(10)} ${'in driver µs'.padStart(12)} ${'rest µs'.padStart(8)} ${'KB'.padStart(6)} ${'main thread µs'.padStart(14)}${handle.engine === 'postgres' ? ' database µs' : ''}`);
for (const [name, next] of Object.entries(PAGES)) {
  if (only ? !only.has(name) : NAMED_ONLY.has(name)) continue;
  // Warm-up: V8 compiles the paths first (and with --keep-pages, the pages drawn are kept before the count starts).
  for (let i = 0; i < Math.min(NAMED_ONLY.has(name) && !args['keep-pages'] && !POSTS[name] ? 1 : 100, N); i++) await requestOf(name, next);
  const dbStart = await databaseCpu();
  const plansBefore = await plansSoFar();
  meter.statements = 0;
  meter.ns = 0n;
  bySql.clear();
  // With --keep-pages, the kept pages' hits and renders during the measured requests (printed after the line).
  const keptBefore = app.pages.counts();
  let bytes = 0;
  const cpu = cpuNow();
  const main = mainThreadNow();
  Object.assign(gc, { minor: 0, major: 0, minorMs: 0, majorMs: 0, longestMs: 0 });
  let sent = 0;
  const client = async () => {
    while (sent < N) {
      sent++;
      const res = await requestOf(name, next);
      // The baseline's route is new with issue 30: an older checkout answers 404 after the same session and guard.
      if (!answeredWell(name, res.statusCode) && !(name === 'baseline' && res.statusCode === 404)) throw new Error(`${name}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      bytes += res.rawPayload.length;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  const us = Number(cpuNow() - cpu) / 1000 / N;
  // The collections' entries arrive after a turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 10));
  const collected = { ...gc };
  const mainEnd = mainThreadNow();
  const mainUs = main === null || mainEnd === null ? '–' : (Number(mainEnd - main) / 1000 / N).toFixed(0);
  const driver = Number(meter.ns) / 1000 / N;
  const statements = meter.statements / N;
  // After the meter is read (this read is one more statement).
  const dbUs = databaseNs(dbStart, await databaseCpu());
  const dbColumn = dbUs === null ? '' : (dbUs / 1000 / N).toFixed(0).padStart(12);
  const turn = NAMED_ONLY.has(name) && !POSTS[name] ? `  longest turn ${(await longestTurnMs(next())).toFixed(1)} ms cpu` : '';
  console.log(
    `${name.padEnd(14)} ${statements.toFixed(1).padStart(9)} ${us.toFixed(0).padStart(10)} ${driver.toFixed(0).padStart(12)} ${(us - driver).toFixed(0).padStart(8)} ${(bytes / N / 1024).toFixed(1).padStart(6)} ${mainUs.padStart(14)}${dbColumn}${turn}`,
  );
  const keptAfter = app.pages.counts();
  if (args['keep-pages']) console.log(`    kept pages: ${keptAfter.hits - keptBefore.hits} hits, ${keptAfter.misses - keptBefore.misses} renders`);
  console.log(
    `    gc: ${collected.minor} scavenges ${((collected.minorMs * 1000) / N).toFixed(0)} µs/req, ${collected.major} major ${((collected.majorMs * 1000) / N).toFixed(0)} µs/req, longest pause ${collected.longestMs.toFixed(1)} ms`,
  );
  for (const [name, after] of await plansSoFar()) {
    const before = plansBefore.get(name) ?? { custom: 0, generic: 0 };
    const custom = after.custom - before.custom;
    if (custom / N >= 0.05) console.log(`    planned anew ${(custom / N).toFixed(1)}× a request (kept plan ${((after.generic - before.generic) / N).toFixed(1)}×)  ${after.text}`);
  }
  for (const [text, s] of [...bySql].sort((a, b) => Number(b[1].ns - a[1].ns))) {
    console.log(`    ${(s.n / N).toFixed(1).padStart(4)}× ${(Number(s.ns) / 1000 / s.n).toFixed(0).padStart(5)} µs  ${text}`);
  }
}
await app.close();
await handle.close();
