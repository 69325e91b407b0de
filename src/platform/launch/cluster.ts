// Several server processes sharing the port (WORKERS > 1, issue 30, decision 0190): node's cluster, run by the
// launcher. The primary serves nothing: it starts the servers (the first alone, so that it runs the migrations and
// writes the development secret before the others open the file), holds what must be counted across them (the
// login's per-address flood guard), passes the stop signals on, and ends as they end, with one exit report
// (decision 0062). A server that ends by itself ends them all: the service manager restarts the whole, as it did
// the one process. Only node: built-ins here, as in the rest of the launcher.

import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { writeSync } from 'node:fs';
import { describeExit, StderrTail } from './exit-report.js';

/** Set in each server the primary starts: its number, from 1 (the first one runs the periodic cleanup). */
export const WORKER_INDEX_ENV = 'SOMNO_WORKER';
/** Set in each server the primary starts: how many there are. */
export const WORKER_COUNT_ENV = 'SOMNO_WORKERS';
/** The first-run setup link's token, made once by the primary so that every server accepts the one printed. */
export const SETUP_TOKEN_ENV = 'SOMNO_SETUP_TOKEN';

/** A count asked of the primary by a server (shared-rate-limit.ts) and its answer. */
export interface RateAsk {
  somno: 'rate';
  id: number;
  key: string;
  timeWindow: number;
}
export interface RateAnswer {
  somno: 'rate';
  id: number;
  current: number;
  ttl: number;
}

/** Keys counted at once, as @fastify/rate-limit's own store (the oldest dropped first). */
const RATE_KEYS_MAX = 5000;

/**
 * Fixed windows per key, as @fastify/rate-limit's LocalStore counts them (same answers), for every server at once.
 */
export class RateWindows {
  private readonly windows = new Map<string, { current: number; startMs: number }>();

  incr(key: string, timeWindow: number, nowMs = Date.now()): { current: number; ttl: number } {
    let w = this.windows.get(key);
    if (w === undefined || w.startMs + timeWindow <= nowMs) w = { current: 1, startMs: nowMs };
    else w.current++;
    // Deleted and set again: the Map's order is then the order of last use.
    this.windows.delete(key);
    this.windows.set(key, w);
    if (this.windows.size > RATE_KEYS_MAX) this.windows.delete(this.windows.keys().next().value as string);
    return { current: w.current, ttl: timeWindow - (nowMs - w.startMs) };
  }
}

const isRateAsk = (m: unknown): m is RateAsk =>
  typeof m === 'object' && m !== null && (m as RateAsk).somno === 'rate' && typeof (m as RateAsk).key === 'string';

export interface ClusterOptions {
  /** the launcher's own file, which each server runs */
  exec: string;
  args: string[];
  /** the servers' node flags (the runtime flags, decision 0046) */
  execArgv: string[];
  /** added to the servers' environment (MALLOC_ARENA_MAX…) */
  env: Record<string, string | undefined>;
}

export function runPrimary(count: number, options: ClusterOptions): void {
  // stdout is inherited (the servers' log lines go straight out); stderr passes through here, kept for the report.
  cluster.setupPrimary({ exec: options.exec, args: options.args, execArgv: options.execArgv, stdio: ['inherit', 'inherit', 'pipe', 'ipc'] });
  const setupToken = randomBytes(24).toString('base64url');
  const rates = new RateWindows();
  const alive = new Set<Worker>();
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
  let stopRequested: NodeJS.Signals | null = null;
  let failure: { code: number | null; signal: string | null; stderr: string[] } | null = null;

  const finish = () => {
    const report =
      failure === null ? describeExit(0, null, stopRequested, []) : describeExit(failure.code, failure.signal, stopRequested, failure.stderr);
    writeSync(1, `${JSON.stringify(report)}\n`);
    if (failure === null || failure.signal === null) process.exit(failure === null ? 0 : (failure.code ?? 1));
    for (const s of signals) process.removeAllListeners(s);
    process.kill(process.pid, failure.signal);
  };

  const fork = (index: number): Worker => {
    const env = { ...options.env, [WORKER_INDEX_ENV]: String(index), [WORKER_COUNT_ENV]: String(count), [SETUP_TOKEN_ENV]: setupToken };
    const worker = cluster.fork(env);
    alive.add(worker);
    const tail = new StderrTail();
    worker.process.stderr!.setEncoding('utf8');
    worker.process.stderr!.on('data', (chunk: string) => {
      tail.push(chunk);
      process.stderr.write(chunk);
    });
    worker.on('message', (m: unknown) => {
      if (!isRateAsk(m)) return;
      const answer: RateAnswer = { somno: 'rate', id: m.id, ...rates.incr(m.key, m.timeWindow) };
      if (worker.isConnected()) worker.send(answer);
    });
    // 'close', not 'exit': by then its last words on stderr have been read.
    worker.process.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      alive.delete(worker);
      const clean = stopRequested !== null && (code === 0 || signal === stopRequested);
      if (!clean && failure === null) {
        failure = { code, signal, stderr: tail.get() };
        // One server ended by itself: the others are stopped, and the whole ends with its code.
        for (const other of alive) other.process.kill('SIGTERM');
      }
      if (alive.size === 0) finish();
    });
    return worker;
  };

  for (const signal of signals) {
    process.on(signal, () => {
      stopRequested = signal;
      for (const w of alive) w.process.kill(signal);
    });
  }

  // The first server alone until it listens: it migrates the database and writes the development secret.
  const first = fork(1);
  first.once('listening', () => {
    if (stopRequested !== null || failure !== null) return;
    for (let i = 2; i <= count; i++) fork(i);
  });
}
