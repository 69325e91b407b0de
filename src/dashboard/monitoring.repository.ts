import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Database, Executor } from '../db/database.js';
import { addDays } from '../shared/dates.js';
import type { StaleMonitoring } from './views/dashboard.page.js';

/** How far back a monitoring record keeps a patient off the dashboard's list. */
export const MONITORING_WINDOW_DAYS = 90;

/** Below this many stale patients, their page is sorted from the index of dates rather than found by a walk. */
export const FEW_STALE = 500;

/**
 * Patients with an ACTIVO Ingreso and no monitoring record (voided ones aside, any of their cycles) dated
 * within the last 90 days, with the date of their latest one; by apellido, nombre, id; at most `limit`, and
 * the total. patients.ultimo_monitoreo (kept by triggers, migration 0021) is that latest date, so "none within
 * the window" is "null or before the cutoff": the total a sum of counters, the ids ranges of
 * patients_active_monitoreo_idx.
 */
export async function listStaleMonitoring(db: Executor, today: string, limit: number): Promise<{ total: number; rows: StaleMonitoring[] }> {
  const cutoff = addDays(today, -MONITORING_WINDOW_DAYS);
  // dashboard_monitoreo_counts (migration 0070): the active patients per ultimo_monitoreo, '' for never, which
  // sorts before every date; kept by triggers in each write's transaction.
  const totalRow = await db
    .selectFrom('dashboard_monitoreo_counts')
    .select(sql<number | string>`coalesce(sum(n), 0)`.as('n'))
    .where('ultimo', '<', cutoff)
    .executeTakeFirstOrThrow();
  const total = Number(totalRow.n);
  // The page: when stale patients are many, walking the active patients in name order (patients_active_order_idx)
  // finds 50 of them after ~80,000 / total × 50 entries; when they are few, that walk would read every active
  // patient, so their ids come from the two ranges instead and only those few are sorted.
  const few = total <= FEW_STALE;
  const ids = (condition: Expression<SqlBool>) => db.selectFrom('patients as s').select('s.id').where('s.activo_desde', 'is not', null).where(condition);
  const staleIds = ids(sql<SqlBool>`s.ultimo_monitoreo is null`).unionAll(ids(sql<SqlBool>`s.ultimo_monitoreo < ${cutoff}`));
  const stale = (eb: ExpressionBuilder<Database & { p: Database['patients'] }, 'p'>) =>
    few ? eb('p.id', 'in', staleIds) : sql<SqlBool>`(p.ultimo_monitoreo is null or p.ultimo_monitoreo < ${cutoff})`;
  const rows = await db
    .selectFrom('patients as p')
    .where('p.activo_desde', 'is not', null)
    .where(stale)
    .select(['p.id as pacienteId', 'p.nombre', 'p.apellido', 'p.documento', sql<string | null>`p.ultimo_monitoreo`.as('ultimo')])
    .orderBy('p.apellido_norm')
    .orderBy('p.nombre_norm')
    .orderBy('p.id')
    .limit(limit)
    .execute();
  return { total, rows };
}
