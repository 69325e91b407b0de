import { sql, type Kysely } from 'kysely';

// The agenda's worklists at 100,000 patients (issue 28, decision 0147), replacing two indexes of migration 0410:
// - the no-shows are walked by date in an index of the no-shows alone that holds what the list asks of each (its
//   cycle, kind and start), so that the walk reads no table row until a no-show is kept (150,000 no-shows since the
//   oldest open cycle at 100,000 patients; the table rows were most of the list's time);
// - "re-booked on the day or later?" is one seek into the booked and attended visits by (cycle, kind, start);
// - the filter by professional reads the professional's cycles from (profesional_id, ingreso_id), a range of the
//   index, once a statement, instead of one probe per cycle the list walks.
// estado is in the no-shows' index (a constant) so that SQLite, which has no statistics, prefers it to
// citas_estado_vence_idx (estado=?) for the walk.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index citas_inasistencias_idx on citas (estado, fecha, id, ingreso_id, tipo, inicio_min) where estado = 'NO_ASISTIO'`.execute(db);
  await sql`create index citas_reagendadas_idx on citas (ingreso_id, tipo, inicio_min) where estado in ('AGENDADA', 'ATENDIDA')`.execute(db);
  await db.schema.createIndex('citas_profesional_ingreso_idx').on('citas').columns(['profesional_id', 'ingreso_id']).execute();
  await db.schema.dropIndex('citas_estado_fecha_idx').execute();
  await db.schema.dropIndex('citas_ingreso_profesional_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('citas_ingreso_profesional_idx').on('citas').columns(['ingreso_id', 'profesional_id']).execute();
  await db.schema.createIndex('citas_estado_fecha_idx').on('citas').columns(['estado', 'fecha']).execute();
  await db.schema.dropIndex('citas_profesional_ingreso_idx').execute();
  await sql`drop index citas_reagendadas_idx`.execute(db);
  await sql`drop index citas_inasistencias_idx`.execute(db);
}
