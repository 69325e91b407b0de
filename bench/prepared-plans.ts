// npm run bench:plans -- --database postgres://… [--requests N] [--only record,search,…]
//
// PostgreSQL's plans of the named statements (decision 0270): the uncached pages run in this process on ONE
// connection (kept pages off), each page N times (PostgreSQL chooses between a generic and a custom plan from a
// statement's sixth execution); then, for every statement prepared on that connection, how many times it was
// planned generic and custom, and for those that went generic, EXPLAIN ANALYZE of their last arguments with the
// generic plan and with a custom plan (plan_cache_mode), best of three: a generic plan much slower than the custom
// one is a statement to keep unnamed.

import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/connection.js';
import { databaseUrlFrom } from './common.js';
import { loggedInInject, pagesOf as pagesOfList } from './in-process.js';
import { rng } from './synthetic.js';
import { searchesFrom } from './uncached.js';

const args = parseArgs({ options: { database: { type: 'string' }, requests: { type: 'string', default: '30' }, only: { type: 'string' } } }).values;
const url = databaseUrlFrom(args.database);
if (!url.startsWith('postgres')) throw new Error('bench:plans is for PostgreSQL');
const N = Number(args.requests);
const handle = openDatabase(url, { poolSize: 1 });

// The last arguments each named statement ran with.
const lastValues = new Map<string, unknown[]>();
const pg = createRequire(import.meta.url)('pg');
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: unknown, ...a: unknown[]) {
  const config = a[0] as { name?: string; values?: unknown[] } | undefined;
  if (config?.name !== undefined) lastValues.set(config.name, config.values ?? []);
  return original.apply(this, a);
};

const config = loadConfig({ APP_ENV: 'production', SIGNING_SECRET: 'p'.repeat(40), ALLOWED_HOSTS: 'localhost', DATABASE_URL: url });
const app = await buildApp({ config, db: handle.db, engine: handle.engine, clock: { now: () => new Date() }, logger: false, sqliteFile: null, keepPages: false });
await app.ready();
const inject = await loggedInInject(app);

const r = rng(11);
const people = (await sql<{ id: number; nombre: string; apellido: string; documento: string }>`select id, nombre, apellido, documento from patients`.execute(handle.db)).rows;
const randomId = () => Number(people[Math.floor(r() * people.length)]!.id);
const searches = searchesFrom(people.map((p) => ({ nombre: String(p.nombre), apellido: String(p.apellido), documento: String(p.documento) })), r, 5000);
const pagesOf = (path: string) => pagesOfList(inject, path);
const listPages = { patients: await pagesOf('/patients/'), follow: await pagesOf('/patients/follow'), exams: await pagesOf('/exams/') };
const PAGES: Record<string, () => string> = {
  record: () => `/patients/${randomId()}/`,
  clinical: () => `/exams/${randomId()}/`,
  history: () => `/patients/${randomId()}/?consultas=1`,
  list: () => `/patients/?page=${1 + Math.floor(r() * listPages.patients)}`,
  follow: () => `/patients/follow?page=${1 + Math.floor(r() * listPages.follow)}`,
  'exams-list': () => `/exams/?page=${1 + Math.floor(r() * listPages.exams)}`,
  search: () => `/patients/?query_search=${encodeURIComponent(searches[Math.floor(r() * searches.length)]!)}`,
};
const only = args.only ? new Set(args.only.split(',')) : null;
for (const [name, next] of Object.entries(PAGES)) {
  if (only && !only.has(name)) continue;
  for (let i = 0; i < N; i++) {
    const res = await inject('GET', next());
    if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode}`);
  }
}

const literal = (v: unknown): string => (v === null ? 'null' : typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
const executionMs = async (statement: string): Promise<number> => {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`${sql.raw(`explain (analyze, timing off) ${statement}`)}`.execute(handle.db);
    const ms = Number(/Execution Time: ([\d.]+)/.exec(rows.map((row) => row['QUERY PLAN']).join('\n'))?.[1]);
    best = Math.min(best, ms);
  }
  return best;
};
const { rows: prepared } = await sql<{ name: string; statement: string; generic_plans: number; custom_plans: number }>`
  select name, statement, generic_plans, custom_plans from pg_prepared_statements order by name`.execute(handle.db);
// The server's memory for them: each prepared statement's parse tree, and its plans, in contexts of their own.
const { rows: memory } = await sql<{ kb: number }>`select cast(sum(total_bytes) / 1024 as integer) as kb from pg_backend_memory_contexts
  where name in ('CachedPlan', 'CachedPlanSource', 'CachedPlanQuery')`.execute(handle.db);
console.log(`${prepared.length} statements prepared on the connection after ${N} requests a page, ${memory[0]?.kb ?? 0} KB of the server's memory`);
console.log(`${'generic'.padStart(7)} ${'custom'.padStart(6)} ${'generic ms'.padStart(10)} ${'custom ms'.padStart(9)}  statement`);
for (const p of prepared) {
  const text = p.statement.replace(/\s+/g, ' ').trim().slice(0, 110);
  const values = lastValues.get(p.name);
  let times = `${''.padStart(10)} ${''.padStart(9)}`;
  // Reads only: EXPLAIN ANALYZE runs the statement.
  if (Number(p.generic_plans) > 0 && values !== undefined && /^\s*(select|with)\b/i.test(p.statement) && !/\b(insert|update|delete)\b/i.test(p.statement)) {
    const execute = `execute ${p.name}${values.length > 0 ? `(${values.map(literal).join(', ')})` : ''}`;
    const generic = await executionMs(execute);
    await sql`set plan_cache_mode = force_custom_plan`.execute(handle.db);
    const custom = await executionMs(execute);
    await sql`reset plan_cache_mode`.execute(handle.db);
    times = `${generic.toFixed(3).padStart(10)} ${custom.toFixed(3).padStart(9)}`;
  }
  console.log(`${String(p.generic_plans).padStart(7)} ${String(p.custom_plans).padStart(6)} ${times}  ${text}`);
}
await app.close();
await handle.close();
