// npm run bench [-- --database URL] [--duration S] [--connections N] [--warmup S] [--quick] [--only a,b]
//                  [--compare-small] [--small-database URL] [--label NAME] [--load-generator auto|autocannon] [--wrk-threads N]
//
// The uncached scenarios lead (bench/uncached.ts, issue 30): requests spread over the whole data (random patients,
// random pages of each list, thousands of distinct searches) and the clinic-day mix beside the mixed writer at 5
// changes a second; each prints the kept pages' hit rate during its run (`--only uncached`; `--only kept` for the
// fixed-URL scenarios, the kept figures). The agenda's scenarios follow them (bench/agenda.ts, issue 28: the day, the
// week, the worklists, booking under the mixed load; `--only agenda`). PostgreSQL: `--database postgres://…` (or DATABASE_URL).
//
// Starts the application in production mode (one process) on a database made by `npm run bench:data`, logs in
// as 'bench', drives each scenario with wrk (GETs of one path or of a list of paths in turn, when Debian's wrk is
// installed; bench/wrk.ts) or autocannon (everything else, or all with --load-generator autocannon), measures the
// server's CPU per request, samples the server's RSS, prints one table, then the mixed scenario (every read page
// while another client writes at 5 and at 20 changes a second: bench/mixed.ts, one table per rate; `--only mixed`
// runs it alone, `--only mixed,dashboard` for the pages named only), the month's RIPS page and file with /healthz
// asked meanwhile (bench/rips.ts, `--only rips`), and writes the figures to
// bench/results/<date>-<engine>.json. Exits non-zero when any request failed.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { Kysely } from 'kysely';
import { engineOf, openDatabase, type Engine } from '../src/db/connection.js';
import type { MemoryReport } from '../src/platform/memory.js';
import { agendaScenarios, BookingWriter, loadAgendaData, type BookingTally } from './agenda.js';
import { BENCH_PASSWORD, BENCH_USERNAME, countRows, databaseUrlFrom, displayUrl, fail, formatInt } from './common.js';
import { MIXED_RATES, MixedWriter, mixedReads, tallyBetween, type WriteTally } from './mixed.js';
import { failedNovedades, printNovedades, runNovedades, type NovedadesResult } from './novedades.js';
import { failedRips, fillRipsFacts, printRips, runRips, type RipsResult } from './rips.js';
import { loadFixtures, scenarios, type Scenario, type Target } from './scenarios.js';
import { cpuSecondsOf, RssSampler, Session, startServer, type RunningServer } from './server.js';
import { loadWholeData, uncachedScenarios } from './uncached.js';
import { runWrk, wrkAvailable } from './wrk.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = path.join(ROOT, 'bench', 'results');
const MB = 1024 * 1024;

/** The server's own time over the requests since the last call (bench/server-time.cjs), or null if it does not say. */
async function serverTime(base: string): Promise<{ p50: number; p99: number } | null> {
  try {
    const res = await fetch(`${base}/__bench/server-time`);
    const body = (await res.json()) as { p50: number | null; p99: number | null };
    return res.ok && body.p50 !== null && body.p99 !== null ? { p50: body.p50, p99: body.p99 } : null;
  } catch {
    return null;
  }
}

const USAGE =
  'Uso: npm run bench -- [--database URL] [--duration S] [--connections N] [--warmup S] [--quick] [--only a,b] ' +
  '[--compare-small] [--small-database URL] [--label NAME] [--load-generator auto|autocannon] [--wrk-threads N]';

// ---------------------------------------------------------------------------------------------------------
// Scenarios

export interface ScenarioResult {
  key: string;
  name: string;
  status: 'ok' | 'n/a' | 'failed';
  note?: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** responses outside 2xx/3xx */
  bad: number;
  /** responses in 2xx/3xx but not the status the scenario expects (e.g. a 302 to the login page) */
  unexpected: number;
  statusCodes: Record<string, number>;
  peakRssMb: number;
  /** the server's CPU time (all threads) per answered request during the measured run, in µs */
  cpuUsPerRequest: number;
  /** what generated the load: 'wrk' or 'autocannon' */
  generator: string;
  /**
   * The server's own time over a request (its median and p99, in ms; bench/server-time.cjs), from the parsed request
   * to its answer: the clients' p50 and p99 add the wait in the server's queue and their own scheduling.
   */
  serverP50?: number;
  serverP99?: number;
  /** the kept pages' hits over every kept page requested during the measured run (null: the server does not say) */
  hitRate?: number | null;
  /** where the server's memory was after the run (GET /healthz/memory; absent when the server does not say) */
  memory?: ServerMemory;
  /** the server's peak RSS from its start to the end of this scenario (its warm-up included), in MB */
  peakSoFarMb?: number;
  /** the mixed writer's changes during the run (the clinic-day mix) */
  writes?: WriteTally;
  /** the bookings made beside it (booking under the mixed load) */
  bookings?: BookingTally;
  target: Target;
  misses: string[];
}

interface CapitaResult {
  status: 'ok' | 'n/a' | 'failed';
  note?: string;
  downloads: number;
  rows: number;
  bytes: number;
  maxSeconds: number;
  rssGrowthMb: number;
  misses: string[];
}

const failedCapita: CapitaResult = { status: 'failed', downloads: 0, rows: 0, bytes: 0, maxSeconds: 0, rssGrowthMb: 0, misses: [] };

