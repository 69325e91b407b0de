import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';
import type Pg from 'pg';
import type { Database } from './database.js';
import { namingStatements, PREPARED_PER_CONNECTION } from './pg-statements.js';
import { applySqlitePragmas, SQLITE_BUSY_TIMEOUT_MS } from './sqlite-pragmas.js';
import { setWriteTurn, WriteTurn } from '../platform/writes/write-turn.js';

export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly engine: Engine;
  /** The SQLite file, for backups; null on PostgreSQL. */
  readonly sqliteFile: string | null;
  close(): Promise<void>;
}

let pgModule: typeof Pg | undefined;

/**
 * pg, loaded by the first PostgreSQL database opened: a server on SQLite never carries its heap (0.4 MB in the
 * server), which every major collection would mark again. Required, not imported, so that openDatabase stays
 * synchronous.
 */
function loadPg(): typeof Pg {
  if (pgModule === undefined) {
    const pg = createRequire(import.meta.url)('pg') as typeof Pg;
    // pg hands back int8 and dates as strings/Date objects; we store dates as text and
    // counts/hundredths as int8, which stay far below 2^53, so numbers are exact.
    pg.types.setTypeParser(20, (v) => Number(v));
    pg.types.setTypeParser(1700, (v) => v);
    pg.types.setTypeParser(1082, (v) => v);
    pgModule = pg;
  }
  return pgModule;
}

export function engineOf(url: string): Engine {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  throw new Error('DATABASE_URL debe ser sqlite:RUTA o postgres://…');
}

export interface OpenOptions {
  poolSize?: number;
  /**
   * Other server processes write the same SQLite file (WORKERS > 1, decision 0190): a transaction waits for the
   * file's write lock as a promise, not asleep in SQLite's busy handler (which would hold every request of this
   * process meanwhile, as decision 0052 found for the audit writer's thread).
   */
  sharedWithProcesses?: boolean;
  /** PostgreSQL: statements kept prepared on each connection at most (decision 0270); 0 sends every one unnamed. */
  preparedPerConnection?: number;
}

export function openDatabase(url: string, options: OpenOptions = {}): DatabaseHandle {
  if (engineOf(url) === 'sqlite') {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const sqlite = new SQLite(file);
    // 8 MB of page cache instead of better-sqlite3's 16: as fast at 100,000 patients, and 8 MB less resident
    // (decision 0022).
    applySqlitePragmas(sqlite, { cacheKb: 8000 });
    const db = new Kysely<Database>({
      dialect: new ImmediateSqliteDialect({ database: cachingStatements(sqlite) }, options.sharedWithProcesses ?? false),
    });
    // Shared with the audit writer's thread, which writes the same file; inTransaction waits for it (decision 0052).
    if (file !== ':memory:') setWriteTurn(db, new WriteTurn());
    return {
      db,
      engine: 'sqlite',
      sqliteFile: file === ':memory:' ? null : path.resolve(file),
      close: () => db.destroy(),
    };
  }
  const pool = new (loadPg().Pool)({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30000,
  });
  // A restarted server kills idle clients; without a listener that error would crash the process.
  pool.on('error', () => undefined);
  // …and a client checked out while the server goes away emits 'error' too: the query itself fails (503).
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  // Each statement run again on a connection is sent named: parsed once there, its plan kept (decision 0270).
  const perConnection = options.preparedPerConnection ?? PREPARED_PER_CONNECTION;
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: namingStatements(pool, { perConnection }) }) });
  return { db, engine: 'postgres', sqliteFile: null, close: () => db.destroy() };
}

/**
 * Transactions take SQLite's write lock when they begin (BEGIN IMMEDIATE), not at their first write: another
 * connection (the audit writer's thread) may commit between a transaction's first read and its first write, and
 * SQLite then refuses the write at once (SQLITE_BUSY_SNAPSHOT) instead of waiting. A group of changes (decision
 * 0018) reads and writes for longer, so the window mattered more. Waiting for the lock is busy_timeout's job.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly shared: boolean,
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings, this.shared);
  }
}

const BEGIN = CompiledQuery.raw('begin immediate');
const NO_BUSY_WAIT = CompiledQuery.raw('pragma busy_timeout = 0');
const BUSY_WAIT = CompiledQuery.raw(`pragma busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);

const isBusy = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 'SQLITE_BUSY';

class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    settings: SqliteDialectConfig,
    private readonly shared: boolean,
  ) {
    super(settings);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.shared) {
      await connection.executeQuery(BEGIN);
      return;
    }
    // Another process holds the write lock: try again after a pause given to the event loop, until SQLite's own
    // timeout would have passed (then SQLITE_BUSY, a 503). Reads of this process wait meanwhile (the connection is
    // this transaction's), as they wait for a group of this process's own changes (decision 0018).
    const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
    await connection.executeQuery(NO_BUSY_WAIT);
    try {
      for (let pause = 1; ; pause = Math.min(pause * 2, 8)) {
        try {
          await connection.executeQuery(BEGIN);
          return;
        } catch (err) {
          if (!isBusy(err) || Date.now() + pause > deadline) throw err;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    } finally {
      await connection.executeQuery(BUSY_WAIT);
    }
  }
}

/** Statements kept prepared per SQL text: a few hundred distinct statements cover the whole application. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The better-sqlite3 database as Kysely sees it, with `prepare` answered from a cache keyed by the SQL text:
 * preparing anew on every request cost ~7 % of a list page's CPU. A cached statement that is busy (a `.iterate()`
 * still streaming it) is never handed out again until it finishes: that caller gets a fresh, uncached copy.
 * Only Kysely goes through this wrapper, and it never switches a statement to raw, pluck or expand mode.
 */
function cachingStatements(sqlite: SQLite.Database): { close(): void; prepare(sql: string): SQLite.Statement } {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare: (text: string) => {
      const cached = cache.get(text);
      if (cached !== undefined) return cached.busy ? sqlite.prepare(text) : cached;
      const stmt = sqlite.prepare(text);
      // Oldest first out: Map keeps insertion order.
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(text, stmt);
      return stmt;
    },
  };
}

/** True for errors that mean "the database cannot be reached right now" (answer 503, not 500). */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', 'SQLITE_BUSY'].includes(code)) {
    return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)/i.test(
    err.message,
  );
}
