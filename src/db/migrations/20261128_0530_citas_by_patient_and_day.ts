import type { Kysely } from 'kysely';

// The clinical view offers the patient's visits booked today (listBookedVisitsOn: patient, day, AGENDADA). With
// (paciente_id, estado) SQLite, which keeps no statistics, read the visits of the whole clinic's day by
// citas_fecha_idx (about a thousand at 100,000 patients, 2.2 ms of a 5.8 ms page) instead of the patient's few
// (citas_dia_idx, which replaced it in migration 0500, starts with the day too).
// The index of a patient's visits takes the day and the time too: three equalities and the order, a handful of
// rows; its old prefix (paciente_id, estado) serves what it served (decision 0230).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('citas_paciente_idx').execute();
  await db.schema.createIndex('citas_paciente_idx').on('citas').columns(['paciente_id', 'estado', 'fecha', 'hora']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('citas_paciente_idx').execute();
  await db.schema.createIndex('citas_paciente_idx').on('citas').columns(['paciente_id', 'estado']).execute();
}
