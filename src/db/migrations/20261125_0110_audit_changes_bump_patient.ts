import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// An entry of a patient's history that is not a view (a change, an export) bumps the patient's counter in
// patient_versions (decision 0049), in the same transaction as the entry. The history kept for the patient page
// is then current while the counter stands, and a visit reads one counter instead of the trail (decision 0051).
// Views (one a visit, written in groups by their own thread) bump nothing: the page keeps them behind a filter.
// Migrations never import application code: the list of views is written here as in migration 0050 and in
// audit.labels.ts (VIEW_ACTIONS); a test inserts every action the trail knows and checks which ones bump.

const NOT_A_VIEW = sql.raw(`new.action not in ('patient.view', 'exam.view_clinical', 'exam.view_archive')`);

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`create function audit_log_changes_bump_patient() returns trigger language plpgsql as $$
      begin
        insert into patient_versions (paciente_id, n) values (new.patient_id, 1)
          on conflict (paciente_id) do update set n = patient_versions.n + 1;
        return null;
      end $$`.execute(db);
    await sql`create trigger audit_log_changes_bump_patient after insert on audit_log for each row
      when (new.patient_id is not null and ${NOT_A_VIEW}) execute function audit_log_changes_bump_patient()`.execute(db);
    return;
  }
  await sql`create trigger audit_log_changes_bump_patient after insert on audit_log
    when new.patient_id is not null and ${NOT_A_VIEW}
    begin
      insert into patient_versions (paciente_id, n) values (new.patient_id, 1)
        on conflict (paciente_id) do update set n = n + 1;
    end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger if exists audit_log_changes_bump_patient on audit_log`.execute(db);
    await sql`drop function if exists audit_log_changes_bump_patient()`.execute(db);
    return;
  }
  await sql`drop trigger if exists audit_log_changes_bump_patient`.execute(db);
}
