import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// Sessions end with their password (issue 25, point 6; decision 0061). Every user carries a password generation,
// which a password change, an administrator's reset and a deactivation bump; every session carries the generation
// it was opened under. In the database itself:
// - a session cannot be inserted under a generation that is not its user's current one;
// - bumping a user's generation deletes every session of that user opened under another (the session the user
//   keeps when changing their own password is moved to the new generation first, by the same transaction).
// The session lookup also joins on the generation, so a row that outlived its password is never honoured.

const REFUSED = 'session opened under a replaced password';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column password_generation integer not null default 0`.execute(db);
  await sql`alter table sessions add column password_generation integer not null default 0`.execute(db);
  if (isPostgres(db)) {
    await sql`create function sessions_open_under_current_password() returns trigger language plpgsql as $$
      begin
        if new.password_generation is distinct from (select password_generation from users where id = new.user_id) then
          raise exception '${sql.raw(REFUSED)}' using errcode = '23514';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger sessions_open_under_current_password before insert on sessions
      for each row execute function sessions_open_under_current_password()`.execute(db);
    await sql`create function users_password_generation_ends_sessions() returns trigger language plpgsql as $$
      begin
        delete from sessions where user_id = new.id and password_generation <> new.password_generation;
        return null;
      end $$`.execute(db);
    await sql`create trigger users_password_generation_ends_sessions after update of password_generation on users
      for each row when (new.password_generation <> old.password_generation)
      execute function users_password_generation_ends_sessions()`.execute(db);
    return;
  }
  await sql`create trigger sessions_open_under_current_password before insert on sessions
    when new.password_generation is not (select password_generation from users where id = new.user_id)
    begin
      select raise(abort, '${sql.raw(REFUSED)}');
    end`.execute(db);
  await sql`create trigger users_password_generation_ends_sessions after update of password_generation on users
    when new.password_generation <> old.password_generation
    begin
      delete from sessions where user_id = new.id and password_generation <> new.password_generation;
    end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger users_password_generation_ends_sessions on users`.execute(db);
    await sql`drop function users_password_generation_ends_sessions()`.execute(db);
    await sql`drop trigger sessions_open_under_current_password on sessions`.execute(db);
    await sql`drop function sessions_open_under_current_password()`.execute(db);
  } else {
    await sql`drop trigger users_password_generation_ends_sessions`.execute(db);
    await sql`drop trigger sessions_open_under_current_password`.execute(db);
  }
  await sql`alter table sessions drop column password_generation`.execute(db);
  await sql`alter table users drop column password_generation`.execute(db);
}