interface Options {
  duration: number;
  connections: number;
  warmup: number;
  capitaDownloads: number;
  /** wrk for the scenarios that GET fixed paths (when installed), autocannon for the rest */
  generator: 'auto' | 'autocannon';
  /** wrk's threads (decision 0320: on two cores shared with the server, one thread adds less of its own to a p99) */
  wrkThreads: number;
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** One autocannon run; latencies are taken from each response (autocannon's histogram keeps whole ms only). */
async function cannon(
  base: string,
  session: Session,
  scenario: Scenario,
  opts: { seconds: number; connections: number; amount?: number; beforeDrain?: () => Promise<void> },
): Promise<{ latencies: number[]; codes: Record<string, number>; errors: number; seconds: number; sent: number }> {
  const latencies: number[] = [];
  let sent = 0;
  const codes: Record<string, number> = {};
  const headers = { cookie: session.cookieHeader() };
  const started = performance.now();
  let errors = 0;
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        // A pool smaller than the connections: one request a connection (autocannon reads 0 as "no limit").
        connections: opts.amount !== undefined ? Math.max(1, Math.min(opts.connections, opts.amount)) : opts.connections,
        duration: opts.seconds,
        ...(opts.amount !== undefined ? { amount: opts.amount } : {}),
        timeout: 10,
        headers,
        setupClient: (client: any) => client.on('request', () => sent++),
        requests: scenario.getPaths?.length === 1 ? [{ method: 'GET', path: scenario.getPaths[0]! }] : [
          {
            setupRequest: (req: any) => {
              const r = scenario.next();
              req.method = r.method;
              req.path = r.path;
              if (r.body !== undefined) {
                req.body = r.body;
                req.headers = { ...headers, 'content-type': 'application/x-www-form-urlencoded' };
              }
              return req;
            },
          },
        ],
      },
      (err) => (err ? reject(err) : resolve()),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      codes[statusCode] = (codes[statusCode] ?? 0) + 1;
    });
    instance.on('reqError', () => errors++);
    if (opts.amount !== undefined) setTimeout(() => instance.stop(), opts.seconds * 1000).unref();
  });
  const seconds = (performance.now() - started) / 1000;
  await opts.beforeDrain?.();
  await drain(base);
  return { latencies, codes, errors, seconds, sent };
}

type LoadRun = Awaited<ReturnType<typeof cannon>> & { p50?: number; p99?: number; generator: string };

/** One run of load: wrk where it can serve (GETs of fixed paths, wrk installed), else autocannon. */
async function load(
  base: string,
  session: Session,
  scenario: Scenario,
  opts: { seconds: number; connections: number; amount?: number; generator: Options['generator']; wrkThreads: number; beforeDrain?: () => Promise<void> },
): Promise<LoadRun> {
  const paths = scenario.paths?.() ?? scenario.getPaths;
  if (opts.generator === 'auto' && paths !== undefined && opts.amount === undefined && useWrk()) {
    const run = await runWrk(base, paths, { seconds: opts.seconds, connections: opts.connections, threads: opts.wrkThreads, headers: { cookie: session.cookieHeader() }, expect: scenario.expect });
    await opts.beforeDrain?.();
    await drain(base);
    const codes: Record<string, number> = { ...run.others };
    if (run.expected > 0) codes[String(scenario.expect)] = run.expected;
    // wrk keeps a latency histogram, not each answer: its percentiles stand in for the list of latencies.
    return { latencies: [], codes, errors: run.errors, seconds: run.seconds, sent: run.requests, p50: run.p50Ms, p99: run.p99Ms, generator: 'wrk' };
  }
  return { ...(await cannon(base, session, scenario, opts)), generator: 'autocannon' };
}

let wrkHere: boolean | null = null;
const useWrk = () => (wrkHere ??= wrkAvailable());

/**
 * autocannon stops at the deadline without waiting for the answers still on their way, and the server keeps
 * working through that backlog: wait until /healthz answers promptly again before anything is counted in the
 * database or the next scenario starts.
 */
async function drain(base: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const started = performance.now();
    await fetch(`${base}/healthz`).then((r) => r.arrayBuffer()).catch(() => undefined);
    if (performance.now() - started < 20) break;
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
}

/** The server's kept-page hits and renders so far (GET /healthz/cache); null when this server does not say. */
async function cacheCounts(session: Session): Promise<{ hits: number; misses: number } | null> {
  try {
    const res = await session.request('GET', '/healthz/cache');
    if (res.status !== 200) return null;
    const c = JSON.parse(res.body) as { hits?: unknown; misses?: unknown };
    return typeof c.hits === 'number' && typeof c.misses === 'number' ? { hits: c.hits, misses: c.misses } : null;
  } catch {
    return null;
  }
}

/** Where the server's memory is (GET /healthz/memory, decision 0250), in bytes; undefined when this server does not say. */
type ServerMemory = MemoryReport;

async function serverMemory(session: Session): Promise<ServerMemory | undefined> {
  try {
    const res = await session.request('GET', '/healthz/memory');
    return res.status === 200 ? (JSON.parse(res.body) as ServerMemory) : undefined;
  } catch {
    return undefined;
  }
}

