// Views of a patient's record go to the audit trail in groups (decision 0011): one transaction, hence one
// fsync with SQLite's synchronous = FULL, every FLUSH_MS instead of one per page view. Changes never come
// here: they are written by recordAudit inside their own transaction.

import type { Db } from '../db/database.js';
import type { AuditListRow } from './audit.repository.js';
import { auditRowOf, type AuditEntry } from './audit.rules.js';
import type { NewAuditRow } from './audit.table.js';
import type { ViewWriter } from './audit.writer.js';

/** Rows a single INSERT carries (9 parameters a row: far below both engines' limits). */
const CHUNK = 500;

export interface ViewAuditQueue {
  /** Queues a view (or writes it at once when the queue is synchronous). */
  record(entry: AuditEntry): Promise<void>;
  /** Views of this patient queued or being written, newest first, shaped as the trail's rows (id 0). */
  pendingForPatient(patientId: number): AuditListRow[];
  /** Writes everything queued so far; resolves when it is committed. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left (graceful shutdown). */
  close(): Promise<void>;
}

type Row = NewAuditRow;

/**
 * `flushMs` 0: every view is written at once, in its own transaction (the tests' default). Otherwise views wait
 * at most `flushMs` and are written together; a failed write is retried with the next group (and reported).
 */
export function createViewAuditQueue(
  db: Db,
  options: { flushMs: number; onError: (err: unknown) => void; writer?: ViewWriter | null },
): ViewAuditQueue {
  let queued: Row[] = [];
  let writing: Row[] = [];
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let closed = false;

  const writer = options.flushMs > 0 ? (options.writer ?? null) : null;
  // The worker writes the groups while the server runs; at shutdown what is left is written here.
  const write = async (rows: Row[]) => {
    if (writer && !closed) return writer.write(rows);
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += CHUNK) await trx.insertInto('audit_log').values(rows.slice(i, i + CHUNK)).execute();
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
    async record(entry) {
      if (options.flushMs <= 0 || closed) {
        await write([auditRowOf(entry)]);
        return;
      }
      queued.push(auditRowOf(entry));
      timer ??= setTimeout(() => {
        timer = null;
        void flush().then(() => {
          if (queued.length > 0 && !closed) timer ??= setTimeout(() => void flush(), options.flushMs);
        });
      }, options.flushMs);
    },
    pendingForPatient(patientId) {
      const out: AuditListRow[] = [];
      for (const r of [...writing, ...queued]) {
        if (r.patient_id !== patientId) continue;
        const { request_id: _unused, ...shown } = r;
        out.push({ id: 0, ...shown });
      }
      return out.reverse();
    },
    flush,
    async close() {
      closed = true;
      await flush();
      await writer?.close();
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Views of patients' records on their way to the audit trail (written in groups). */
    auditViews: ViewAuditQueue;
  }
}
