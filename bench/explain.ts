// npx tsx bench/explain.ts [--database URL] [--only a,b] [--repeat N] [--paths /a/,/b/?x=1]
//
// Serves the application in this process on the benchmark database with every SQL statement logged, requests
// each read scenario once as the 'bench' user, then prints, per scenario, the statements it ran with their
// mean time over --repeat requests and the plan of each SELECT (EXPLAIN QUERY PLAN on SQLite,
// EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL). The tool behind docs/performance.md. --paths: these pages (GET, comma
// separated) instead of the scenarios, e.g. the agenda's (decision 0240).

import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { engineOf, openDatabase } from '../src/db/connection.js';
import type { Database } from '../src/db/database.js';
import { systemClock } from '../src/shared/clock.js';
import { BENCH_PASSWORD, BENCH_USERNAME, databaseUrlFrom, fail } from './common.js';
import { loadFixtures, scenarios } from './scenarios.js';
import { Session } from './server.js';

interface Logged {
  sql: string;
  parameters: readonly unknown[];
  ms: number;
}

/** The application's connection settings (src/db/connection.ts), with a query log. */
function loggedDatabase(url: string, log: (e: LogEvent) => void): Kysely<Database> {
  if (engineOf(url) === 'sqlite') {
    const sqlite = new SQLite(url.slice('sqlite:'.length));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = FULL');
    return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log });
  }
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 10 }) }), log });
}

async function main(): Promise<void> {
  const args = parseArgs({
    options: { database: { type: 'string' }, only: { type: 'string' }, repeat: { type: 'string', default: '20' }, paths: { type: 'string' } },
    strict: true,
  }).values;
  const url = databaseUrlFrom(args.database);
  const engine = engineOf(url);
  const repeat = Math.max(1, Number(args.repeat));
  const only = args.only ? new Set(args.only.split(',')) : null;

  let capture: Logged[] | null = null;
  const db = loggedDatabase(url, (e) => {
    if (e.level === 'query' && capture) capture.push({ sql: e.query.sql, parameters: e.query.parameters, ms: e.queryDurationMillis });
  });
  const fixturesHandle = openDatabase(url, { poolSize: 1 });
  const fixtures = await loadFixtures(fixturesHandle.db);
  const config = loadConfig({ ...process.env, APP_ENV: 'production', SIGNING_SECRET: randomBytes(32).toString('hex'), ALLOWED_HOSTS: '127.0.0.1', DATABASE_URL: url });
  const app = await buildApp({ config, db, engine, clock: systemClock, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  try {
    const session = new Session(base);
    await session.login(BENCH_USERNAME, BENCH_PASSWORD);
    const targets = args.paths
      ? args.paths.split(',').map((path) => ({ name: path, path }))
      : scenarios(fixtures, fixturesHandle.db, session)
          .filter((s) => s.expect === 200 && (!only || only.has(s.key)))
          .map((s) => ({ name: s.name, path: s.next().path }));
    for (const s of targets) {
      const request = s;
      // Warm once (statement caches, JIT), then measure.
      await session.request('GET', request.path);
      const runs: Logged[][] = [];
      let status = 0;
      const started = performance.now();
      for (let i = 0; i < repeat; i++) {
        capture = [];
        status = (await session.request('GET', request.path)).status;
        runs.push(capture);
        capture = null;
      }
      const perRequest = (performance.now() - started) / repeat;
      console.log(`\n## ${s.name}  (${request.path})  HTTP ${status}, ${perRequest.toFixed(2)} ms a request (client side, sequential)\n`);
      const first = runs[0] ?? [];
      for (let q = 0; q < first.length; q++) {
        const times = runs.map((r) => r[q]?.ms ?? 0);
        const mean = times.reduce((a, b) => a + b, 0) / times.length;
        const stmt = first[q]!;
        console.log(`- ${mean.toFixed(2)} ms  ${stmt.sql.replace(/\s+/g, ' ').slice(0, 400)}`);
        console.log(`  params: ${JSON.stringify(stmt.parameters).slice(0, 200)}`);
        if (/^\s*(select|with)\b/i.test(stmt.sql)) {
          const prefix = engine === 'sqlite' ? 'explain query plan ' : 'explain (analyze, buffers, costs off) ';
          const plan = await db.executeQuery(CompiledQuery.raw(prefix + stmt.sql, [...stmt.parameters]));
          const lines = (plan.rows as Record<string, unknown>[]).map((row) => (engine === 'sqlite' ? `${'  '.repeat(depthOf(row, plan.rows as any))}${row.detail}` : String(row['QUERY PLAN'])));
          for (const line of lines) console.log(`    ${line}`);
        }
      }
    }
  } finally {
    await app.close();
    await db.destroy();
    await fixturesHandle.close();
  }
}

/** Nesting depth of an EXPLAIN QUERY PLAN row (its parent chain). */
function depthOf(row: Record<string, unknown>, rows: Record<string, unknown>[]): number {
  let depth = 0;
  let parent = row.parent;
  while (parent && depth < 20) {
    const p = rows.find((r) => r.id === parent);
    if (!p) break;
    depth++;
    parent = p.parent;
  }
  return depth;
}

main().catch((err: unknown) => fail(err instanceof Error ? (err.stack ?? err.message) : String(err)));
