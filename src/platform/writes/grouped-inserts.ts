// Rows inserted in groups (decision 0011): one transaction, hence one fsync with SQLite's synchronous = FULL, every
// `flushMs` instead of one per row; rows waiting are shown by their caller meanwhile. The audit trail's views of
// records go this way (src/audit/audit.queue.ts); changes never do: they are written inside their own transaction.

import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';

/**
 * Parameters one INSERT carries at most (500 rows of the trail's 9 columns): far below both engines' limits
 * (SQLite 32,766, PostgreSQL 65,535).
 */
const STATEMENT_PARAMETERS = 4500;

/** Writes a group of rows in one transaction elsewhere (a thread of its own: writer-thread.ts). */
export interface RowWriter<Row> {
  /** Resolves once committed; rejects, with nothing written, on any failure. */
  write(rows: Row[]): Promise<void>;
  /** Ends the writer (after the writes in flight). */
  close(): Promise<void>;
}

export interface GroupedInserts<Row> {
  /** Queues a row (or writes it at once when `flushMs` is 0). */
  add(row: Row): Promise<void>;
  /** The rows queued or being written, oldest first. */
  pending(): Row[];
  /** Writes everything queued so far; resolves when it is committed. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left (graceful shutdown). */
  close(): Promise<void>;
}

/**
 * `flushMs` 0: every row is written at once, in its own transaction (the tests' default). Otherwise rows wait at
 * most `flushMs` and are written together, by `writer` when there is one; a failed write is retried with the next
 * group (and reported).
 */
export function createGroupedInserts<Row extends Record<string, unknown>>(
  db: Db,
  table: string,
  options: { flushMs: number; onError: (err: unknown) => void; writer?: RowWriter<Row> | null },
): GroupedInserts<Row> {
  let queued: Row[] = [];
  let writing: Row[] = [];
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let closed = false;

  const writer = options.flushMs > 0 ? (options.writer ?? null) : null;
  // The writer writes the groups while the server runs; at shutdown what is left is written here.
  const write = async (rows: Row[]) => {
    if (writer && !closed) return writer.write(rows);
    const chunk = Math.max(1, Math.floor(STATEMENT_PARAMETERS / Math.max(1, Object.keys(rows[0] ?? {}).length)));
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += chunk) await (trx as unknown as Kysely<any>).insertInto(table).values(rows.slice(i, i + chunk)).execute();
    });
  };

  const flushOnce = async () => {
    if (queued.length === 0) return;
    writing = queued;
    queued = [];
    try {
      await write(writing);
    } catch (err) {
      options.onError(err);
      // One by one, so a row the database refuses cannot hold back the others; what still fails is kept, in
      // order, ahead of what came since, and the next group carries it.
      const failed: Row[] = [];
      for (const row of writing) {
        try {
          await write([row]);
        } catch {
          failed.push(row);
        }
      }
      queued = failed.concat(queued);
    } finally {
      writing = [];
    }
  };

  const flush = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    running = running.then(flushOnce);
    return running;
  };

  return {
    async add(row) {
      if (options.flushMs <= 0 || closed) {
        await write([row]);
        return;
      }
      queued.push(row);
      timer ??= setTimeout(() => {
        timer = null;
        void flush().then(() => {
          if (queued.length > 0 && !closed) timer ??= setTimeout(() => void flush(), options.flushMs);
        });
      }, options.flushMs);
    },
    pending: () => writing.concat(queued),
    flush,
    async close() {
      closed = true;
      await flush();
      await writer?.close();
    },
  };
}
