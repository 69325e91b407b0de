import { sql, type Kysely } from 'kysely';

// The login lock holds under concurrency (issue 25, point 4; decision 0060). One row per user name tried: a login
// attempt first upserts it, which on PostgreSQL holds that row's lock until the attempt's transaction commits, so
// the attempts on one name take their turns reading the recent failures and recording their own (SQLite runs one
// write transaction at a time anyway). `attempts` counts the attempts since the last successful login.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table login_throttle (
    username_key text primary key,
    attempts integer not null check (attempts >= 0),
    last_attempt_at text not null
  )`.execute(db);
  // The periodic cleanup removes the names nobody has tried for a while.
  await sql`create index login_throttle_last_attempt_idx on login_throttle (last_attempt_at)`.execute(db);
  await sql`create index login_failures_at_idx on login_failures (at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index login_failures_at_idx`.execute(db);
  await sql`drop table login_throttle`.execute(db);
}
