import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/connection.js';
import type { Db } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Clock } from '../src/shared/clock.js';
import { hashPassword } from '../src/users/password.js';
import { insertUser } from '../src/users/user.repository.js';

/** Set by CI (and by anyone with PostgreSQL): an administrative URL; each test file gets its own database. */
export const TEST_PG_URL = process.env.TEST_PG_URL;
export const ENGINE: 'sqlite' | 'postgres' = TEST_PG_URL ? 'postgres' : 'sqlite';

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  constructor(private current: Date = new Date('2026-11-22T15:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  set(iso: string): void {
    this.current = new Date(iso);
  }
  advanceMinutes(minutes: number): void {
    this.current = new Date(this.current.getTime() + minutes * 60_000);
  }
}

export interface TestDatabase {
  handle: DatabaseHandle;
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database built from the real migrations: a temporary SQLite file, or a new PostgreSQL database.
 * `migrate: false` leaves it empty (for tests of a migration on data written before it). `poolSize` (PostgreSQL):
 * enough connections for a test's concurrent transactions, so that they meet in the database, not in the pool.
 */
export async function createTestDatabase(options: { migrate?: boolean; poolSize?: number } = {}): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  if (TEST_PG_URL) {
    const name = `somno_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(TEST_PG_URL);
    url.pathname = `/${name}`;
    const handle = openDatabase(url.toString(), options.poolSize === undefined ? {} : { poolSize: options.poolSize });
    if (migrate) await migrateToLatest(handle.db);
    return {
      handle,
      url: url.toString(),
      drop: async () => {
        await handle.close();
        const c = new pg.Client({ connectionString: TEST_PG_URL });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'somno-test-'));
  const url = `sqlite:${path.join(dir, 'test.sqlite')}`;
  const handle = openDatabase(url);
  if (migrate) await migrateToLatest(handle.db);
  return {
    handle,
    url,
    drop: async () => {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function testConfig(env: Record<string, string> = {}): Config {
  const dir = mkdtempSync(path.join(tmpdir(), 'somno-cfg-'));
  return loadConfig({ APP_ENV: 'test', SIGNING_SECRET: 'x'.repeat(40), ...env }, dir);
}

export interface TestContext {
  app: FastifyInstance;
  db: Db;
  clock: TestClock;
  config: Config;
  database: TestDatabase;
  close(): Promise<void>;
}

/** The real application on a fresh database, with a test clock. Close it in `after`. */
export async function createTestContext(
  options: { env?: Record<string, string>; setupToken?: string | null; clock?: TestClock; importConfirmWaitMs?: number } = {},
): Promise<TestContext> {
  const database = await createTestDatabase();
  const clock = options.clock ?? new TestClock();
  const config = testConfig(options.env);
  const app = await buildApp({
    config,
    db: database.handle.db,
    engine: database.handle.engine,
    clock,
    logger: false,
    setupToken: options.setupToken ?? null,
    // Tests log in far more often than people; the per-address flood guard is not what they check.
    loginAttemptsPerMinute: 100_000,
    importConfirmWaitMs: options.importConfirmWaitMs,
  });
  await app.ready();
  return {
    app,
    db: database.handle.db,
    clock,
    config,
    database,
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}

let userCounter = 0;
export const TEST_PASSWORD = 'una-clave-larga-de-prueba';

/** A user straight in the database (builders with overrides, never shared seed rows). */
export async function createUser(
  db: Db,
  overrides: { username?: string; password?: string; isAdmin?: boolean } = {},
): Promise<{ id: number; username: string; password: string }> {
  const username = overrides.username ?? `usuario${process.pid}${++userCounter}`;
  const password = overrides.password ?? TEST_PASSWORD;
  const id = await insertUser(db, {
    username,
    passwordHash: await hashPassword(password),
    isAdmin: overrides.isAdmin ?? false,
    now: new Date().toISOString(),
  });
  return { id, username, password };
}

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  location: string | undefined;
}

/** Talks to the app like a browser: keeps cookies, and sends the CSRF token it was last given. */
export class TestClient {
  readonly cookies = new Map<string, string>();
  csrfToken: string | null = null;

  constructor(private readonly app: FastifyInstance) {}

  private cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private async send(method: string, url: string, payload?: string, headers: Record<string, string> = {}): Promise<TestResponse> {
    const cookie = this.cookieHeader();
    const res = await this.app.inject({
      method: method as 'GET',
      url,
      payload,
      headers: { ...(cookie ? { cookie } : {}), ...(payload !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
    });
    for (const c of res.cookies as { name: string; value: string; expires?: Date; maxAge?: number }[]) {
      const expired = (c.expires && c.expires.getTime() <= Date.now()) || c.maxAge === 0 || c.value === '';
      if (expired) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrfToken = token;
    // A new CSRF secret (login, logout) makes the tokens of earlier pages useless, as in a browser.
    else if ((res.cookies as { name: string }[]).some((c) => c.name === 'csrftoken')) this.csrfToken = null;
    return { status: res.statusCode, headers: res.headers, body: res.body, location: res.headers.location };
  }

  get(url: string, headers?: Record<string, string>): Promise<TestResponse> {
    return this.send('GET', url, undefined, headers);
  }

  /** Posts a form; adds the CSRF token unless `csrf: false` (fetching one from the login page if needed). */
  async post(
    url: string,
    form: Record<string, string | string[]> = {},
    options: { csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<TestResponse> {
    const fields = { ...form };
    if (options.csrf !== false) {
      if (!this.csrfToken) await this.get('/users/login/');
      // Logged in, the login page redirects: the logout page carries a form too.
      if (!this.csrfToken) await this.get('/users/logout/');
      if (fields.csrfmiddlewaretoken === undefined) fields.csrfmiddlewaretoken = this.csrfToken!;
    }
    return this.send('POST', url, encodeForm(fields), options.headers);
  }

  /** Follows a redirect and returns the page it leads to. */
  async follow(res: TestResponse): Promise<TestResponse> {
    if (!res.location) throw new Error(`not a redirect: ${res.status}`);
    return this.get(res.location);
  }
}

export function encodeForm(form: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) {
    for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
  }
  return params.toString();
}

/** Logs the client in through the real form; throws if it does not land where expected. */
export async function login(client: TestClient, username: string, password = TEST_PASSWORD): Promise<void> {
  await client.get('/users/login/');
  const res = await client.post('/users/login/', { username, password });
  if (res.status !== 302) throw new Error(`login failed: ${res.status}`);
}

/** A logged-in client for a new user. */
export async function loggedInClient(ctx: TestContext, overrides: { isAdmin?: boolean } = {}) {
  const user = await createUser(ctx.db, overrides);
  const client = new TestClient(ctx.app);
  await login(client, user.username, user.password);
  return { client, user };
}

/** The one-time messages on a page: [{ level, text }]. */
export function messagesIn(html: string): { level: string; text: string }[] {
  const out: { level: string; text: string }[] = [];
  const re = /data-message-level="(\w+)"[^>]*>([\s\S]*?)<\/div>/g;
  for (let m = re.exec(html); m; m = re.exec(html)) out.push({ level: m[1]!, text: decodeEntities(m[2]!.replace(/<[^>]+>/g, '').trim()) });
  return out;
}

export function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&');
}