/** After each scenario, where the server's memory was: the RSS, V8's heap, external buffers and each cache's bytes. */
function printMemory(results: ScenarioResult[]): void {
  const measured = results.filter((r) => r.memory !== undefined);
  if (measured.length === 0) return;
  const mb = (n: number | undefined) => (n === undefined ? '' : (n / MB).toFixed(1));
  const w = Math.max(24, ...measured.map((r) => r.name.length)) + 1;
  const line = `${cell('after scenario', w)} ${cell('peak', 6, true)} ${cell('so far', 6, true)} ${cell('rss', 6, true)} ${cell('heap', 6, true)} ${cell('used', 6, true)} ${cell('new', 5, true)} ${cell('extern', 6, true)} ${cell('pages', 6, true)} ${cell('hist', 5, true)} ${cell('rest', 6, true)}`;
  console.log(`\nMemory after each scenario (MB; peak: RSS sampled during the measured run; so far: since the server started, warm-ups included; heap: V8's committed, used; new: the young generation; pages, hist: the kept pages' and the patient histories' counted bytes; rest: RSS − heap − external, i.e. code, stacks, SQLite and malloc)\n${line}\n${'-'.repeat(line.length)}`);
  for (const r of measured) {
    const m = r.memory!;
    const pages = Object.entries(m.kept).filter(([k]) => k !== 'patient history').reduce((n, [, v]) => n + v, 0);
    console.log(
      `${cell(r.name, w)} ${cell(r.peakRssMb.toFixed(0), 6, true)} ${cell(r.peakSoFarMb?.toFixed(0) ?? '', 6, true)} ${cell(mb(m.rss), 6, true)} ${cell(mb(m.heapTotal), 6, true)} ${cell(mb(m.heapUsed), 6, true)} ${cell(mb(m.spaces['new_space']?.size), 5, true)} ${cell(mb(m.external), 6, true)} ${cell(mb(pages), 6, true)} ${cell(mb(m.kept['patient history']), 5, true)} ${cell(mb(m.rss - m.heapTotal - m.external), 6, true)}`,
    );
  }
  const last = measured[measured.length - 1]!.memory!;
  const byPage = Object.entries(last.kept).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${mb(v)}`).join(', ');
  console.log(`kept at the end (MB): ${byPage || 'nothing'}`);
}

/** Each path asked twice, a few at a time (the second time after the first answered). */
async function askedTwice(session: Session, paths: readonly string[]): Promise<void> {
  const distinct = [...new Set(paths)];
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < distinct.length; i += 8) await Promise.all(distinct.slice(i, i + 8).map((path) => session.request('GET', path)));
  }
}

/**
 * Clients writing beside a scenario's reads (the mixed writer, the desk's bookings). They write during the warm-up and
 * the measured run, and pause while the server drains what wrk or autocannon left (a drain waits until /healthz
 * answers promptly, which writes that saturate the server never let happen: a drain then lasted its whole 120 s, with
 * their writes counted). `measured` notes the writes of the measured run: from its start to the answers of the
 * writes sent within it.
 */
interface Beside {
  pause(): Promise<void>;
  resume(): void;
  measured(edge: 'start' | 'end'): void;
}

async function runScenario(
  server: RunningServer,
  session: Session,
  rss: RssSampler,
  s: Scenario,
  o: Options,
  beside?: Beside,
): Promise<ScenarioResult> {
  const empty = { requests: 0, rps: 0, p50: 0, p99: 0, errors: 0, bad: 0, unexpected: 0, statusCodes: {}, peakRssMb: 0, cpuUsPerRequest: 0, generator: '', target: s.target, misses: [] };
  const why = await s.before?.();
  if (why) return { key: s.key, name: s.name, status: 'n/a', note: why, ...empty };
  // Probe: one request shows whether the route exists yet and answers as it should.
  const probe = s.next();
  const res = await session.request(probe.method, probe.path, probe.body ? Object.fromEntries(new URLSearchParams(probe.body)) : undefined);
  let probed302 = 0;
  if (res.status === 404) return { key: s.key, name: s.name, status: 'n/a', note: 'route missing (404)', ...empty };
  if (res.status === 405) return { key: s.key, name: s.name, status: 'n/a', note: 'route missing (405)', ...empty };
  if (res.status !== s.expect) {
    const where = res.location ? ` → ${res.location}` : '';
    return { key: s.key, name: s.name, status: 'failed', note: `probe answered ${res.status}${where}, expected ${s.expect}`, ...empty, errors: 1 };
  }
  if (res.status === 302) probed302++;

  const amount = s.amount?.();
  let warm = { codes: {} as Record<string, number>, sent: 0 };
  if (s.warmup !== false && o.warmup > 0) {
    // A kept scenario's pages asked twice each first: a page is kept from its second render in a while (decision
    // 0375), so every one of them is kept when the run starts however long the warm-up.
    if (s.getPaths && !s.uncached && s.expect === 200) await askedTwice(session, s.getPaths);
    const warmAmount = amount !== undefined ? Math.floor(amount / 10) : undefined;
    if (warmAmount === undefined || warmAmount > 0) {
      warm = await load(server.base, session, s, { seconds: o.warmup, connections: o.connections, generator: o.generator, wrkThreads: o.wrkThreads, ...(warmAmount !== undefined ? { amount: warmAmount } : {}), ...(beside ? { beforeDrain: () => beside.pause() } : {}) });
      beside?.resume();
    }
  }
  const left = amount !== undefined ? amount - Object.values(warm.codes).reduce((a, b) => a + b, 0) : undefined;
  rss.mark();
  const cacheBefore = await cacheCounts(session);
  const cpuBefore = cpuSecondsOf(server.pid);
  await serverTime(server.base);
  beside?.measured('start');
  const endOfRun = async () => {
    if (!beside) return;
    await beside.pause();
    beside.measured('end');
  };
  const run: LoadRun =
    left !== undefined && left <= 0
      ? { latencies: [], codes: {}, errors: 0, seconds: 1, sent: 0, generator: 'autocannon' }
      : await load(server.base, session, s, { seconds: o.duration, connections: o.connections, generator: o.generator, wrkThreads: o.wrkThreads, ...(left !== undefined ? { amount: left } : {}), beforeDrain: endOfRun });
  // A run that sent nothing drained nothing: its writers are paused and counted here.
  if (left !== undefined && left <= 0) await endOfRun();
  // The drain after the run is counted too: it is the server finishing the requests of the run.
  const cpuSeconds = cpuSecondsOf(server.pid) - cpuBefore;
  const own = await serverTime(server.base);
  const peakRssMb = rss.sincePeak / MB;
  const cacheAfter = await cacheCounts(session);
  const memory = await serverMemory(session);
  const kept = cacheBefore && cacheAfter ? cacheAfter.hits - cacheBefore.hits + (cacheAfter.misses - cacheBefore.misses) : 0;
  const hitRate = cacheBefore && cacheAfter && kept > 0 ? (cacheAfter.hits - cacheBefore.hits) / kept : null;

  const sorted = [...run.latencies].sort((a, b) => a - b);
  const answered = run.generator === 'wrk' ? run.sent : sorted.length;
  let bad = 0;
  let unexpected = 0;
  for (const [code, n] of Object.entries(run.codes)) {
    const c = Number(code);
    if (c < 200 || c >= 400) bad += n;
    else if (c !== s.expect) unexpected += n;
  }
  for (const [code, n] of Object.entries(warm.codes)) {
    const c = Number(code);
    if (c < 200 || c >= 400) bad += n;
    else if (c !== s.expect) unexpected += n;
  }
  const result: ScenarioResult = {
    key: s.key,
    name: s.name,
    status: 'ok',
    requests: answered,
    rps: round(answered / run.seconds, 0),
    p50: round(run.p50 ?? percentile(sorted, 50), 2),
    p99: round(run.p99 ?? percentile(sorted, 99), 2),
    errors: run.errors,
    bad,
    unexpected,
    statusCodes: run.codes,
    peakRssMb: round(peakRssMb, 1),
    cpuUsPerRequest: answered > 0 ? round((cpuSeconds * 1e6) / answered, 0) : 0,
    ...(own ? { serverP50: round(own.p50, 2), serverP99: round(own.p99, 2) } : {}),
    generator: run.generator,
    hitRate,
    ...(memory ? { memory } : {}),
    target: s.target,
    misses: [],
  };
  if (s.verify && s.expect === 302) {
    const ok302 = probed302 + (warm.codes['302'] ?? 0) + (run.codes['302'] ?? 0);
    const answeredOther = [warm.codes, run.codes].reduce((n, codes) => n + Object.entries(codes).reduce((m, [c, k]) => m + (c === '302' ? 0 : k), 0), 0);
    const problem = await s.verify(ok302, probed302 + warm.sent + run.sent - answeredOther);
    if (problem) {
      result.note = problem;
      result.errors += 1;
    }
  }
  if (result.errors > 0 || result.bad > 0 || result.unexpected > 0) {
    result.status = 'failed';
    result.note ??= `${result.errors} connection errors/timeouts (10 s), statuses ${JSON.stringify({ ...warm.codes, ...run.codes })}`;
  }
  if (result.requests === 0) result.misses.push(`no response completed within ${o.duration} s`);
  if (s.target.p99 !== undefined && result.p99 > s.target.p99) result.misses.push(`p99 ${result.p99} ms > ${s.target.p99} ms`);
  if (s.target.rps !== undefined && result.rps < s.target.rps) result.misses.push(`${result.rps} req/s < ${s.target.rps}`);
  return result;
}

/** Full downloads of the month's capitation CSV, one after another: time of each, RSS growth of the server. */
async function runCapita(session: Session, rss: RssSampler, month: string, downloads: number): Promise<CapitaResult> {
  const url = `/dashboard/capita.csv?mes=${month}`;
  const result: CapitaResult = { status: 'ok', downloads: 0, rows: 0, bytes: 0, maxSeconds: 0, rssGrowthMb: 0, misses: [] };
  const baseline = rss.mark();
  for (let i = 0; i < downloads; i++) {
    const started = performance.now();
    const res = await fetch(session.base + url, { headers: { cookie: session.cookieHeader() }, redirect: 'manual' });
    if (res.status === 404) return { ...result, status: 'n/a', note: 'route missing (404)' };
    if (res.status !== 200) return { ...result, status: 'failed', note: `answered ${res.status}` };
    const body = Buffer.from(await res.arrayBuffer());
    const seconds = (performance.now() - started) / 1000;
    rss.sample();
    result.downloads++;
    result.bytes = body.length;
    result.rows = Math.max(0, body.toString('utf8').split(/\r?\n/).filter((l) => l.length > 0).length - 1);
    result.maxSeconds = round(Math.max(result.maxSeconds, seconds), 3);
  }
  result.rssGrowthMb = round((rss.sincePeak - baseline) / MB, 1);
  if (result.maxSeconds > 2) result.misses.push(`${result.maxSeconds} s > 2 s`);
  if (result.rssGrowthMb >= 50) result.misses.push(`RSS +${result.rssGrowthMb} MB ≥ 50 MB`);
  return result;
}

// ---------------------------------------------------------------------------------------------------------
// Output

const cell = (s: string, w: number, right = false) => (right ? s.padStart(w) : s.padEnd(w));

/** The kept pages' hit rate of a run, in per cent ('' when the server did not say or kept nothing). */
const hits = (r: ScenarioResult): string => (r.hitRate === null || r.hitRate === undefined ? '' : `${Math.round(r.hitRate * 100)}%`);

function printTable(title: string, results: ScenarioResult[], capita: CapitaResult | null, peakRssMb: number): void {
  const w = Math.max(24, ...results.map((r) => r.name.length)) + 1;
  const line = `${cell('scenario', w)} ${cell('req/s', 7, true)} ${cell('p50 ms', 8, true)} ${cell('p99 ms', 8, true)} ${cell('own p99', 8, true)} ${cell('cpu µs/req', 11, true)} ${cell('hits', 5, true)} ${cell('errors', 7, true)} ${cell('non-2xx/3xx', 12, true)}  target`;
  console.log(`\n${title}\n${line}\n${'-'.repeat(line.length + 20)}`);
  for (const r of results) {
    if (r.status === 'n/a') {
      console.log(`${cell(r.name, w)} n/a: ${r.note}`);
      continue;
    }
    const target = [r.target.p99 !== undefined ? `p99≤${r.target.p99}` : '', r.target.rps !== undefined ? `≥${r.target.rps}/s` : ''].filter(Boolean).join(' ');
    const verdict = r.status === 'failed' ? `FAIL ${r.note ?? ''}` : r.misses.length ? `MISS (${r.misses.join('; ')})` : target ? 'met' : '';
    const errs = r.errors + r.unexpected;
    console.log(
      `${cell(r.name, w)} ${cell(formatInt(r.rps), 7, true)} ${cell(r.requests === 0 ? '—' : r.p50.toFixed(2), 8, true)} ${cell(r.requests === 0 ? '—' : r.p99.toFixed(2), 8, true)} ${cell(r.serverP99 === undefined ? '—' : r.serverP99.toFixed(2), 8, true)} ${cell(`${formatInt(r.cpuUsPerRequest)}${r.generator === 'wrk' ? ' w' : ''}`, 11, true)} ${cell(hits(r), 5, true)} ${cell(String(errs), 7, true)} ${cell(String(r.bad), 12, true)}  ${target} ${verdict}`.trimEnd(),
    );
  }
  if (capita) {
    const name = 'capita.csv (current month)';
    if (capita.status !== 'ok') console.log(`${cell(name, w)} ${capita.status === 'n/a' ? 'n/a' : 'FAIL'}: ${capita.note}`);
    else {
      const verdict = capita.misses.length ? `MISS (${capita.misses.join('; ')})` : 'met';
      console.log(
        `${cell(name, w)} ${formatInt(capita.rows)} rows, ${(capita.bytes / MB).toFixed(1)} MB in ≤ ${capita.maxSeconds.toFixed(2)} s (of ${capita.downloads}), server RSS +${capita.rssGrowthMb} MB  target ≤2 s, <50 MB ${verdict}`,
      );
    }
  }
  if (results.some((r) => r.generator === 'wrk')) console.log('w: load from wrk (GETs of fixed paths); the rest from autocannon');
  if (results.some((r) => r.serverP99 !== undefined)) {
    console.log("own p99: the server's own time over a request, from the parsed request to its answer; p50 and p99 add the wait in its queue");
  }
  if (results.some((r) => r.hitRate !== undefined && r.hitRate !== null)) console.log('hits: requests of kept pages served from the cache during the measured run');
  for (const r of results.filter((r) => r.writes)) {
    const t = r.writes!;
    console.log(`${r.name}: ${formatInt(t.ok)} changes saved of ${formatInt(t.sent)} sent beside its measured run; ${t.failed} failed, ${t.skipped} ticks skipped (8 unanswered)`);
  }
  for (const r of results.filter((r) => r.bookings)) {
    const b = r.bookings!;
    console.log(
      `${r.name}: ${formatInt(b.ok)} visits booked of ${formatInt(b.sent)} sent beside its measured run, ${formatInt(b.overlaps)} refused as overlaps (the guard), ${b.failed} failed, ${b.skipped} ticks skipped (8 unanswered)`,
    );
  }
  console.log(`server peak RSS: ${peakRssMb.toFixed(0)} MB  target ≤250 MB ${peakRssMb <= 250 ? 'met' : 'MISS'}`);
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGb: round(os.totalmem() / 1024 ** 3, 1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
  };
}

// ---------------------------------------------------------------------------------------------------------

interface MixedOutcome {
  rate: number;
  results: ScenarioResult[];
  writes: WriteTally;
}

interface RunOutcome {
  results: ScenarioResult[];
  mixed: MixedOutcome[];
  capita: CapitaResult | null;
  /** the novedades report (issue 27): its pages and CSVs, timed */
  novedades: NovedadesResult | null;
  /** the month's RIPS page and file (issue 27), timed */
  rips: RipsResult | null;
  peakRssMb: number;
  patients: number;
}

async function benchmark(url: string, o: Options, only: Set<string> | null, listOnly: boolean, logFile: string): Promise<RunOutcome> {
  const handle = openDatabase(url, { poolSize: 2 });
  const db = handle.db as unknown as Kysely<any>;
  try {
    const f = await loadFixtures(db);
    if (f.patients === 0) fail(`${displayUrl(url)} has no patients: run npm run bench:data -- --patients N --database ${displayUrl(url)} first.`);
    const wantsRips = !listOnly && (!only || only.has('rips'));
    if (wantsRips) await fillRipsFacts(db);
    // bench/server-time.cjs: the server's own time over each request, beside the clients' latencies.
    const server = await startServer(url, logFile, { nodeFlags: ['--require', path.join(ROOT, 'bench', 'server-time.cjs')] });
    const rss = new RssSampler(server.pid);
    rss.start();
    try {
      const session = new Session(server.base);
      await session.login(BENCH_USERNAME, BENCH_PASSWORD);
      // `--only uncached` / `--only kept`: the scenarios over the whole data, or the fixed-URL ones.
      const isAgenda = (key: string) => key.startsWith('a-');
      const selected = (s: Scenario) =>
        (listOnly ? s.list === true : true) &&
        (!only || only.has(s.key) || (isAgenda(s.key) && only.has('agenda')) || (s.uncached ? only.has('uncached') : only.has('kept')));
      const wantsUncached = !listOnly && (!only || only.has('uncached') || [...only].some((k) => k.startsWith('u-')));
      const uncached = wantsUncached ? uncachedScenarios(await loadWholeData(db, session)) : [];
      const wantsAgenda = !listOnly && (!only || only.has('uncached') || only.has('agenda') || [...only].some(isAgenda));
      const agendaData = wantsAgenda ? await loadAgendaData(db, f) : null;
      const agenda = agendaData ? agendaScenarios(agendaData) : [];
      const all = [...uncached, ...agenda, ...scenarios(f, db, session)].filter(selected);
      // The clinic-day mix's writer: a second client with its own session.
      let daySession: Session | null = null;
      const results: ScenarioResult[] = [];
      let capita: CapitaResult | null = null;
      if (all.length > 0) console.log(`  server RSS before the scenarios ${(rss.sample() / MB).toFixed(0)} MB, peak so far ${(rss.peak / MB).toFixed(0)} MB`);
      for (const s of all) {
        const ended = server.exited();
        if (ended) {
          results.push({ key: s.key, name: s.name, status: 'failed', note: `the server stopped (${ended}); see ${logFile}`, requests: 0, rps: 0, p50: 0, p99: 0, errors: 1, bad: 0, unexpected: 0, statusCodes: {}, peakRssMb: 0, cpuUsPerRequest: 0, generator: '', target: s.target, misses: [] });
          continue;
        }
        if (s.key === 'create' && !listOnly && (!only || only.has('capita'))) {
          process.stdout.write('  capita.csv … ');
          capita = await runCapita(session, rss, f.today.slice(0, 7), o.capitaDownloads).catch((err: unknown) => ({ ...failedCapita, note: String(err instanceof Error ? err.message : err) }));
          console.log(capita.status === 'ok' ? `${capita.maxSeconds} s` : capita.note);
        }
        process.stdout.write(`  ${s.name} … `);
        let writer: MixedWriter | null = null;
        if (s.writes) {
          if (daySession === null) {
            daySession = new Session(server.base);
            await daySession.login(BENCH_USERNAME, BENCH_PASSWORD);
            await daySession.request('GET', '/patients/create/');
          }
          writer = new MixedWriter(daySession, f, s.writes);
          writer.start();
        }
        let booker: BookingWriter | null = null;
        if (s.bookings && agendaData) {
          // The desk's own session: its CSRF token stays that of the booking page.
          const deskSession = new Session(server.base);
          await deskSession.login(BENCH_USERNAME, BENCH_PASSWORD);
          await deskSession.request('GET', `/agenda/citas/nueva/?patient_id=${agendaData.patients[0]}`);
          booker = new BookingWriter(deskSession, agendaData, s.bookings);
          booker.start();
        }
        // The writes and bookings counted are those of the measured run (its start to the answers of what it sent).
        const window: Partial<Record<'start' | 'end', { writes: WriteTally | null; bookings: BookingTally | null }>> = {};
        const writers = [writer, booker].filter((w) => w !== null);
        const beside: Beside | undefined =
          writers.length === 0
            ? undefined
            : {
                pause: async () => {
                  await Promise.all(writers.map((w) => w.stop()));
                },
                resume: () => writers.forEach((w) => w.start()),
                measured: (edge) => {
                  window[edge] = { writes: writer?.current() ?? null, bookings: booker?.current() ?? null };
                },
              };
        const r = await runScenario(server, session, rss, s, o, beside).catch((err: unknown): ScenarioResult => ({
          key: s.key,
          name: s.name,
          status: 'failed',
          note: server.exited() ? `the server stopped (${server.exited()}); see ${logFile}` : String(err instanceof Error ? err.message : err),
          requests: 0, rps: 0, p50: 0, p99: 0, errors: 1, bad: 0, unexpected: 0, statusCodes: {}, peakRssMb: 0, cpuUsPerRequest: 0, generator: '', target: s.target, misses: [],
        }));
        r.peakSoFarMb = round(rss.peak / MB, 1);
        // Any failure from the writers' start to their stop fails the scenario; the figures printed are the run's.
        if (writer) {
          const total = await writer.stop();
          const [start, end] = [window.start?.writes, window.end?.writes];
          r.writes = start && end ? tallyBetween(start, end) : total;
          if (total.failed > 0) {
            r.status = 'failed';
            r.note = `${total.failed} writes failed: ${total.failures.join('; ')}`;
          }
        }
        if (booker) {
          const total = await booker.stop();
          const [start, end] = [window.start?.bookings, window.end?.bookings];
          r.bookings = start && end ? tallyBetween(start, end) : total;
          if (total.failed > 0) {
            r.status = 'failed';
            r.note = `${total.failed} bookings failed: ${total.failures.join('; ')}`;
          }
        }
        results.push(r);
        console.log(r.status === 'n/a' ? `n/a: ${r.note}` : `${formatInt(r.rps)} req/s, p99 ${r.p99} ms, hits ${hits(r) || '-'}${r.status === 'failed' ? ` FAIL ${r.note ?? ''}` : ''}`);
      }
      if (!capita && !listOnly && (!only || only.has('capita'))) {
        capita = await runCapita(session, rss, f.today.slice(0, 7), o.capitaDownloads).catch((err: unknown) => ({ ...failedCapita, note: String(err instanceof Error ? err.message : err) }));
      }
      // The month's enrolment report per insurer (issue 27): `--only novedades` runs it alone.
      let novedades: NovedadesResult | null = null;
      if (!listOnly && (!only || only.has('novedades'))) {
        process.stdout.write('  novedades … ');
        novedades = await runNovedades(session, rss, f.today).catch((err: unknown) => failedNovedades(String(err instanceof Error ? err.message : err)));
        console.log(novedades.status === 'ok' ? `${novedades.maxSeconds} s` : novedades.note);
      }
      // The month's RIPS page and file (issue 27): `--only rips` runs it alone.
      let rips: RipsResult | null = null;
      if (wantsRips) {
        process.stdout.write('  rips … ');
        rips = await runRips(session, rss, server.pid, f.today).catch((err: unknown) => failedRips(String(err instanceof Error ? err.message : err)));
        console.log(rips.status === 'ok' ? rips.timings.map((t) => `${t.what} ${t.seconds} s`).join(', ') : rips.note);
      }
      // The mixed scenario: each read page again while a second client (its own session) writes at each rate.
      const mixed: MixedOutcome[] = [];
      if (!listOnly && (!only || only.has('mixed'))) {
        const writerSession = new Session(server.base);
        await writerSession.login(BENCH_USERNAME, BENCH_PASSWORD);
        await writerSession.request('GET', '/patients/create/');
        // `--only mixed,dashboard`: the mixed scenario of the read pages named only.
        const reads = scenarios(f, db, session).filter((s, _, all) => !only || !all.some((r) => only.has(r.key)) || only.has(s.key));
        for (const rate of MIXED_RATES) {
          const writer = new MixedWriter(writerSession, f, rate);
          const outcome: MixedOutcome = { rate, results: [], writes: { rate, sent: 0, ok: 0, failed: 0, skipped: 0, byKind: {}, failures: [] } };
          for (const s of mixedReads(reads, rate)) {
            process.stdout.write(`  ${s.name} under ${rate} writes/s … `);
            writer.start();
            const r = await runScenario(server, session, rss, s, o).catch((err: unknown): ScenarioResult => ({
              key: s.key, name: s.name, status: 'failed', note: String(err instanceof Error ? err.message : err),
              requests: 0, rps: 0, p50: 0, p99: 0, errors: 1, bad: 0, unexpected: 0, statusCodes: {}, peakRssMb: 0, cpuUsPerRequest: 0, generator: '', target: s.target, misses: [],
            }));
            outcome.writes = await writer.stop();
            outcome.results.push(r);
            console.log(`${formatInt(r.rps)} req/s, p99 ${r.p99} ms${r.status === 'failed' ? ` FAIL ${r.note ?? ''}` : ''}`);
          }
          if (outcome.writes.failed > 0) outcome.results.push({ key: `mixed${rate}-writes`, name: `writes at ${rate}/s`, status: 'failed', note: `${outcome.writes.failed} writes failed: ${outcome.writes.failures.join('; ')}`, requests: outcome.writes.sent, rps: 0, p50: 0, p99: 0, errors: outcome.writes.failed, bad: 0, unexpected: 0, statusCodes: {}, peakRssMb: 0, cpuUsPerRequest: 0, generator: '', target: {}, misses: [] });
          mixed.push(outcome);
        }
      }
      rss.stop();
      return { results, mixed, capita, novedades, rips, peakRssMb: round(rss.peak / MB, 1), patients: f.patients };
    } finally {
      rss.stop();
      await server.stop();
    }
  } finally {
    await handle.close();
  }
}

/** The 1,000-patient database of --compare-small: generated once, next to the big one. */
async function ensureSmallDatabase(url: string): Promise<void> {
  const handle = openDatabase(url, { poolSize: 1 });
  let patients = 0;
  try {
    patients = await countRows(handle.db as unknown as Kysely<any>, 'patients').catch(() => 0);
  } finally {
    await handle.close();
  }
  if (patients > 0) return;
  console.log(`Generating 1,000 patients in ${displayUrl(url)} for the comparison…`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/generate.ts', '--patients', '1000', '--database', url], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) fail('could not generate the small database');
}

function smallUrlFor(url: string, engine: Engine): string {
  if (engine === 'sqlite') {
    const file = url.slice('sqlite:'.length);
    const ext = path.extname(file);
    return `sqlite:${file.slice(0, file.length - ext.length)}-small${ext || '.sqlite'}`;
  }
  const u = new URL(url);
  u.pathname = `${u.pathname}_small`;
  return u.toString();
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: {
        database: { type: 'string' },
        duration: { type: 'string' },
        connections: { type: 'string', default: '32' },
        warmup: { type: 'string' },
        quick: { type: 'boolean', default: false },
        only: { type: 'string' },
        'compare-small': { type: 'boolean', default: false },
        'small-database': { type: 'string' },
        label: { type: 'string' },
        'load-generator': { type: 'string', default: 'auto' },
        'wrk-threads': { type: 'string', default: '1' },
      },
      strict: true,
    }).values;
  } catch (err) {
    fail(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  }
  const quick = args.quick ?? false;
  const o: Options = {
    duration: Number(args.duration ?? (quick ? 2 : 10)),
    connections: Number(args.connections),
    warmup: Number(args.warmup ?? (quick ? 0.5 : 2)),
    capitaDownloads: quick ? 1 : 3,
    generator: args['load-generator'] === 'autocannon' ? 'autocannon' : 'auto',
    wrkThreads: Number(args['wrk-threads']),
  };
  if (args['load-generator'] !== 'auto' && args['load-generator'] !== 'autocannon') fail(USAGE);
  if (!(o.duration > 0) || !(o.connections >= 1) || !(o.warmup >= 0) || !Number.isInteger(o.wrkThreads) || o.wrkThreads < 1 || o.wrkThreads > o.connections) fail(USAGE);
  const url = databaseUrlFrom(args.database);
  const engine = engineOf(url);
  const only = args.only ? new Set(args.only.split(',').map((s) => s.trim())) : null;
  mkdirSync(RESULTS, { recursive: true });
  const stamp = new Date().toISOString().slice(0, 19).replace(/:/g, '-');
  const fileBase = `${stamp}-${engine}${args.label ? `-${args.label}` : ''}`;

  console.log(`Benchmark on ${displayUrl(url)} (${engine}): ${o.connections} connections, ${o.duration} s a scenario after ${o.warmup} s warm-up`);
  const main = await benchmark(url, o, only, false, path.join(RESULTS, `${fileBase}-server.log`));
  printTable(`Results, ${engine}, ${formatInt(main.patients)} patients`, main.results, main.capita, main.peakRssMb);
  printMemory(main.results);
  if (main.novedades) printNovedades(main.novedades);
  if (main.rips) printRips(main.rips);
  for (const m of main.mixed) {
    printTable(`Mixed: the read pages while a client writes ${m.rate} changes/s (${engine}, ${formatInt(main.patients)} patients)`, m.results, null, main.peakRssMb);
    const kinds = Object.entries(m.writes.byKind).map(([k, n]) => `${k} ${formatInt(n)}`).join(', ');
    console.log(`writes: ${formatInt(m.writes.ok)} saved of ${formatInt(m.writes.sent)} sent (${kinds}); ${m.writes.failed} failed; ${m.writes.skipped} ticks skipped (8 unanswered)`);
  }

  let comparison: { patients: number; results: ScenarioResult[]; ratios: Record<string, number> } | null = null;
  if (args['compare-small']) {
    const smallUrl = args['small-database'] ?? smallUrlFor(url, engine);
    await ensureSmallDatabase(smallUrl);
    console.log(`\nList scenarios on ${displayUrl(smallUrl)}:`);
    const small = await benchmark(smallUrl, o, only, true, path.join(RESULTS, `${fileBase}-small-server.log`));
    const ratios: Record<string, number> = {};
    console.log(`\np50 at ${formatInt(main.patients)} patients / p50 at ${formatInt(small.patients)} (target ≤ 1.5)`);
    for (const s of small.results) {
      const big = main.results.find((r) => r.key === s.key);
      // Failed runs count too when they measured something: a timeout at 100,000 is exactly what this compares.
      if (!big || big.requests === 0 || s.requests === 0 || s.p50 === 0) continue;
      const ratio = round(big.p50 / s.p50, 2);
      ratios[s.key] = ratio;
      big.misses.push(...(ratio > 1.5 ? [`p50 ratio ${ratio} > 1.5`] : []));
      console.log(`  ${cell(s.name, 50)} ${big.p50.toFixed(2).padStart(7)} / ${s.p50.toFixed(2).padStart(6)} ms = ${ratio.toFixed(2)} ${ratio <= 1.5 ? 'met' : 'MISS'}`);
    }
    comparison = { patients: small.patients, results: small.results, ratios };
  }

  const out = path.join(RESULTS, `${fileBase}.json`);
  writeFileSync(
    out,
    JSON.stringify({ date: new Date().toISOString(), engine, database: displayUrl(url), patients: main.patients, machine: machine(), options: o, results: main.results, mixed: main.mixed, capita: main.capita, novedades: main.novedades, rips: main.rips, peakRssMb: main.peakRssMb, comparison }, null, 2),
  );
  console.log(`\nFigures written to ${path.relative(ROOT, out)}`);

  const mixedResults = main.mixed.flatMap((m) => m.results);
  const failed = [...main.results, ...mixedResults, ...(comparison?.results ?? [])].filter((r) => r.status === 'failed');
  if (failed.length > 0 || main.capita?.status === 'failed' || main.novedades?.status === 'failed' || main.rips?.status === 'failed') {
    console.log(`FAIL: ${[...failed.map((r) => `${r.name}: ${r.note ?? `${r.errors} errors, ${r.bad} non-2xx/3xx, ${r.unexpected} unexpected statuses`}`), ...(main.capita?.status === 'failed' ? [`capita.csv: ${main.capita.note}`] : []), ...(main.novedades?.status === 'failed' ? [`novedades: ${main.novedades.note}`] : []), ...(main.rips?.status === 'failed' ? [`rips: ${main.rips.note}`] : [])].join('; ')}`);
    process.exit(1);
  }
  const misses = [...main.results, ...mixedResults].filter((r) => r.misses.length > 0).length + (main.capita?.misses.length ? 1 : 0) + (main.novedades?.misses.length ? 1 : 0) + (main.rips?.misses.length ? 1 : 0) + (main.peakRssMb > 250 ? 1 : 0);
  console.log(misses === 0 ? 'All requests succeeded; every target met.' : `All requests succeeded; ${misses} target(s) missed (see MISS above).`);
}

await main();
