// Views of a patient's record go to the audit trail in groups (decision 0011), through the platform's grouped
// inserts and, on SQLite, its writer thread (decision 0017). Changes never come here: they are written by
// recordAudit inside their own transaction.

import type { Db } from '../db/database.js';
import type { WriteTurn } from '../platform/writes/write-turn.js';
import { createGroupedInserts, type RowWriter } from '../platform/writes/grouped-inserts.js';
import { startRowWriter } from '../platform/writes/writer-thread.js';
import type { AuditListRow } from './audit.repository.js';
import { auditRowOf, type AuditEntry } from './audit.rules.js';
import { AUDIT_ROW_COLUMNS, type NewAuditRow } from './audit.table.js';

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

/** The thread that commits the groups of views to the SQLite file (decision 0017). */
export function startViewWriter(file: string, turn?: WriteTurn): RowWriter<NewAuditRow> {
  return startRowWriter<NewAuditRow>(file, { table: 'audit_log', columns: AUDIT_ROW_COLUMNS }, turn);
}

/**
 * `flushMs` 0: every view is written at once, in its own transaction (the tests' default). Otherwise views wait
 * at most `flushMs` and are written together; a failed write is retried with the next group (and reported).
 */
export function createViewAuditQueue(
  db: Db,
  options: { flushMs: number; onError: (err: unknown) => void; writer?: RowWriter<NewAuditRow> | null },
): ViewAuditQueue {
  const rows = createGroupedInserts<NewAuditRow>(db, 'audit_log', options);
  return {
    record: (entry) => rows.add(auditRowOf(entry)),
    pendingForPatient(patientId) {
      const out: AuditListRow[] = [];
      for (const r of rows.pending()) {
        if (r.patient_id !== patientId) continue;
        const { request_id: _unused, ...shown } = r;
        out.push({ id: 0, ...shown });
      }
      return out.reverse();
    },
    flush: rows.flush,
    close: rows.close,
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Views of patients' records on their way to the audit trail (written in groups). */
    auditViews: ViewAuditQueue;
  }
}
