// Confirming an import (decision 0058): the previewed rows are written one batch per transaction, so no
// transaction holds SQLite's one connection (every request's reads wait for it) or the event loop for more than
// a few milliseconds. Each transaction writes whole patients (row, first cycle, history, audit entry) and deletes
// its batch: a failure or a crash part-way leaves every written patient complete and the rest of the import
// waiting, and confirming again goes on from there. The last batch's transaction writes the `patient.import`
// entry and deletes the upload.
//
// The analysis is not run again (decision 0057): each batch's transaction checks, with indexed lookups, only what
// may have changed since the preview for its own rows: a documento registered meanwhile, or a stored person born
// the same day with a similar name whom the preview did not show. Such a row is left out and reported, never
// written unseen.

import { recordAudit } from '../audit/audit.repository.js';
import type { Db, Trx } from '../db/database.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { insertRowReturningId } from '../platform/writes/prepared.js';
import { findPatientsByDocumentoKeys, findPeopleBornOn } from '../patients/identity.repository.js';
import { insertPatientWithCycle } from '../patients/patient.actions.js';
import { DOCUMENTO_TAKEN } from '../patients/patient.writes.repository.js';
import { documentoKey } from '../patients/patient.rules.js';
import { DomainError, isDomainError } from '../shared/domain-error.js';
import { nameKeyOf, SimilarIndex } from './import.duplicates.js';
import { decodeBatch, type ImportSummary, type PlanRow } from './import.plan.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Lines left out listed at most in the message and the audit entry. */
const LEFT_OUT_LISTED = 20;
/** Times a batch is tried again after a documento was taken between its check and its write (PostgreSQL). */
const RACE_RETRIES = 3;

export interface ConfirmInput {
  uploadId: number;
  userId: number;
  digest: string;
  includeSimilar: boolean;
  actor: { id: number; username: string } | null;
  at: Date;
  day: string;
  requestId: string;
}

export type ConfirmOutcome =
  | { kind: 'gone' }
  | { kind: 'done'; fileName: string; created: number; total: number; leftOut: number; leftOutLines: number[]; reportId: number | null }
  | { kind: 'interrupted'; fileName: string; created: number; error: unknown };

type Step = { kind: 'gone' } | { kind: 'more'; fileName: string; created: number } | Extract<ConfirmOutcome, { kind: 'done' }>;

/** Rows of a batch that changed since the preview: a documento now taken, or a similar person not shown then. */
async function changedSincePreview(trx: Trx, rows: readonly PlanRow[]): Promise<Set<PlanRow>> {
  const changed = new Set<PlanRow>();
  const taken = await findPatientsByDocumentoKeys(trx, rows.map((r) => r.documentoKey));
  const born = await findPeopleBornOn(trx, rows.map((r) => r.patient.fecha_nacimiento));
  const index = new SimilarIndex<(typeof born)[number]>();
  for (const p of born) {
    const name = nameKeyOf(p.nombre, p.apellido);
    if (name !== null) index.add(p.fecha_nacimiento, name, p);
  }
  for (const row of rows) {
    if (taken.has(row.documentoKey)) {
      changed.add(row);
      continue;
    }
    const name = nameKeyOf(row.patient.nombre, row.patient.apellido);
    if (name === null) continue;
    const seen = new Set(row.similarIds);
    const ownLines = new Set(row.similarKeys);
    if (index.find(row.patient.fecha_nacimiento, name).some((p) => !seen.has(p.id) && !ownLines.has(documentoKey(p.documento)))) changed.add(row);
  }
  return changed;
}

