import type SQLite from 'better-sqlite3';

/** How long a connection waits for another's write lock before SQLite answers SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * The pragmas of every connection to the SQLite file: the server's and the audit writer's thread (decision 0017).
 * Kept free of other imports: the writer's bundle includes it.
 */
export function applySqlitePragmas(sqlite: SQLite.Database, options: { cacheKb: number }): void {
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  // FULL: a committed record survives a power cut, not only a process crash.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma(`cache_size = -${options.cacheKb}`);
}

/**
 * WAL pages past which the server's connection checkpoints when the audit writer's thread runs beside it (SQLite's
 * default, 1,000, stays on that thread's connection, which commits far more often): the copy to the database file
 * and its fsync then happen on that thread, not on the one that answers requests (decision 0052).
 */
export const SERVER_WAL_AUTOCHECKPOINT = 10_000;
