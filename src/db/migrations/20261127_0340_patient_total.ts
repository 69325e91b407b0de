import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// How many patients there are, kept by triggers (issue 30, decision 0122). The lists of every patient (the follow
// page, searches that do not keep to the active ones) counted `patients` on every uncached request: a scan of an
// index of every patient, 1.1 ms of CPU at 100,000 on SQLite. patient_total holds the count in slots, like the
// table versions (decision 0023): PostgreSQL adds to the slot of the backend (pg_backend_pid() % 16), so two
// transactions creating patients do not queue on one row; SQLite has one writer and one slot. The total is the sum
// of at most 16 rows.

const PG_SLOTS = 16;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await db.schema
    .createTable('patient_total')
    .addColumn('slot', 'integer', (c) => c.primaryKey())
    .addColumn('n', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into patient_total (slot, n) select 0, count(*) from patients`.execute(db);
  if (pg) {
    await sql
      .raw(
        `create function patient_total_upkeep() returns trigger language plpgsql as $$ begin
          insert into patient_total (slot, n) values (pg_backend_pid() % ${PG_SLOTS}, case when tg_op = 'INSERT' then 1 else -1 end)
            on conflict (slot) do update set n = patient_total.n + excluded.n;
          return null;
        end $$`,
      )
      .execute(db);
    await sql`create trigger patient_total_upkeep after insert or delete on patients for each row execute function patient_total_upkeep()`.execute(db);
  } else {
    await sql`create trigger patient_total_insert after insert on patients begin update patient_total set n = n + 1 where slot = 0; end`.execute(db);
    await sql`create trigger patient_total_delete after delete on patients begin update patient_total set n = n - 1 where slot = 0; end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger patient_total_upkeep on patients`.execute(db);
    await sql`drop function patient_total_upkeep()`.execute(db);
  } else {
    await sql`drop trigger patient_total_insert`.execute(db);
    await sql`drop trigger patient_total_delete`.execute(db);
  }
  await db.schema.dropTable('patient_total').execute();
}
