import { sql, type Kysely } from 'kysely';

// A form posted after its session ended is kept, briefly, for the user whose session it was (issue 29, point 2;
// decision 0110): one row per user, the latest such form, read back once on the page the form was on after that
// user logs in again, and removed then or by the periodic cleanup. Nothing in it is ever saved as a record.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table pending_forms (
    user_id integer primary key references users (id),
    page text not null,
    action text not null,
    fields text not null,
    created_at text not null
  )`.execute(db);
  await sql`create index pending_forms_created_at_idx on pending_forms (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index pending_forms_created_at_idx`.execute(db);
  await sql`drop table pending_forms`.execute(db);
}