/** One transaction: the next batch written, or, when none is left, the import's entry and the upload deleted. */
async function step(trx: Trx, input: ConfirmInput): Promise<Step> {
  // Also the upload's row lock on PostgreSQL: two confirms of one upload take its batches one after the other.
  const upload = await trx
    .updateTable('patient_import_uploads')
    .set((eb) => ({ state: 'importando', include_similar: eb.fn.coalesce('include_similar', eb.val(input.includeSimilar ? 1 : 0)) }))
    .where('id', '=', input.uploadId)
    .where('user_id', '=', input.userId)
    .where('digest', '=', input.digest)
    .where('state', '<>', 'preparando')
    .returningAll()
    .executeTakeFirst();
  if (!upload) return { kind: 'gone' };
  const summary = JSON.parse(upload.summary) as ImportSummary;
  const includeSimilar = upload.include_similar === 1;
  let { created, left_out: leftOut } = upload;
  const leftOutLines = JSON.parse(upload.left_out_lines) as number[];
  const importDetails = { importacion: [null, { archivo: upload.file_name, sha256: upload.digest }] };

  const batch = await trx
    .selectFrom('patient_import_batches')
    .select(['seq', 'rows_json'])
    .where('upload_id', '=', upload.id)
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
  if (batch) {
    const rows = decodeBatch(batch.rows_json, summary.planFields).filter((r) => r.status === 'crear' || includeSimilar);
    const changed = await changedSincePreview(trx, rows);
    for (const row of rows) {
      if (changed.has(row)) {
        leftOut++;
        if (leftOutLines.length < LEFT_OUT_LISTED) leftOutLines.push(row.line);
        continue;
      }
      await insertPatientWithCycle(trx, input, {
        patient: row.patient,
        fechaInicio: row.fechaInicio ?? input.day,
        estado: row.estado,
        auditDetails: row.status === 'revisar' ? { ...importDetails, otra_persona_confirmada: [null, row.similarIds] } : importDetails,
      });
      created++;
    }
    await trx.deleteFrom('patient_import_batches').where('upload_id', '=', upload.id).where('seq', '=', batch.seq).execute();
    await trx
      .updateTable('patient_import_uploads')
      .set({ created, left_out: leftOut, left_out_lines: JSON.stringify(leftOutLines) })
      .where('id', '=', upload.id)
      .execute();
    const more = await trx.selectFrom('patient_import_batches').select('seq').where('upload_id', '=', upload.id).limit(1).executeTakeFirst();
    if (more) return { kind: 'more', fileName: upload.file_name, created };
  }
  const c = summary.counts;
  await recordAudit(trx, {
    at: input.at,
    actor: input.actor,
    action: 'patient.import',
    entityType: 'import',
    changes: {
      archivo: upload.file_name,
      sha256: upload.digest,
      filas: c.total,
      creados: created,
      omitidos: c.total - created,
      con_errores: c.conErrores,
      documentos_repetidos: c.duplicados,
      posibles_duplicados: c.revisar,
      posibles_duplicados_importados: includeSimilar,
      omitidos_por_cambios: leftOut,
      ...(leftOut > 0 ? { filas_omitidas_por_cambios: leftOutLines } : {}),
    },
    requestId: input.requestId,
  });
  // The rows left out, for the person to fix and import again (decision 0117): those with errors or a taken
  // documento, and the possible duplicates unless imported too.
  const reportRows = upload.skipped_csv + (includeSimilar ? '' : upload.similar_csv);
  const reportCount = c.omitir + (includeSimilar ? 0 : c.revisar);
  const reportId =
    reportRows === '' || upload.report_header === ''
      ? null
      : await insertRowReturningId(trx, 'patient_import_reports', {
          user_id: input.userId,
          file_name: upload.file_name,
          created_at: input.at.toISOString(),
          filas: reportCount,
          csv: upload.report_header + reportRows,
        });
  await trx.deleteFrom('patient_import_uploads').where('id', '=', upload.id).execute();
  return { kind: 'done', fileName: upload.file_name, created, total: c.total, leftOut, leftOutLines, reportId };
}

/**
 * Writes the upload's batches one transaction each, the event loop free between them. 'gone' when the upload is
 * not the person's, not ready, or already confirmed; 'interrupted' when a transaction failed or the server is
 * stopping (what was written stays; confirming again goes on). `upload` is the row the route read: its name and what was written before.
 */
export async function confirmImport(
  db: Db,
  input: ConfirmInput,
  upload: { file_name: string; created: number },
  /** true when the server is stopping: the import ends between two batches, to be continued. */
  stopping: () => boolean = () => false,
): Promise<ConfirmOutcome> {
  let created = upload.created;
  for (let races = 0; ; ) {
    // The next batch after the requests that arrived meanwhile: a transaction's continuation runs as a microtask, and
    // without this turn the batches would follow each other with no I/O served in between.
    await nextTurn();
    if (stopping()) return { kind: 'interrupted', fileName: upload.file_name, created, error: { code: 'SERVER_STOPPING' } };
    let s: Step;
    try {
      s = await inTransaction(db, (trx) => step(trx, input));
    } catch (err) {
      // A documento registered between the batch's check and its insert (PostgreSQL): the batch again, checked anew.
      if (isDomainError(err, DOCUMENTO_TAKEN) && races++ < RACE_RETRIES) continue;
      // The person was deactivated meanwhile: the web layer sends them to the login page.
      if (err instanceof DomainError && err.kind === 'actor_inactive') throw err;
      return { kind: 'interrupted', fileName: upload.file_name, created, error: err };
    }
    if (s.kind !== 'more') return s;
    created = s.created;
    races = 0;
  }
}
