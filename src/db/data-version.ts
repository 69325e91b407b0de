import { sql } from 'kysely';
import type { Executor } from './database.js';
import { precompiled } from './prepared.js';

// The data versions that key what is computed once and kept (decisions 0012 and 0016): counters the database's
// own triggers bump in the same transaction as every change, so a kept value is valid exactly while its version
// holds, in every process. Each is the sum of its slots.

const selectDataVersion = precompiled((db: Executor) =>
  db.selectFrom('dashboard_version').select(sql<number | string>`coalesce(sum(n), 0)`.as('v')),
);

const selectClinicalVersion = precompiled((db: Executor) =>
  db
    .selectNoFrom([
      sql<number | string>`(select coalesce(sum(n), 0) from dashboard_version)`.as('d'),
      sql<number | string>`(select coalesce(sum(n), 0) from exam_records_version)`.as('e'),
    ]),
);

/**
 * Patients and Ingresos (migration 0021): the dashboard and the patient lists. Exam records reach it through
 * patients.ultimo_monitoreo. One read of at most 16 rows.
 */
export async function readDataVersion(db: Executor): Promise<string> {
  const [row] = await selectDataVersion(db);
  return String(row?.v ?? 0);
}

/** Patients, Ingresos and exam records (migrations 0021 and 0023): the patient's record and clinical view. */
export async function readClinicalVersion(db: Executor): Promise<string> {
  const [row] = await selectClinicalVersion(db);
  return `${row?.d ?? 0}.${row?.e ?? 0}`;
}
