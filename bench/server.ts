// The application under test, as one child process in production mode, and a browser-like client for setup:
// login through the form, cookies, the CSRF token, a probe of each route.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The address the server listens on (its HOST). */
export const SERVER_HOST = '127.0.0.1';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  readonly base: string;
  readonly pid: number;
  /** null while it runs; else how it ended (exit code or signal) */
  exited(): string | null;
  stop(): Promise<void>;
}

/** A built server: its checkout, its bundle, and the flags and environment it runs with. */
export interface ServerBuild {
  root: string;
  bundle: string;
  nodeFlags: readonly string[];
  env: Readonly<Record<string, string>>;
}

export interface ServerOptions {
  /** another checkout's build (bench/compare.ts); this checkout's, built now, by default */
  build?: ServerBuild;
  /** a command the server runs under, e.g. valgrind and its options */
  wrapper?: readonly string[];
  /** node flags added to the build's own */
  nodeFlags?: readonly string[];
  readyWithinMs?: number;
}

/** Where a checkout keeps its build script: since issue 26 with the rest of the machinery, before in src/build/. */
const BUILD_SCRIPTS = [path.join('src', 'platform', 'launch', 'build-server.ts'), path.join('src', 'build', 'build-server.ts')];

/** Builds the server of the checkout at `root` with that checkout's own build script and flags. */
export async function buildOf(root: string): Promise<ServerBuild> {
  const script = BUILD_SCRIPTS.map((s) => path.join(root, s)).find((s) => existsSync(s));
  if (script === undefined) throw new Error(`no build script in ${root} (${BUILD_SCRIPTS.join(', ')})`);
  const build = await import(script);
  return { root, bundle: await build.buildServer(), nodeFlags: build.SERVER_NODE_FLAGS, env: build.SERVER_ENV };
}

/**
 * The bundle `npm start` runs (`node … dist/server.js` with SERVER_NODE_FLAGS, built first; one process, so its RSS
 * is the server's own; with WORKERS > 1 in the environment, the primary and its servers, whose CPU and RSS
 * cpuSecondsOf and rssOf sum) with APP_ENV=production. Its output goes to `logFile`.
 */
export async function startServer(databaseUrl: string, logFile: string, options: ServerOptions = {}): Promise<RunningServer> {
  const port = await freePort();
  const log = openSync(logFile, 'w');
  // BENCH_SERVER_NODE_ARGS: extra node flags for the server, e.g. '--cpu-prof --cpu-prof-dir=DIR' to profile.
  const extra = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const build = options.build ?? (await buildOf(ROOT));
  const [command, ...wrapperArgs] = [...(options.wrapper ?? []), process.execPath];
  const child: ChildProcess = spawn(command, [...wrapperArgs, ...extra, ...(options.nodeFlags ?? []), ...build.nodeFlags, build.bundle], {
    cwd: build.root,
    env: {
      ...process.env,
      ...build.env,
      NODE_ENV: 'production',
      APP_ENV: 'production',
      SIGNING_SECRET: randomBytes(32).toString('hex'),
      ALLOWED_HOSTS: '127.0.0.1,localhost',
      HOST: SERVER_HOST,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
    },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  let ended: string | null = null;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = signal ? `killed by ${signal}` : `exit code ${code}`;
      resolve(code);
    }),
  );
  const base = `http://${SERVER_HOST}:${port}`;
  const readyWithinMs = options.readyWithinMs ?? 60_000;
  const deadline = Date.now() + readyWithinMs;
  let ready = false;
  while (Date.now() < deadline && !ready) {
    const done = await Promise.race([exited.then(() => true), sleep(100).then(() => false)]);
    if (done) throw new Error(`the server exited before answering /healthz; see ${logFile}:\n${tail(logFile)}`);
    try {
      const res = await fetch(`${base}/healthz`);
      ready = res.status === 200;
    } catch {
      // not listening yet
    }
  }
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`the server did not answer /healthz within ${readyWithinMs / 1000} s; see ${logFile}`);
  }
  return {
    base,
    pid: child.pid!,
    exited: () => ended,
    stop: async () => {
      child.kill('SIGTERM');
      const code = await Promise.race([exited, sleep(10_000).then(() => 'timeout' as const)]);
      if (code === 'timeout') {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '';
  }
}

const CLOCK_TICKS = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

/** The process and its descendants (the servers a cluster's primary started, WORKERS > 1), by /proc's children lists. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${out[i]}/task`)) {
        const children = readFileSync(`/proc/${out[i]}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
        out.push(...children);
      }
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

/**
 * CPU time a process has used so far, all its threads, in seconds (utime + stime of /proc/<pid>/stat); NaN when
 * unreadable. Per request it is steadier than requests a second on a shared machine: other work slows the
 * server down, but hardly changes what each request costs it. With several server processes (WORKERS > 1), the
 * sum over the primary and every server (a server that ended meanwhile no longer counts).
 */
export function cpuSecondsOf(pid: number): number {
  let total = 0;
  for (const p of processTree(pid)) {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      if (p === pid) return Number.NaN;
    }
  }
  return total;
}

/** Resident set size of a process and its descendants (several servers: their sum), in bytes (VmRSS); 0 when unreadable. */
export function rssOf(pid: number): number {
  let total = 0;
  for (const p of processTree(pid)) {
    try {
      const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      total += m ? Number(m[1]) * 1024 : 0;
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

/** Samples a process's RSS every 100 ms: the peak over the whole run and since the last mark(). */
export class RssSampler {
  peak = 0;
  sincePeak = 0;
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly pid: number) {}
  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), 100);
  }
  sample(): number {
    const rss = rssOf(this.pid);
    this.peak = Math.max(this.peak, rss);
    this.sincePeak = Math.max(this.sincePeak, rss);
    return rss;
  }
  /** Starts a new window; returns the current RSS. */
  mark(): number {
    const rss = rssOf(this.pid);
    this.sincePeak = rss;
    return rss;
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }
}

/** A client that keeps cookies and the latest CSRF token, like a browser. */
export class Session {
  readonly cookies = new Map<string, string>();
  csrfToken = '';
  constructor(readonly base: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, pathAndQuery: string, form?: Record<string, string>): Promise<{ status: number; location: string | null; body: string }> {
    const res = await fetch(this.base + pathAndQuery, {
      method,
      redirect: 'manual',
      headers: {
        ...(this.cookies.size ? { cookie: this.cookieHeader() } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const body = await res.text();
    const token = csrfTokenIn(body);
    if (token) this.csrfToken = token;
    return { status: res.status, location: res.headers.get('location'), body };
  }

  /** Logs in through the real form; throws unless it lands on a logged-in page. */
  async login(username: string, password: string): Promise<void> {
    await this.request('GET', '/users/login/');
    if (!this.csrfToken) throw new Error('the login page has no csrfmiddlewaretoken');
    const res = await this.request('POST', '/users/login/', { username, password, csrfmiddlewaretoken: this.csrfToken });
    if (res.status !== 302 || !this.cookies.has('sessionid')) {
      throw new Error(`login as ${username} failed (HTTP ${res.status}); was the database made by npm run bench:data?`);
    }
    // A page with a form after login, for the token the POST scenarios send.
    await this.request('GET', '/users/password/');
  }
}

export function csrfTokenIn(html: string): string | null {
  const input = /<input[^>]*name="csrfmiddlewaretoken"[^>]*>/.exec(html)?.[0];
  return input ? (/value="([^"]*)"/.exec(input)?.[1] ?? null) : null;
}
