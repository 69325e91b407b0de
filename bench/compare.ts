// npm run bench:compare -- --base DIR [--base-database URL] [--database URL] [--rounds N] [--duration S] [--only a,b]
//                          [--instructions [--requests N] [--warm-up N] [--profile] [--collect]] [--ids N]
//
// A page with {id} or {page:N} is uncached: each request draws another patient id (1 to --ids, 100,000 by default)
// or page number (1 to N), so it measures a page's own cost, not the kept pages'.
//
// The code of this checkout against another checkout of the project (`--base`, with its own node_modules and the
// bench harness of issue 6 or later), each serving its own copy of the same generated data, both servers up at
// once: for each page, runs alternate base/this `--rounds` times (the order flipped each round), so a slow minute
// of a shared machine falls on both. GETs of one path are driven by wrk (bench/wrk.ts), creates by autocannon;
// for each run: requests a second, p99 and the server's CPU time per request. Prints medians and their ratios, and
// writes every run to bench/results/<date>-compare.json. SQLite databases only: a create writes to them.
//
// `--instructions`: both servers run under valgrind's callgrind, and each run counts the instructions the server
// executes (every thread) for `--requests` requests, 4 at a time; a page's first round warms up with `--warm-up`
// requests first (twice `--requests` by default; a create needs thousands before V8 stops compiling it).
// Instruction counts do not move with the machine's speed, as seconds do here by ±20 % and more (decision 0053);
// they leave out the kernel's share (sending the bytes, ~5 µs a KB here), so the bytes a response carries are
// printed beside them, and so are the collections inside each window: some rounds hold a major collection and others
// none (decisions 0180, 0220). About 50 times slower than the server runs natively.

import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BENCH_PASSWORD, BENCH_USERNAME, databaseUrlFrom, fail } from './common.js';
import { patientFormBody } from './scenarios.js';
import { buildOf, cpuSecondsOf, SERVER_HOST, startServer } from './server.js';
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
  // Uncached (issue 30): each request another patient or page ({id}: 1 to --ids; {page:N}: 1 to N).
  '/patients/{id}/',
  '/exams/{id}/',
  '/patients/?page={page:8000}',
  '/patients/follow?page={page:10000}',
  'create',
];

let idsUpTo = 100_000;
/** A path of `page`, its {id} and {page:N} drawn at random: every request of an uncached page another one. */
const draw = (page: string): string =>
  page.replace(/\{id\}/g, () => String(randomInt(1, idsUpTo + 1))).replace(/\{page:(\d+)\}/g, (_, n: string) => String(randomInt(1, Number(n) + 1)));
/** The paths wrk requests in turn for one run: the page itself, or 50,000 draws of it. */
const pathsOf = (page: string): string[] => (page.includes('{') ? Array.from({ length: 50_000 }, () => draw(page)) : [page]);

interface Side {
  label: 'base' | 'this';
  base: string;
  pid: number;
  cookie: () => string;
  csrf: () => string;
  stop: () => Promise<void>;
}

// Instrumentation starts off (the server starts, migrates and logs in at valgrind's lighter pace) and is switched
// on before the first request counted; the profile itself is not kept.
// `--profile`: each counted window is also written as a profile of its own (bench/results/callgrind-<side>.<pid>.<n>,
// for callgrind_annotate), the way decision 0180's and 0220's per-function figures were taken.
let profile = false;
let collectFirst = false;
const callgrindOf = (label: string): string[] => [
  'valgrind', '--tool=callgrind', '--instr-atstart=no',
  `--callgrind-out-file=${profile ? path.join(ROOT, 'bench', 'results', `callgrind-${label}.%p`) : '/dev/null'}`,
];
// V8 compiles and collects on the main thread: under valgrind's serialized threads, a background compile lands at a
// different request from run to run, and the counts with it.
// The collections inside each counted window are counted (bench/gc-preload.cjs, given to both servers, whatever their
// checkout): a window of a few hundred requests holds one major collection or none, which moves its count by more
// than the difference measured. `--collect`: each window starts after two forced full collections instead; they
// deoptimize the code that embeds objects they free, so every window then recompiles (decision 0220).
const GC_PRELOAD = path.join(ROOT, 'bench', 'gc-preload.cjs');
const COUNTED_NODE_FLAGS = ['--single-threaded', '--expose-gc', `--require=${GC_PRELOAD}`];
const GC_DIR = mkdtempSync(path.join(tmpdir(), 'somno-compare-gc-'));

