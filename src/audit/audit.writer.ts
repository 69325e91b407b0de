// The groups of views of decision 0011, written to a SQLite database by a worker thread with its own connection
// (decision 0017): better-sqlite3 runs a commit, and its fsync (synchronous = FULL), on the thread that calls it,
// and on the server's thread that held every request for 5 to 10 ms every 50 ms. Same file, same pragmas, same
// durability: the queue keeps a group (and shows it in the patient's history) until the worker says it committed.
//
// This one module is both sides: imported, it starts the worker (startViewWriter); run as the worker, it writes.
// The build bundles it as dist/audit-writer.js beside dist/server.js.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { applySqlitePragmas } from '../db/sqlite-pragmas.js';
import { WriteTurn } from '../db/write-turn.js';
import { workerFromSources } from '../shared/tsx-worker.js';
import { AUDIT_ROW_COLUMNS as COLUMNS, type NewAuditRow as ViewRow } from './audit.table.js';

interface Request {
  id: number;
  rows: ViewRow[];
}
type Reply = { id: number; ok: true } | { id: number; ok: false; error: string };

export interface ViewWriter {
  /** Writes the rows in one transaction; resolves once committed, rejects (nothing written) on any failure. */
  write(rows: ViewRow[]): Promise<void>;
  /** Ends the worker (after the writes in flight). */
  close(): Promise<void>;
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

/** What the worker is started with: the file, and the write turn it shares with the server's thread (decision 0052). */
interface WriterData {
  file: string;
  turn: SharedArrayBuffer | null;
}

export function startViewWriter(file: string, turn?: WriteTurn): ViewWriter {
  const worker = startWorker({ file, turn: turn?.buffer ?? null });
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
  worker.on('exit', () => failAll(failure ?? new Error('the audit writer thread ended')));
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

/** The most rows one statement inserts (9 parameters each: far below SQLite's limit of 32,766). */
const STATEMENT_ROWS = 64;

if (!isMainThread && parentPort && (workerData as { file?: unknown } | null)?.file) {
  const port = parentPort;
  const data = workerData as WriterData;
  const db = new SQLite(data.file);
  const turn = data.turn ? new WriteTurn(data.turn) : null;
  // The server connection's pragmas; it only appends: 2 MB of page cache (better-sqlite3's default is 16 MB,
  // which it filled as the file grew, with pages it never reads again; decision 0022).
  applySqlitePragmas(db, { cacheKb: 2000 });
  // Rows written a statement at a time, not one by one: audit_log has a trigger (its patients' counters), and a statement
  // on a table with triggers keeps a statement journal, the first copy of each page it changes, whatever the
  // trigger's condition says. One statement a row paid that for every view (~4 µs of its ~12 at 100,000 patients,
  // decision 0056). Statements of 2^k rows (k ≤ 6), so a few are ever prepared.
  const statements = new Map<number, SQLite.Statement>();
  const insertOf = (rows: number) => {
    let statement = statements.get(rows);
    if (statement === undefined) {
      const row = `(${COLUMNS.map(() => '?').join(', ')})`;
      statement = db.prepare(`insert into audit_log (${COLUMNS.join(', ')}) values ${Array(rows).fill(row).join(', ')}`);
      statements.set(rows, statement);
    }
    return statement;
  };
  const writeAll = db.transaction((rows: ViewRow[]) => {
    for (let i = 0; i < rows.length; ) {
      const n = Math.min(STATEMENT_ROWS, 2 ** Math.floor(Math.log2(rows.length - i)));
      insertOf(n).run(rows.slice(i, i + n).flatMap((row) => COLUMNS.map((c) => row[c])));
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
