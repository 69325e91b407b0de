import type { Kysely } from 'kysely';

// One version per patient (decision 0049): a counter bumped by every change of the patient's row, its Ingresos,
// their history and its exam records, so a write to one patient leaves every other patient's kept record page
// kept. This migration creates the table; its triggers are installed after the migrations from the list in
// src/db/table-versions.ts, as the table versions' are. A patient without a row has version 0; rows are only
// ever added or incremented, never removed.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('patient_versions')
    .addColumn('paciente_id', 'integer', (c) => c.primaryKey())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('patient_versions').execute();
}
