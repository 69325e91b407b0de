import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// "Not a view" as three inequalities instead of `not in (…)`, in the partial index of a patient's changes
// (migration 0050) and in the trigger that bumps the patient's counter (migration 0110). SQLite evaluates an IN
// list of three or more constants by building a temporary b-tree, and it builds it again for every row an insert
// writes: every view of a record paid it twice in the audit writer's thread (~10 µs a view at 100,000 patients,
// more than the rest of its insert), every change once more (decision 0056). Same rows, same meaning: an action
// is never null. The history's queries say it word for word, as the index's condition must be for both engines
// to use it. Migrations never import application code: the list is written here as in 0050, 0110 and
// audit.labels.ts (VIEW_ACTIONS).

const VIEWS = ['patient.view', 'exam.view_clinical', 'exam.view_archive'];
const notAView = (column: string) => VIEWS.map((v) => `${column} <> '${v}'`).join(' and ');
const inList = (column: string) => `${column} not in (${VIEWS.map((v) => `'${v}'`).join(', ')})`;

async function recreate(db: Kysely<unknown>, condition: (column: string) => string): Promise<void> {
  await sql`drop index audit_log_patient_changes_idx`.execute(db);
  await sql`create index audit_log_patient_changes_idx on audit_log (patient_id, id) where ${sql.raw(condition('action'))}`.execute(db);
  if (isPostgres(db)) {
    // The function (migration 0110) stays; only the trigger's condition changes.
    await sql`drop trigger audit_log_changes_bump_patient on audit_log`.execute(db);
    await sql`create trigger audit_log_changes_bump_patient after insert on audit_log for each row
      when (new.patient_id is not null and ${sql.raw(condition('new.action'))}) execute function audit_log_changes_bump_patient()`.execute(db);
    return;
  }
  await sql`drop trigger audit_log_changes_bump_patient`.execute(db);
  await sql`create trigger audit_log_changes_bump_patient after insert on audit_log
    when new.patient_id is not null and ${sql.raw(condition('new.action'))}
    begin
      insert into patient_versions (paciente_id, n) values (new.patient_id, 1)
        on conflict (paciente_id) do update set n = n + 1;
    end`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await recreate(db, notAView);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await recreate(db, inList);
}
