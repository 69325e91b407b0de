import { sql, type Kysely } from 'kysely';

// The whole clinic's day and week, paged (issue 28, decision 0200): a page counts the days' booked visits and
// skips to its hundred in the order (fecha, hora, id). This index holds all the statement asks of a visit (its
// estado and start, and id for the order), so the count and the skip read no table row; it replaces
// citas_fecha_idx (fecha, hora), whose every use it serves with the same leading columns.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index citas_dia_idx on citas (fecha, hora, id, estado, inicio_min)`.execute(db);
  await db.schema.dropIndex('citas_fecha_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('citas_fecha_idx').on('citas').columns(['fecha', 'hora']).execute();
  await sql`drop index citas_dia_idx`.execute(db);
}
