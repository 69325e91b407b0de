// Groups of rows (decision 0011; the trail's views of records), written to a SQLite database by a worker thread
// with its own connection (decision 0017): better-sqlite3 runs a commit, and its fsync (synchronous = FULL), on
// the thread that calls it, and on the server's thread that held every request for 5 to 10 ms every 50 ms. Same
// file, same pragmas, same durability: the grouped inserts keep a group (and their caller shows it) until the
// worker says it committed. The table and its columns come from the caller: this module knows no feature.
//
// This one module is both sides: imported, it starts the worker (startRowWriter); run as the worker, it writes.
// The build bundles it as dist/audit-writer.js beside dist/server.js (the trail's views are what it writes).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { applySqlitePragmas } from '../../db/sqlite-pragmas.js';
import { WriteTurn } from './write-turn.js';
import type { RowWriter } from './grouped-inserts.js';
import { workerFromSources } from '../../shared/tsx-worker.js';

type Row = Readonly<Record<string, unknown>>;

interface Request {
  id: number;
  rows: Row[];
}
type Reply = { id: number; ok: true } | { id: number; ok: false; error: string };

/** Where the rows go: a table, and the columns each row gives a value for (in the order they are bound). */
export interface RowTarget {
  table: string;
  columns: readonly string[];
}

/**
 * The worker: the bundle beside the bundled server (npm start), or, run from the TypeScript sources (tests, tsx),
 * this module itself, loaded through tsx's loader registered inside the thread (a loader of the main thread does
 * not reach worker threads on Node 20).
 */
function startWorker(data: WriterData): Worker {
  const here = fileURLToPath(import.meta.url);
  const bundled = path.join(path.dirname(here), 'audit-writer.js');
  if (!here.endsWith('.ts') && existsSync(bundled)) return new Worker(bundled, { workerData: data });
  return workerFromSources(import.meta.url, { workerData: data });
}

/**
 * What the worker is started with: the file, the table and its columns, and the write turn it shares with the
 * server's thread (decision 0052).
 */
interface WriterData extends RowTarget {
  file: string;
  turn: SharedArrayBuffer | null;
}

export function startRowWriter<R extends Row>(file: string, target: RowTarget, turn?: WriteTurn): RowWriter<R> {
  const worker = startWorker({ file, table: target.table, columns: [...target.columns], turn: turn?.buffer ?? null });
  const waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  let next = 0;
  let failure: Error | null = null;
  const failAll = (err: Error) => {
    failure = err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  worker.on('message', (reply: Reply) => {
    const w = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (waiting.size === 0) worker.unref();
    if (reply.ok) w?.resolve();
    else w?.reject(new Error(reply.error));
  });
  worker.on('error', failAll);
  worker.on('exit', () => failAll(failure ?? new Error('the writer thread ended')));
  // The thread keeps the process alive only while a write is on its way.
  worker.unref();
  return {
    write(rows) {
      if (failure) return Promise.reject(failure);
      const id = ++next;
      return new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.ref();
        worker.postMessage({ id, rows } satisfies Request);
      });
    },
    async close() {
      await worker.terminate();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The worker side.

/** The most rows one statement inserts (the trail's 9 parameters each: far below SQLite's limit of 32,766). */
const STATEMENT_ROWS = 64;

if (!isMainThread && parentPort && (workerData as { file?: unknown } | null)?.file) {
  const port = parentPort;
  const data = workerData as WriterData;
  const { table, columns } = data;
  const db = new SQLite(data.file);
  const turn = data.turn ? new WriteTurn(data.turn) : null;
  // The server connection's pragmas; it only appends: 2 MB of page cache (better-sqlite3's default is 16 MB,
  // which it filled as the file grew, with pages it never reads again; decision 0022).
  applySqlitePragmas(db, { cacheKb: 2000 });
  // Rows written a statement at a time, not one by one: the trail has a trigger (its patients' counters), and a
  // statement on a table with triggers keeps a statement journal, the first copy of each page it changes, whatever
  // the trigger's condition says. One statement a row paid that for every view (~4 µs of its ~12 at 100,000 patients,
  // decision 0056). Statements of 2^k rows (k ≤ 6), so a few are ever prepared.
  const statements = new Map<number, SQLite.Statement>();
  const insertOf = (rows: number) => {
    let statement = statements.get(rows);
    if (statement === undefined) {
      const row = `(${columns.map(() => '?').join(', ')})`;
      statement = db.prepare(`insert into ${table} (${columns.join(', ')}) values ${Array(rows).fill(row).join(', ')}`);
      statements.set(rows, statement);
    }
    return statement;
  };
  const writeAll = db.transaction((rows: Row[]) => {
    for (let i = 0; i < rows.length; ) {
      const n = Math.min(STATEMENT_ROWS, 2 ** Math.floor(Math.log2(rows.length - i)));
      insertOf(n).run(rows.slice(i, i + n).flatMap((row) => columns.map((c) => row[c])));
      i += n;
    }
  });
  port.on('message', (request: Request) => {
    // Blocks this thread only, while the server's thread holds the turn for a group of its own.
    const held = turn?.takeForWriter() ?? false;
    let reply: Reply;
    try {
      writeAll(request.rows);
      reply = { id: request.id, ok: true };
    } catch (err) {
      reply = { id: request.id, ok: false, error: err instanceof Error ? err.message : String(err) };
    } finally {
      if (held) turn!.release();
    }
    port.postMessage(reply);
  });
}
