// npm run bench:search-times -- [--database URL] [--searches N] [--worst N] [--follow]
//
// Each distinct search of the benchmark's set (bench/uncached.ts, the same people and seed as bench:profile), timed
// alone in this process: searchPatients as the active list's first page runs it (the count and the page), CPU time
// of this thread. Prints the distribution and the worst searches with their match counts, so the searches that
// make the p99 can be named (issue 30). SQLite's work is in this thread; on PostgreSQL the wall time is printed
// too, since the database's own work is in its processes.

import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { searchPatients } from '../src/patients/patient.capita-list.repository.js';
import { databaseUrlFrom, formatInt } from './common.js';
import { rng } from './synthetic.js';
import { searchesFrom } from './uncached.js';

const args = parseArgs({
  options: {
    database: { type: 'string' },
    searches: { type: 'string', default: '5000' },
    worst: { type: 'string', default: '25' },
    follow: { type: 'boolean', default: false },
  },
}).values;
const handle = openDatabase(databaseUrlFrom(args.database), { poolSize: 4 });
await migrateToLatest(handle.db);
const db = handle.db as unknown as Kysely<any>;
const r = rng(7);
const people = await db.selectFrom('patients').select(['nombre', 'apellido', 'documento']).execute();
const searches = searchesFrom(
  people.map((p) => ({ nombre: String(p.nombre), apellido: String(p.apellido), documento: String(p.documento) })),
  r,
  Number(args.searches),
);
const today = new Date().toISOString().slice(0, 10);
const onlyActive = !args.follow;

const cpuNow = (): number => {
  const u = (process as any).threadCpuUsage?.() ?? process.cpuUsage();
  return (u.user + u.system) / 1000;
};
// Warm-up: the statement cache and V8.
for (const q of searches.slice(0, 50)) await searchPatients(handle.db, { query: q, onlyActive, page: 1, today });

const timed: { q: string; cpu: number; wall: number; total: number }[] = [];
for (const q of searches) {
  const c = cpuNow();
  const w = performance.now();
  const { total } = await searchPatients(handle.db, { query: q, onlyActive, page: 1, today });
  timed.push({ q, cpu: cpuNow() - c, wall: performance.now() - w, total });
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const cpu = sorted(timed.map((t) => t.cpu));
const wall = sorted(timed.map((t) => t.wall));
const sum = cpu.reduce((a, b) => a + b, 0);
console.log(`${handle.engine}, ${formatInt(people.length)} patients, ${formatInt(timed.length)} distinct searches, ${onlyActive ? 'active list' : 'every patient'}`);
for (const [name, xs] of [['cpu ms', cpu], ['wall ms', wall]] as const) {
  console.log(`${name.padEnd(8)} mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2)}  p50 ${pct(xs, 50).toFixed(2)}  p90 ${pct(xs, 90).toFixed(2)}  p99 ${pct(xs, 99).toFixed(2)}  max ${xs[xs.length - 1]!.toFixed(2)}`);
}
const worst = [...timed].sort((a, b) => b.cpu - a.cpu).slice(0, Number(args.worst));
const worstShare = worst.reduce((a, t) => a + t.cpu, 0) / sum;
console.log(`the ${worst.length} worst: ${(worstShare * 100).toFixed(1)} % of all CPU`);
for (const t of worst) console.log(`  ${t.cpu.toFixed(2).padStart(8)} ms cpu ${t.wall.toFixed(2).padStart(8)} ms wall ${formatInt(t.total).padStart(7)} matches  ${JSON.stringify(t.q)}`);
await handle.close();
