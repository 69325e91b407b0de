import { sql, type Kysely } from 'kysely';

// A professional's day and week (issue 28, decision 0325): their visits are a range of citas_profesional_idx
// (profesional_id, inicio_min), and each visit's row was then read for what the agenda shows of it, ~45 rows at random
// in a 2.1 M-row table for a week. The index now carries those columns (the state, date, time, id, length, patient,
// kind and resource), so that the range alone gives the visits and only their patients' names are read elsewhere.
// Partial as before (decision 0300): a due visit has no professional, so a creation's plan writes no entry here.
// The same name, leading columns and condition: the overlap guard and every query that used it are served as before.

const NARROW = 'profesional_id, inicio_min';
const COVERING = 'profesional_id, inicio_min, estado, fecha, hora, id, duracion_min, paciente_id, tipo, recurso_id';

async function rebuild(db: Kysely<any>, columns: string): Promise<void> {
  await sql`drop index citas_profesional_idx`.execute(db);
  await sql.raw(`create index citas_profesional_idx on citas (${columns}) where profesional_id is not null`).execute(db);
}

export const up = (db: Kysely<any>): Promise<void> => rebuild(db, COVERING);
export const down = (db: Kysely<any>): Promise<void> => rebuild(db, NARROW);
