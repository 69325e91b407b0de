// The uploads kept between an import's preview and its confirmation (migration 0060).

import type { Executor } from '../db/database.js';
import { insertRowReturningId } from '../platform/writes/prepared.js';
import type { ImportUploadRow } from './import.table.js';

/** Uploads older than this are deleted when the next one arrives. */
const UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;

export async function insertUpload(
  db: Executor,
  u: { userId: number; fileName: string; digest: string; content: Buffer; at: Date },
): Promise<number> {
  await db.deleteFrom('patient_import_uploads').where('created_at', '<', new Date(u.at.getTime() - UPLOAD_TTL_MS).toISOString()).execute();
  return insertRowReturningId(db, 'patient_import_uploads', {
    user_id: u.userId,
    file_name: u.fileName,
    digest: u.digest,
    content: u.content,
    created_at: u.at.toISOString(),
  });
}

/** The user's own upload, or undefined (another user's upload is never found). */
export async function findUpload(db: Executor, id: number, userId: number): Promise<ImportUploadRow | undefined> {
  const row = await db.selectFrom('patient_import_uploads').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return row ? { ...row, content: Buffer.from(row.content) } : undefined;
}

/** Deletes the upload; false when it was already gone (confirmed by another request). */
export async function deleteUpload(db: Executor, id: number): Promise<boolean> {
  const r = await db.deleteFrom('patient_import_uploads').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}
