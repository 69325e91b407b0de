import { sql, type Kysely } from 'kysely';

// A patient's history shows the changes of their record by default; the views of the record (one a visit) are
// behind a filter. Views are most of a patient's entries, so the changes are read from an index of their own:
// (patient_id, id) over the entries that are not views. The queries repeat this condition word for word (and
// as literals, not parameters) so that SQLite and PostgreSQL both prove the index usable.
// Migrations never import application code: the list is written here and in audit.labels.ts (VIEW_ACTIONS).

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index audit_log_patient_changes_idx on audit_log (patient_id, id)
    where action not in ('patient.view', 'exam.view_clinical', 'exam.view_archive')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index audit_log_patient_changes_idx`.execute(db);
}
