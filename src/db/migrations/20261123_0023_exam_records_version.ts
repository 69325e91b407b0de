import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// exam_records_version: a counter bumped by every change of exam records, read with dashboard_version (patients
// and Ingresos, migration 0021) to key the rendered clinical views (decision 0016). Same shape as
// dashboard_version: on PostgreSQL 16 slots, one bump per statement in the backend's slot, so concurrent writers
// rarely share a row; on SQLite one slot, bumped per row. The version is the sum of the slots.
const PG_SLOTS = 16;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await db.schema
    .createTable('exam_records_version')
    .addColumn('slot', 'integer', (c) => c.primaryKey())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .execute();
  await db
    .insertInto('exam_records_version')
    .values(Array.from({ length: pg ? PG_SLOTS : 1 }, (_, slot) => ({ slot, n: 0 })))
    .execute();
  if (pg) {
    await sql
      .raw(
        `create function exam_records_version_bump() returns trigger language plpgsql as $$ begin
          update exam_records_version set n = n + 1 where slot = pg_backend_pid() % ${PG_SLOTS};
          return null;
        end $$`,
      )
      .execute(db);
    await sql
      .raw(`create trigger exam_records_version after insert or update or delete on exam_records
        for each statement execute function exam_records_version_bump()`)
      .execute(db);
  } else {
    for (const op of ['insert', 'update', 'delete']) {
      await sql
        .raw(`create trigger exam_records_version_${op} after ${op} on exam_records
          begin update exam_records_version set n = n + 1; end`)
        .execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger if exists exam_records_version on exam_records`.execute(db);
    await sql`drop function if exists exam_records_version_bump()`.execute(db);
  } else {
    for (const op of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists exam_records_version_${op}`).execute(db);
  }
  await db.schema.dropTable('exam_records_version').execute();
}