// valgrind names its control pipes after $HOST, which for the server is its listening address.
const callgrindControl = (pid: number, ...args: string[]): string =>
  execFileSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, HOST: SERVER_HOST } });

/** Instructions the process has executed since its counters were last zeroed, every thread. */
function instructionsOf(pid: number): number {
  let total = 0;
  for (const m of callgrindControl(pid, '-e', 'Ir').matchAll(/^\s*Th\s+\d+\s+([\d,]+)\s*$/gm)) total += Number(m[1]!.replace(/,/g, ''));
  if (total === 0) fail(`callgrind_control gave no instruction count for process ${pid}`);
  return total;
}

async function start(label: Side['label'], root: string, url: string, instructions: boolean): Promise<Side> {
  // Each checkout's own harness starts its own server (its build, its flags); under callgrind this harness starts
  // it, with that checkout's build and flags.
  const harness = await import(path.join(root, 'bench', 'server.ts'));
  if (instructions) process.env.BENCH_GC_DIR = GC_DIR;
  if (collectFirst) process.env.BENCH_GC_COLLECT = '1';
  const log = path.join(ROOT, 'bench', 'results', `compare-${label}-server.log`);
  const server = instructions
    ? await startServer(url, log, { build: await buildOf(root), wrapper: callgrindOf(label), nodeFlags: COUNTED_NODE_FLAGS, readyWithinMs: 600_000 })
    : await harness.startServer(url, log);
  const session = new harness.Session(server.base);
  await session.login(BENCH_USERNAME, BENCH_PASSWORD);
  await session.request('GET', '/patients/create/');
  if (instructions) callgrindControl(server.pid, '--instr=on');
  return { label, base: server.base, pid: server.pid, cookie: () => session.cookieHeader(), csrf: () => session.csrfToken, stop: () => server.stop() };
}

// A birth date of its own for each created patient (40,000 days from 1910) and a surname of this run's own, so no
// create meets a similar person and both versions take the same path (the code before issue 17 knows no «es otra
// persona»). Past 40,000 creates the dates come round again: each round adds a word of its own to the surname,
// three letters apart from the last round's (names one letter apart are similar). Documentos from a random start,
// so that a second run on the same databases meets none of the first.
let created = randomInt(0, 90_000) * 1_000;
const runSurname = `Peña ${Array.from({ length: 8 }, () => String.fromCharCode(97 + randomInt(0, 26))).join('')}`;
const BIRTH_DAYS = 40_000;
const createBody = (side: Side): string => {
  const n = created++;
  const born = new Date(Date.UTC(1910, 0, 1) + (n % BIRTH_DAYS) * 86_400_000).toISOString().slice(0, 10);
  const round = String.fromCharCode(97 + (Math.floor(n / BIRTH_DAYS) % 26)).repeat(3);
  return patientFormBody(side.csrf(), String(700_000_000 + n), born, { apellido: `${runSurname} ${round}` });
};

/** autocannon's request for a create of `side`, each with a body of its own. */
const createRequest = (side: Side) => ({
  method: 'POST' as const,
  path: '/patients/create/',
  headers: { cookie: side.cookie(), 'content-type': 'application/x-www-form-urlencoded' },
  setupRequest: (r: any) => ({ ...r, body: createBody(side) }),
});

type Run = {
  rps: number;
  p99: number;
  cpuUs: number;
  failed: number;
};

