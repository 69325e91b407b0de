import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { addDays } from '../shared/dates.js';
import type { StaleMonitoring } from './views/dashboard.page.js';

/** How far back a monitoring record keeps a patient off the dashboard's list. */
export const MONITORING_WINDOW_DAYS = 90;

/**
 * Patients with an ACTIVO Ingreso and no monitoring record (voided ones aside, any of their cycles) dated
 * within the last 90 days, with the date of their latest one; by apellido, nombre, id; at most `limit`, and
 * the total.
 */
export async function listStaleMonitoring(db: Executor, today: string, limit: number): Promise<{ total: number; rows: StaleMonitoring[] }> {
  const cutoff = addDays(today, -MONITORING_WINDOW_DAYS);
  const base = db
    .selectFrom('patients as p')
    .innerJoin('ingresos as a', (join) => join.onRef('a.paciente_id', '=', 'p.id').on('a.estado', '=', 'ACTIVO'))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('exam_records as e')
            .innerJoin('ingresos as i', 'i.id', 'e.ingreso_id')
            .select('e.id')
            .whereRef('i.paciente_id', '=', 'p.id')
            .where('e.kind', '=', 'MONITOREO')
            .where('e.anulado_at', 'is', null)
            .where('e.fecha', '>=', cutoff),
        ),
      ),
    );
  const [totalRow, rows] = await Promise.all([
    base.select(sql<number>`cast(count(*) as integer)`.as('n')).executeTakeFirstOrThrow(),
    base
      .select((eb) => [
        'p.id as pacienteId',
        'p.nombre',
        'p.apellido',
        'p.documento',
        eb
          .selectFrom('exam_records as e')
          .innerJoin('ingresos as i', 'i.id', 'e.ingreso_id')
          .select((x) => x.fn.max('e.fecha').as('f'))
          .whereRef('i.paciente_id', '=', 'p.id')
          .where('e.kind', '=', 'MONITOREO')
          .where('e.anulado_at', 'is', null)
          .as('ultimo'),
      ])
      .orderBy('p.apellido_norm')
      .orderBy('p.nombre_norm')
      .orderBy('p.id')
      .limit(limit)
      .execute(),
  ]);
  return { total: Number(totalRow.n), rows: rows.map((r) => ({ ...r, ultimo: r.ultimo ?? null })) };
}
