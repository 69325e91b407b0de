import { sql, type Kysely } from 'kysely';

// The services of a period (RIPS, issue 27, decision 0150): whether a patient had a record not voided in the month,
// and which, is one seek into this index per cycle instead of reading every record of the cycle from the table.
// Partial: voided records are never reported. 0.3 s of CPU less per read of a month at 100,000 patients on SQLite.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index exam_records_ingreso_fecha_idx on exam_records (ingreso_id, fecha) where anulado_at is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index exam_records_ingreso_fecha_idx`.execute(db);
}
