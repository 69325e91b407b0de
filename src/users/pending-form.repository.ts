import type { Executor } from '../db/database.js';

/** A form posted after its session ended (decision 0110). */
export interface PendingForm {
  page: string;
  action: string;
  fields: [string, string][];
}

/** Keeps the user's form, replacing any earlier one of theirs: only the latest is brought back. */
export async function savePendingForm(
  db: Executor,
  form: PendingForm & { userId: number; now: string },
): Promise<void> {
  const row = { user_id: form.userId, page: form.page, action: form.action, fields: JSON.stringify(form.fields), created_at: form.now };
  await db
    .insertInto('pending_forms')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ page: row.page, action: row.action, fields: row.fields, created_at: row.created_at }))
    .execute();
}

/** The page of the user's form kept since `notBefore`, if any (the login sends the person there). */
export async function pendingFormPage(db: Executor, userId: number, notBefore: string): Promise<string | null> {
  const row = await db
    .selectFrom('pending_forms')
    .select('page')
    .where('user_id', '=', userId)
    .where('created_at', '>=', notBefore)
    .executeTakeFirst();
  return row?.page ?? null;
}

/** The user's form kept since `notBefore` for this page, removed as it is read: it is brought back once. */
export async function takePendingForm(db: Executor, userId: number, page: string, notBefore: string): Promise<PendingForm | null> {
  const row = await db
    .selectFrom('pending_forms')
    .select(['page', 'action', 'fields'])
    .where('user_id', '=', userId)
    .where('page', '=', page)
    .where('created_at', '>=', notBefore)
    .executeTakeFirst();
  if (!row) return null;
  await db.deleteFrom('pending_forms').where('user_id', '=', userId).execute();
  return { page: row.page, action: row.action, fields: JSON.parse(row.fields) as [string, string][] };
}

/** The periodic cleanup: forms nobody came back for. */
export async function deletePendingFormsBefore(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('pending_forms').where('created_at', '<', before).execute();
}
