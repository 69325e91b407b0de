import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// The spreadsheet import keeps its analysis, not its file (decision 0057): the preview reads the file once, in a
// worker thread, and stores what the confirm will write, in batches; the confirm writes one batch per transaction
// (decision 0058). Each person keeps at most a few previews (decision 0059).
//
// - patient_import_uploads loses `content` (the file is no longer read again) and gains: `state` (preparando while
//   its batches are written, lista once the preview is shown, importando from the first confirmed batch), `bytes`
//   (the size of its batches), `summary` (the preview's counts and columns, JSON), `include_similar` (the
//   person's choice about possible duplicates, fixed by the first confirm), `created` and `left_out` (rows
//   written, rows left out because the database changed meanwhile) and `left_out_lines` (the first of them).
// - patient_import_batches: the rows to write, a JSON array per batch, deleted as each batch is written.
// Previews pending when this runs have no analysis: they are deleted (the person uploads the file again).
//
// Invariants, on both engines: a person holds at most UPLOADS_PER_USER previews and UPLOAD_BYTES_PER_USER bytes of
// them (the application replaces the oldest first; the trigger refuses what slips past it); a batch is added only
// while its upload is being prepared; the state only moves forward; the choice about possible duplicates, once
// made, stays. Migrations never import application code: the bounds are written here as in import.repository.ts.
const UPLOADS_PER_USER = 5;
const UPLOAD_BYTES_PER_USER = 25 * 1024 * 1024;

const STATE_FORWARD = `(old.state = new.state or (old.state = 'preparando' and new.state = 'lista') or (old.state = 'lista' and new.state = 'importando'))`;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await db.deleteFrom('patient_import_uploads').execute();
  await db.schema.alterTable('patient_import_uploads').dropColumn('content').execute();
  const add = (name: string, type: 'text' | 'integer', build: Parameters<ReturnType<typeof db.schema.alterTable>['addColumn']>[2]) =>
    db.schema.alterTable('patient_import_uploads').addColumn(name, type, build).execute();
  await add('state', 'text', (c) =>
    c.notNull().defaultTo('preparando').check(sql`state = 'preparando' or state = 'lista' or state = 'importando'`),
  );
  await add('bytes', 'integer', (c) => c.notNull().defaultTo(0).check(sql`bytes >= 0`));
  await add('summary', 'text', (c) => c.notNull().defaultTo('{}'));
  await add('include_similar', 'integer', (c) => c.check(sql`include_similar = 0 or include_similar = 1`));
  await add('created', 'integer', (c) => c.notNull().defaultTo(0).check(sql`created >= 0`));
  await add('left_out', 'integer', (c) => c.notNull().defaultTo(0).check(sql`left_out >= 0`));
  await add('left_out_lines', 'text', (c) => c.notNull().defaultTo('[]'));

  await db.schema
    .createTable('patient_import_batches')
    .addColumn('upload_id', 'integer', (c) => c.notNull().references('patient_import_uploads.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull().check(sql`seq >= 0`))
    .addColumn('rows_json', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('patient_import_batches_pk', ['upload_id', 'seq'])
    .execute();

  const overBound = (userId: string, bytes: string) => `((select count(*) from patient_import_uploads u where u.user_id = ${userId}) >= ${UPLOADS_PER_USER}
      or (select coalesce(sum(u.bytes), 0) from patient_import_uploads u where u.user_id = ${userId}) + ${bytes} > ${UPLOAD_BYTES_PER_USER})`;
  if (pg) {
    await sql`create function patient_import_uploads_bound() returns trigger language plpgsql as $$
      begin
        if ${sql.raw(overBound('new.user_id', 'new.bytes'))} then
          raise exception 'patient_import_uploads: more than % previews or % bytes for user %', ${sql.lit(UPLOADS_PER_USER)}, ${sql.lit(UPLOAD_BYTES_PER_USER)}, new.user_id;
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger patient_import_uploads_bound before insert on patient_import_uploads for each row execute function patient_import_uploads_bound()`.execute(db);
    await sql`create function patient_import_uploads_forward() returns trigger language plpgsql as $$
      begin
        if not ${sql.raw(STATE_FORWARD)} then
          raise exception 'patient_import_uploads: state % cannot become %', old.state, new.state;
        end if;
        if old.include_similar is not null and new.include_similar is distinct from old.include_similar then
          raise exception 'patient_import_uploads: the choice about possible duplicates is fixed';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger patient_import_uploads_forward before update on patient_import_uploads for each row execute function patient_import_uploads_forward()`.execute(db);
    await sql`create function patient_import_batches_while_preparing() returns trigger language plpgsql as $$
      begin
        if coalesce((select u.state from patient_import_uploads u where u.id = new.upload_id), '') <> 'preparando' then
          raise exception 'patient_import_batches: upload % is not being prepared', new.upload_id;
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger patient_import_batches_while_preparing before insert on patient_import_batches for each row execute function patient_import_batches_while_preparing()`.execute(db);
    return;
  }
  await sql`create trigger patient_import_uploads_bound before insert on patient_import_uploads
    when ${sql.raw(overBound('new.user_id', 'new.bytes'))}
    begin select raise(abort, 'patient_import_uploads: too many previews for the user'); end`.execute(db);
  await sql`create trigger patient_import_uploads_forward before update on patient_import_uploads
    when not ${sql.raw(STATE_FORWARD)} or (old.include_similar is not null and new.include_similar is not old.include_similar)
    begin select raise(abort, 'patient_import_uploads: state or choice cannot go back'); end`.execute(db);
  await sql`create trigger patient_import_batches_while_preparing before insert on patient_import_batches
    when coalesce((select u.state from patient_import_uploads u where u.id = new.upload_id), '') <> 'preparando'
    begin select raise(abort, 'patient_import_batches: upload is not being prepared'); end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger patient_import_uploads_bound on patient_import_uploads`.execute(db);
    await sql`drop trigger patient_import_uploads_forward on patient_import_uploads`.execute(db);
    await sql`drop function patient_import_uploads_bound()`.execute(db);
    await sql`drop function patient_import_uploads_forward()`.execute(db);
  } else {
    await sql`drop trigger patient_import_uploads_bound`.execute(db);
    await sql`drop trigger patient_import_uploads_forward`.execute(db);
  }
  await db.schema.dropTable('patient_import_batches').execute();
  if (isPostgres(db)) await sql`drop function patient_import_batches_while_preparing()`.execute(db);
  await db.deleteFrom('patient_import_uploads').execute();
  for (const column of ['state', 'bytes', 'summary', 'include_similar', 'created', 'left_out', 'left_out_lines']) {
    await db.schema.alterTable('patient_import_uploads').dropColumn(column).execute();
  }
  await db.schema
    .alterTable('patient_import_uploads')
    .addColumn('content', isPostgres(db) ? sql`bytea` : sql`blob`, (c) => c.notNull().defaultTo(isPostgres(db) ? sql`''::bytea` : sql`x''`))
    .execute();
}
