import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// One version per patient (decision 0049): a counter bumped by every change of the patient's row, its Ingresos,
// their history and its exam records, so a write to one patient leaves every other patient's kept record page
// kept. This migration creates the table; its triggers are installed after the migrations from the list in
// src/platform/pages/table-versions.ts, as the table versions' are. A patient without a row has version 0; rows are only
// ever added or incremented, never removed.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('patient_versions')
    .addColumn('paciente_id', 'integer', (c) => c.primaryKey())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .execute();
}

/** The triggers installed after the migrations go first: they write to the table. */
export async function down(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const triggers = pg
    ? await sql<{ name: string; table: string }>`select t.tgname as name, c.relname as table from pg_trigger t
        join pg_class c on c.oid = t.tgrelid where not t.tgisinternal and t.tgname like '%\\_patient\\_version'
        and c.relnamespace = current_schema()::regnamespace`.execute(db)
    : await sql<{ name: string; table: string }>`select name, tbl_name as "table" from sqlite_master
        where type = 'trigger' and name like '%\\_patient\\_version\\_%' escape '\\'`.execute(db);
  for (const t of triggers.rows) {
    await sql.raw(pg ? `drop trigger ${t.name} on ${t.table}` : `drop trigger ${t.name}`).execute(db);
    if (pg) await sql.raw(`drop function if exists ${t.name}()`).execute(db);
  }
  await db.schema.dropTable('patient_versions').execute();
}
