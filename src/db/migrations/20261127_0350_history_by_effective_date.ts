import type { Kysely } from 'kysely';

// The novedades report (decision 0130) reads a month's changes of estado by the date they took effect: a change's
// `fecha` (an opening is read through ingresos_fecha_inicio_idx, an undated change through ingreso_historial_at_idx).
// Without this index every report scanned the whole history of every Ingreso.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('ingreso_historial_fecha_idx').on('ingreso_historial').columns(['fecha', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ingreso_historial_fecha_idx').execute();
}
