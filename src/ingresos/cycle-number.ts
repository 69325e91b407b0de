// One numbering of a patient's cycles everywhere (issue 29, decision 0115): ciclo 1, 2, 3 in order of start,
// ties by creation. Computed by the database from the patient's Ingresos (a few rows, read through the index
// (paciente_id, id)), never stored: it cannot drift from the rows it counts.

import { sql, type RawBuilder } from 'kysely';

/** The number of the Ingreso row named `alias` among its patient's (a correlated count; works on both engines). */
export function cycleNumberOf(alias: string): RawBuilder<number> {
  const ref = (column: string) => sql.ref(`${alias}.${column}`);
  return sql<number>`(select cast(count(*) as integer) from ingresos cn
    where cn.paciente_id = ${ref('paciente_id')}
      and (cn.fecha_inicio < ${ref('fecha_inicio')} or (cn.fecha_inicio = ${ref('fecha_inicio')} and cn.id <= ${ref('id')})))`;
}

/** How a cycle is named on every page, in the trail and in exports. */
export const cycleName = (numero: number) => `Ciclo ${numero}`;