async function runOnce(side: Side, page: string, seconds: number): Promise<Run> {
  const before = cpuSecondsOf(side.pid);
  let requests: number, wall: number, p99: number, failed: number;
  if (page === 'create') {
    const res = await new Promise<autocannon.Result>((resolve, reject) =>
      autocannon(
        {
          url: side.base, connections: 32, duration: seconds,
          requests: [createRequest(side)],
        },
        (err, r) => (err ? reject(err) : resolve(r)),
      ),
    );
    requests = res['3xx'];
    wall = res.duration;
    p99 = res.latency.p99;
    failed = res['2xx'] + res['4xx'] + res['5xx'] + res.errors + res.timeouts;
  } else {
    const w = await runWrk(side.base, pathsOf(page), { seconds, connections: 32, headers: { cookie: side.cookie() }, expect: 200 });
    requests = w.expected;
    wall = w.seconds;
    p99 = w.p99Ms;
    failed = w.requests - w.expected + w.errors;
  }
  await new Promise((r) => setTimeout(r, 500));
  return { rps: requests / wall, p99, cpuUs: ((cpuSecondsOf(side.pid) - before) * 1e6) / Math.max(1, requests), failed };
}

type Count = {
  instructions: number;
  bytes: number;
  failed: number;
  /** collections inside the counted window */
  scavenges: number;
  majors: number;
};

type GcReport = { signals: number; window: { minor: number; major: number; other: number } };

/**
 * Asks the server's preload (bench/gc-preload.cjs) for the collections counted since the previous call (with
 * --collect, after two full collections); resolves once it has answered.
 */
async function collect(pid: number): Promise<GcReport['window']> {
  const file = path.join(GC_DIR, `gc-${pid}.json`);
  const read = (): GcReport | null => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as GcReport;
    } catch {
      return null;
    }
  };
  const before = read()?.signals ?? 0;
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 600_000;
  for (;;) {
    const now = read();
    if (now !== null && now.signals > before) return now.window;
    if (Date.now() > deadline) fail(`process ${pid} did not answer SIGUSR2: was it started with bench/gc-preload.cjs?`);
    await sleep(200);
  }
}

/** `amount` requests of one page, 4 at a time: the responses expected, the others, and the bytes received. */
async function load(side: Side, page: string, amount: number): Promise<{ answered: number; failed: number; bytes: number }> {
  const request =
    page === 'create'
      ? createRequest(side)
      : { method: 'GET' as const, path: draw(page), headers: { cookie: side.cookie() }, ...(page.includes('{') ? { setupRequest: (r: any) => ({ ...r, path: draw(page) }) } : {}) };
  const res = await new Promise<autocannon.Result>((resolve, reject) =>
    autocannon({ url: side.base, connections: 4, amount, timeout: 120, requests: [request] }, (err, r) => (err ? reject(err) : resolve(r))),
  );
  const answered = page === 'create' ? res['3xx'] : res['2xx'];
  return { answered, failed: res.requests.total - answered + res.errors + res.timeouts, bytes: res.throughput.total };
}

