// The analysed uploads kept between an import's preview and its confirmation (migrations 0060 and 0140), and
// the database lookups of the analysis.

import { sql } from 'kysely';
import { isPostgres, type Db, type Executor } from '../db/database.js';
import { insertRowReturningId } from '../platform/writes/prepared.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { findPatientsByDocumentoKeys, findPeopleBornOn } from '../patients/identity.repository.js';
import type { Lookups } from './import.jobs.js';
import type { ImportSummary } from './import.plan.js';
import { UPLOAD_BYTES_PER_USER, UPLOADS_PER_USER } from './import.rules.js';
import type { ImportUploadRow } from './import.table.js';

export { UPLOAD_BYTES_PER_USER, UPLOADS_PER_USER };

/** Uploads older than this are deleted when the next one arrives. */
export const UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;
/** Batches one transaction inserts (each ~1 KB: 5 rows). */
const BATCHES_PER_TRANSACTION = 100;

export const lookupsFor = (db: Executor): Lookups => ({
  existing: async (keys) => [...(await findPatientsByDocumentoKeys(db, keys))].map(([key, p]) => [key, p.id]),
  born: (dates) => findPeopleBornOn(db, dates),
});

export interface ReplacedUpload {
  file_name: string;
  created_at: string;
}

/**
 * Keeps an analysed upload: expired uploads are deleted, then the person's oldest ones while they would hold more
 * than UPLOADS_PER_USER previews or UPLOAD_BYTES_PER_USER bytes with this one; then the upload and its batches,
 * a few batches a transaction (the first also holds the replacements), and the upload is ready last. Returns its
 * id and the previews it replaced. An import being confirmed is never replaced: 'busy' when those alone fill the
 * bounds; 'too_big' when this one alone is over the bytes bound.
 */
export async function storeUpload(
  db: Db,
  u: {
    userId: number;
    fileName: string;
    digest: string;
    summary: ImportSummary;
    batches: readonly string[];
    at: Date;
    /** The report of rows left out: its CSV heading, and its lines (decision 0117). */
    report?: { header: string; skipped: string; similar: string };
  },
): Promise<{ ok: true; id: number; replaced: ReplacedUpload[] } | { ok: false; reason: 'too_big' | 'busy' }> {
  const report = u.report ?? { header: '', skipped: '', similar: '' };
  const bytes =
    u.batches.reduce((n, b) => n + Buffer.byteLength(b), 0) + Buffer.byteLength(report.header) + Buffer.byteLength(report.skipped) + Buffer.byteLength(report.similar);
  if (bytes > UPLOAD_BYTES_PER_USER) return { ok: false, reason: 'too_big' };
  const first = await inTransaction(db, async (trx) => {
    // One person's previews are made one at a time: their count and bytes are read under the user's row lock.
    if (isPostgres(trx)) await sql`select id from users where id = ${u.userId} for update`.execute(trx);
    await trx.deleteFrom('patient_import_uploads').where('created_at', '<', new Date(u.at.getTime() - UPLOAD_TTL_MS).toISOString()).execute();
    await trx.deleteFrom('patient_import_reports').where('created_at', '<', new Date(u.at.getTime() - UPLOAD_TTL_MS).toISOString()).execute();
    const mine = await trx
      .selectFrom('patient_import_uploads')
      .select(['id', 'file_name', 'created_at', 'bytes', 'state'])
      .where('user_id', '=', u.userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const replaced: ReplacedUpload[] = [];
    const recent = new Date(u.at.getTime() - 10 * 60 * 1000).toISOString();
    let held = mine.reduce((n, r) => n + r.bytes, 0);
    const fits = () => mine.length - replaced.length < UPLOADS_PER_USER && held + bytes <= UPLOAD_BYTES_PER_USER;
    for (const old of mine) {
      if (fits()) break;
      // Never one being confirmed, nor one still being stored by another request of the person's.
      if (old.state === 'importando' || (old.state === 'preparando' && old.created_at > recent)) continue;
      await trx.deleteFrom('patient_import_uploads').where('id', '=', old.id).execute();
      replaced.push({ file_name: old.file_name, created_at: old.created_at });
      held -= old.bytes;
    }
    if (!fits()) return null;
    const id = await insertRowReturningId(trx, 'patient_import_uploads', {
      user_id: u.userId,
      file_name: u.fileName,
      digest: u.digest,
      created_at: u.at.toISOString(),
      bytes,
      summary: JSON.stringify(u.summary),
      include_similar: null,
      report_header: report.header,
      skipped_csv: report.skipped,
      similar_csv: report.similar,
    });
    return { id, replaced };
  });
  if (first === null) return { ok: false, reason: 'busy' };
  for (let i = 0; i < u.batches.length; i += BATCHES_PER_TRANSACTION) {
    // Requests that arrived meanwhile are served between the transactions (their continuations are microtasks).
    await new Promise<void>((resolve) => setImmediate(resolve));
    await inTransaction(db, (trx) =>
      trx
        .insertInto('patient_import_batches')
        .values(u.batches.slice(i, i + BATCHES_PER_TRANSACTION).map((rows_json, j) => ({ upload_id: first.id, seq: i + j, rows_json })))
        .execute(),
    );
  }
  await inTransaction(db, (trx) => trx.updateTable('patient_import_uploads').set({ state: 'lista' }).where('id', '=', first.id).execute());
  return { ok: true, ...first };
}

/** The person's own upload, or undefined (another person's upload is never found). */
export async function findUpload(db: Executor, id: number, userId: number): Promise<ImportUploadRow | undefined> {
  return db.selectFrom('patient_import_uploads').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

/** The person's previews that can still be confirmed (or finished), newest first. */
export async function listPendingUploads(db: Executor, userId: number): Promise<ImportUploadRow[]> {
  return db
    .selectFrom('patient_import_uploads')
    .selectAll()
    .where('user_id', '=', userId)
    .where('state', '<>', 'preparando')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Deletes the person's upload and its batches; false when it was already gone. */
export async function discardUpload(db: Executor, id: number, userId: number): Promise<boolean> {
  const r = await db.deleteFrom('patient_import_uploads').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** A report of rows left out, only the person's own and only for a day after its import. */
export async function findReport(db: Executor, id: number, userId: number, now: Date) {
  return db
    .selectFrom('patient_import_reports')
    .select(['id', 'file_name', 'created_at', 'filas', 'csv'])
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('created_at', '>=', new Date(now.getTime() - UPLOAD_TTL_MS).toISOString())
    .executeTakeFirst();
}

export interface ReportListed {
  id: number;
  file_name: string;
  created_at: string;
  filas: number;
}

/** The person's reports of the last day, newest first (without their CSV). */
export async function listRecentReports(db: Executor, userId: number, now: Date): Promise<ReportListed[]> {
  return db
    .selectFrom('patient_import_reports')
    .select(['id', 'file_name', 'created_at', 'filas'])
    .where('user_id', '=', userId)
    .where('created_at', '>=', new Date(now.getTime() - UPLOAD_TTL_MS).toISOString())
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(UPLOADS_PER_USER)
    .execute();
}
