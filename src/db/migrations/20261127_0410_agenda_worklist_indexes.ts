import type { Kysely } from 'kysely';

// The agenda's worklists at 100,000 patients (issue 28, decision 0146), found by the benchmark's visits
// (bench/visits.ts: every cycle's plan, about 2 million visits):
// - the filter by professional asks, for each cycle a list considers, whether the cycle has a visit with that
//   professional: without an index on both, SQLite walked every visit the professional ever had (citas_profesional_idx)
//   for each cycle: seconds a page;
// - the no-shows not re-booked are listed by the missed visit's date: walked in that order by (estado, fecha), the
//   list stops at its 200th row instead of gathering and sorting every no-show of the clinic's history. (Its
//   "re-booked later?" question compares minutes, not dates, so that SQLite, which has no statistics, answers it
//   from the cycle's visits, citas_ingreso_idx, and not by walking every later booked visit by this index.)

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('citas_ingreso_profesional_idx').on('citas').columns(['ingreso_id', 'profesional_id']).execute();
  await db.schema.createIndex('citas_estado_fecha_idx').on('citas').columns(['estado', 'fecha']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('citas_estado_fecha_idx').execute();
  await db.schema.dropIndex('citas_ingreso_profesional_idx').execute();
}
