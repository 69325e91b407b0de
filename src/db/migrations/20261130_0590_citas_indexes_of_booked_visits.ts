import { sql, type Kysely } from 'kysely';

// A cycle's plan is written at its opening: 12 to 14 visits, due, with no date, time, professional, resource or exam
// yet (issue 28). Five indexes of citas serve only what a booked or attended visit has (a day's visits by date, a
// professional's or a resource's by minute, the cycles a professional sees, the visit an exam attended), yet each
// held an entry for every due visit, all at the null end of the index, written by every creation of a patient
// (decision 0300). Each is now partial, on the rows that have the column: every query that uses one names the
// column with `=`, `in` or a range, which both engines read as `is not null`, so the same index still serves it
// (test/performance/query-plans.test.ts pins the plans).

const PARTIAL = [
  { name: 'citas_dia_idx', columns: 'fecha, hora, id, estado, inicio_min', present: 'fecha' },
  { name: 'citas_profesional_idx', columns: 'profesional_id, inicio_min', present: 'profesional_id' },
  { name: 'citas_recurso_idx', columns: 'recurso_id, inicio_min', present: 'recurso_id' },
  { name: 'citas_exam_record_idx', columns: 'exam_record_id', present: 'exam_record_id' },
  { name: 'citas_profesional_ingreso_idx', columns: 'profesional_id, ingreso_id', present: 'profesional_id' },
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const index of PARTIAL) {
    await sql.raw(`drop index ${index.name}`).execute(db);
    await sql.raw(`create index ${index.name} on citas (${index.columns}) where ${index.present} is not null`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of PARTIAL) {
    await sql.raw(`drop index ${index.name}`).execute(db);
    await sql.raw(`create index ${index.name} on citas (${index.columns})`).execute(db);
  }
}