async function countOnce(side: Side, page: string, requests: number, warmUp: number): Promise<Count> {
  const warm = warmUp > 0 ? await load(side, page, warmUp) : { failed: 0 };
  await sleep(1000);
  await collect(side.pid);
  callgrindControl(side.pid, '--zero');
  const counted = await load(side, page, requests);
  // Read at once: an idle server's timers would be counted too. (The audit writer's thread records the views a
  // moment after they are served: at most its last group is left out.)
  const total = instructionsOf(side.pid);
  if (profile) callgrindControl(side.pid, `--dump=${page}`);
  const gc = await collect(side.pid);
  return {
    instructions: total / Math.max(1, counted.answered),
    bytes: counted.bytes / Math.max(1, counted.answered),
    failed: warm.failed + counted.failed,
    scavenges: gc.minor,
    majors: gc.major,
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
      rounds: { type: 'string' },
      duration: { type: 'string', default: '4' },
      only: { type: 'string' },
      instructions: { type: 'boolean', default: false },
      requests: { type: 'string', default: '300' },
      'warm-up': { type: 'string' },
      profile: { type: 'boolean', default: false },
      collect: { type: 'boolean', default: false },
      ids: { type: 'string' },
    },
  });
  if (args.ids !== undefined) idsUpTo = Number(args.ids);
  profile = args.profile;
  collectFirst = args.collect;
  if (!args.base) fail('Uso: npm run bench:compare -- --base DIR [--base-database URL] [--database URL] [--rounds N] [--duration S] [--only a,b] [--instructions [--requests N] [--warm-up N]]');
  const url = databaseUrlFrom(args.database);
  const baseUrl = args['base-database'] ?? url;
  if (baseUrl === url) fail('the base needs a database of its own (--base-database): creates write to it, and its schema may differ');
  const instructions = args.instructions;
  // Counted rounds are slow; two by default. They still move with the garbage collector (decision 0053): pass more.
  const rounds = Number(args.rounds ?? (instructions ? 2 : 5));
  const seconds = Number(args.duration);
  const requests = Number(args.requests);
  const warmUp = Number(args['warm-up'] ?? 2 * requests);
  if (!Number.isInteger(warmUp) || warmUp < 0) fail('--warm-up: a number of requests, 0 or more');
  const pages = args.only ? args.only.split(',') : PAGES;
  const sides = [await start('base', path.resolve(args.base), baseUrl, instructions), await start('this', ROOT, url, instructions)];
  // What each run measures, and how its columns print.
  const columns: { key: string; title: string; digits: number }[] = instructions
    ? [
        { key: 'instructions', title: 'instructions/req', digits: 0 },
        { key: 'bytes', title: 'bytes/response', digits: 0 },
        { key: 'scavenges', title: 'scavenges', digits: 0 },
        { key: 'majors', title: 'major GCs', digits: 0 },
      ]
    : [
        { key: 'rps', title: 'req/s', digits: 0 },
        { key: 'cpuUs', title: 'cpu µs/req', digits: 0 },
        { key: 'p99', title: 'p99 ms', digits: 1 },
      ];
  // Counted runs warm up before a page's first round only: later rounds find it warm.
  const measure = (side: Side, page: string, round: number): Promise<Record<string, number>> =>
    instructions ? countOnce(side, page, requests, round === 0 ? warmUp : 0) : runOnce(side, page, seconds);
  const runs: Record<string, Record<Side['label'], Record<string, number>[]>> = {};
  let failures = 0;
  try {
    console.log(`${'page'.padEnd(44)} ${columns.map((c) => `${c.title} base → this`.padStart(36)).join(' ')}`);
    for (const page of pages) {
      runs[page] = { base: [], this: [] };
      if (page !== 'create' && !instructions) for (const side of sides) await runOnce(side, page, 1);
      for (let r = 0; r < rounds; r++) {
        for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
          const run = await measure(side, page, r);
          failures += run.failed!;
          runs[page][side.label].push(run);
          if (instructions) console.log(`  round ${r + 1} ${side.label}: ${Math.round(run.instructions!)} instructions/req, ${run.scavenges} scavenges, ${run.majors} major GCs`);
        }
      }
      const m = (label: Side['label'], key: string) => median(runs[page]![label].map((x) => x[key]!));
      const pct = (a: number, b: number) => (a === 0 ? '' : `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)} %`);
      const cells = columns.map((c) => {
        const [a, b] = [m('base', c.key), m('this', c.key)];
        return `${a.toFixed(c.digits)} → ${b.toFixed(c.digits)} ${pct(a, b).padStart(9)}`.padStart(36);
      });
      console.log(`${page.padEnd(44)} ${cells.join(' ')}`);
    }
  } finally {
    for (const side of sides) await side.stop();
    rmSync(GC_DIR, { recursive: true, force: true });
  }
  const out = path.join(ROOT, 'bench', 'results', `${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}-compare${instructions ? '-instructions' : ''}.json`);
  // A base unpacked from an archive (git archive) is no repository: its commit is then unknown here.
  const commitOf = (dir: string) => {
    try {
      return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'unknown';
    }
  };
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), base: commitOf(path.resolve(args.base)), this: commitOf(ROOT), rounds, ...(instructions ? { requests } : { seconds }), runs }, null, 2));
  console.log(`medians of ${rounds} runs each, alternated; every run in ${path.relative(ROOT, out)}`);
  if (failures > 0) fail(`${failures} requests failed or answered an unexpected status`);
}

await main();
