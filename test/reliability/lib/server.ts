// The real server as a child process (the bundle `npm start` runs), on a port chosen here, for the harnesses
// that kill it, restart it or load it from outside.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildServer, SERVER_ENV, SERVER_NODE_FLAGS } from '../../../src/platform/launch/build-server.js';
import { openDatabase, type DatabaseHandle } from '../../../src/db/connection.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { hashPassword } from '../../../src/users/password.js';
import { insertUser } from '../../../src/users/user.repository.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const SECRET = 's'.repeat(48);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything the process wrote (stdout and stderr), for the log checks and for failure reports. */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts the server and waits until /healthz answers 200. */
export async function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const bundle = await buildServer();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, bundle], {
    cwd: ROOT,
    env: { ...process.env, ...SERVER_ENV, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', SIGNING_SECRET: SECRET, APP_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} while starting:\n${out}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer /healthz within 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    baseUrl,
    output: () => out,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export interface HarnessDatabase {
  url: string;
  engine: 'sqlite' | 'postgres';
  /** The SQLite file, or null. */
  file: string | null;
  open(): DatabaseHandle;
  drop(): Promise<void>;
}

/** A fresh, migrated database for a harness: a SQLite file in a temporary folder, or a new PostgreSQL database. */
export async function createHarnessDatabase(engine: 'sqlite' | 'postgres', adminUrl = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'): Promise<HarnessDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'somno-reliability-'));
    const file = path.join(dir, 'somno.sqlite');
    const url = `sqlite:${file}`;
    const h = openDatabase(url);
    await migrateToLatest(h.db);
    await h.close();
    return { url, engine, file, open: () => openDatabase(url), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `somno_rel_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const h = openDatabase(url);
  await migrateToLatest(h.db);
  await h.close();
  return {
    url,
    engine,
    file: null,
    open: () => openDatabase(url),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A user written straight into the database (the server need not be running). */
export async function createHarnessUser(database: HarnessDatabase, username: string, password: string, isAdmin = true): Promise<number> {
  const h = database.open();
  try {
    return await insertUser(h.db, { username, passwordHash: await hashPassword(password), isAdmin, now: new Date().toISOString() });
  } finally {
    await h.close();
  }
}

/** Prints a harness line (what was tried, what was found). */
export function say(line: string): void {
  console.log(`reliability: ${line}`);
}

/** Percentile of a sample, in its unit. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
