// npm run bench:compare -- --base DIR [--base-database URL] [--database URL] [--rounds N] [--duration S] [--only a,b]
//
// The code of this checkout against another checkout of the project (`--base`, with its own node_modules and the
// bench harness of issue 6 or later), each serving its own copy of the same generated data, both servers up at
// once: for each page, runs alternate base/this `--rounds` times (the order flipped each round), so a slow minute
// of a shared machine falls on both. GETs of one path are driven by wrk (bench/wrk.ts), creates by autocannon;
// for each run: requests a second, p99 and the server's CPU time per request. Prints medians and their ratios, and
// writes every run to bench/results/<date>-compare.json. SQLite databases only: a create writes to them.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BENCH_PASSWORD, BENCH_USERNAME, databaseUrlFrom, fail } from './common.js';
import { patientFormBody } from './scenarios.js';
import { cpuSecondsOf } from './server.js';
import { runWrk } from './wrk.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const PAGES = [
  '/patients/',
  '/patients/?page=500',
  '/patients/?query_search=gonz',
  '/patients/?query_search=urquij',
  '/patients/?query_search=109857',
  '/patients/?query_search=jose+perez',
  '/patients/?mes_filtro=7',
  '/patients/?query_search=gonz&mes_filtro=7',
  '/patients/follow?query_search=gonz',
  '/dashboard/',
  '/patients/1234/',
  '/exams/1234/',
  'create',
];

interface Side {
  label: 'base' | 'this';
  base: string;
  pid: number;
  cookie: () => string;
  csrf: () => string;
  stop: () => Promise<void>;
}

async function start(label: Side['label'], root: string, url: string): Promise<Side> {
  // Each checkout's own harness starts its own server (its build, its flags).
  const harness = await import(path.join(root, 'bench', 'server.ts'));
  const server = await harness.startServer(url, path.join(ROOT, 'bench', 'results', `compare-${label}-server.log`));
  const session = new harness.Session(server.base);
  await session.login(BENCH_USERNAME, BENCH_PASSWORD);
  await session.request('GET', '/patients/create/');
  return { label, base: server.base, pid: server.pid, cookie: () => session.cookieHeader(), csrf: () => session.csrfToken, stop: () => server.stop() };
}

// A birth date of its own for each created patient (40,000 days from 1910), so no create meets a similar person
// and both versions take the same path (the code before issue 17 knows no «es otra persona»).
let created = 0;
const createBody = (side: Side): string => {
  const n = created++;
  return patientFormBody(side.csrf(), String(700_000_000 + n), new Date(Date.UTC(1910, 0, 1) + (n % 40_000) * 86_400_000).toISOString().slice(0, 10));
};

interface Run {
  rps: number;
  p99: number;
  cpuUs: number;
  failed: number;
}

async function runOnce(side: Side, page: string, seconds: number): Promise<Run> {
  const before = cpuSecondsOf(side.pid);
  let requests: number, wall: number, p99: number, failed: number;
  if (page === 'create') {
    const res = await new Promise<autocannon.Result>((resolve, reject) =>
      autocannon(
        {
          url: side.base, connections: 32, duration: seconds,
          requests: [{ method: 'POST', path: '/patients/create/', headers: { cookie: side.cookie(), 'content-type': 'application/x-www-form-urlencoded' }, setupRequest: (r: any) => ({ ...r, body: createBody(side) }) }],
        },
        (err, r) => (err ? reject(err) : resolve(r)),
      ),
    );
    requests = res['3xx'];
    wall = res.duration;
    p99 = res.latency.p99;
    failed = res['2xx'] + res['4xx'] + res['5xx'] + res.errors + res.timeouts;
  } else {
    const w = await runWrk(side.base + page, { seconds, connections: 32, headers: { cookie: side.cookie() }, expect: 200 });
    requests = w.expected;
    wall = w.seconds;
    p99 = w.p99Ms;
    failed = w.requests - w.expected + w.errors;
  }
  await new Promise((r) => setTimeout(r, 500));
  return { rps: requests / wall, p99, cpuUs: ((cpuSecondsOf(side.pid) - before) * 1e6) / Math.max(1, requests), failed };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      base: { type: 'string' },
      'base-database': { type: 'string' },
      database: { type: 'string' },
      rounds: { type: 'string', default: '5' },
      duration: { type: 'string', default: '4' },
      only: { type: 'string' },
    },
  });
  if (!args.base) fail('Uso: npm run bench:compare -- --base DIR [--base-database URL] [--database URL] [--rounds N] [--duration S] [--only a,b]');
  const url = databaseUrlFrom(args.database);
  const baseUrl = args['base-database'] ?? url;
  if (baseUrl === url) fail('the base needs a database of its own (--base-database): creates write to it, and its schema may differ');
  const rounds = Number(args.rounds);
  const seconds = Number(args.duration);
  const pages = args.only ? args.only.split(',') : PAGES;
  const sides = [await start('base', path.resolve(args.base), baseUrl), await start('this', ROOT, url)];
  const runs: Record<string, Record<Side['label'], Run[]>> = {};
  let failures = 0;
  try {
    console.log(`${'page'.padEnd(44)} ${'req/s base → this'.padStart(20)} ${'cpu µs/req base → this'.padStart(24)} ${'p99 ms base → this'.padStart(20)}`);
    for (const page of pages) {
      runs[page] = { base: [], this: [] };
      if (page !== 'create') for (const side of sides) await runOnce(side, page, 1);
      for (let r = 0; r < rounds; r++) {
        for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
          const run = await runOnce(side, page, seconds);
          failures += run.failed;
          runs[page]![side.label].push(run);
        }
      }
      const m = (label: Side['label'], key: keyof Run) => median(runs[page]![label].map((x) => x[key]));
      const pct = (a: number, b: number) => `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)} %`;
      console.log(
        `${page.padEnd(44)} ${`${m('base', 'rps').toFixed(0)} → ${m('this', 'rps').toFixed(0)}`.padStart(14)} ${pct(m('base', 'rps'), m('this', 'rps')).padStart(8)}` +
          ` ${`${m('base', 'cpuUs').toFixed(0)} → ${m('this', 'cpuUs').toFixed(0)}`.padStart(14)} ${pct(m('base', 'cpuUs'), m('this', 'cpuUs')).padStart(9)}` +
          ` ${`${m('base', 'p99').toFixed(1)} → ${m('this', 'p99').toFixed(1)}`.padStart(20)}`,
      );
    }
  } finally {
    for (const side of sides) await side.stop();
  }
  const out = path.join(ROOT, 'bench', 'results', `${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}-compare.json`);
  const commitOf = (dir: string) => execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), base: commitOf(path.resolve(args.base)), this: commitOf(ROOT), rounds, seconds, runs }, null, 2));
  console.log(`medians of ${rounds} runs each, alternated; every run in ${path.relative(ROOT, out)}`);
  if (failures > 0) fail(`${failures} requests failed or answered an unexpected status`);
}

await main();
