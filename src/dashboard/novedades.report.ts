// What GET /dashboard/novedades/ shows (decision 0130): the month's capitation list of one insurer, a page of it,
// its totals, and a page of the month's novedades with their count per kind. Reads only; the statements run one
// after another (a request holds at most one connection of the pool).

import type { Executor } from '../db/database.js';
import { pageOf } from '../shared/paging.js';
import { mesCapita } from '../ingresos/ingreso.rules.js';
import { capitaQueryOf } from './dashboard.export.js';
import { capitaReferenceDate } from './dashboard.rules.js';
import { novedadFecha } from './novedades.export.js';
import { countNovedades, findCapitaPage, findNovedadesPage } from './novedades.repository.js';
import { NOVEDAD_TIPOS, NOVEDADES_PAGE_SIZE, type NovedadTipo, type ReportMonth } from './novedades.rules.js';
import type { NovedadesReport } from './views/novedades.page.js';

export async function readNovedadesReport(
  db: Executor,
  input: { month: ReportMonth; entidad: string; page: number; pageNovedades: number; today: string; timeZone: string },
): Promise<NovedadesReport> {
  const { month, entidad, today, timeZone } = input;
  const q = { ...capitaQueryOf(month, entidad, timeZone), entidad };
  const reference = capitaReferenceDate(month, today);

  const { rows: inscritos, totals, page, pageCount } = await findCapitaPage(db, q, input.page, NOVEDADES_PAGE_SIZE);

  const byKind = await countNovedades(db, q);
  const counts = Object.fromEntries(NOVEDAD_TIPOS.map((t) => [t, byKind.get(t) ?? 0])) as Record<NovedadTipo, number>;
  const total = NOVEDAD_TIPOS.reduce((s, t) => s + counts[t], 0);
  const { page: novedadesPage, pageCount: novedadesPageCount, offset } = pageOf(input.pageNovedades, total, NOVEDADES_PAGE_SIZE);
  const novedades = total === 0 ? [] : await findNovedadesPage(db, q, { offset, limit: NOVEDADES_PAGE_SIZE });

  return {
    mes: month.mes,
    entidad,
    current: month.kind === 'current',
    totals,
    counts,
    inscritos: {
      page,
      pageCount,
      rows: inscritos.map((r) => ({
        pacienteId: r.id,
        documento: r.documento,
        tipoDocumento: r.tipo_documento,
        nombre: r.nombre,
        apellido: r.apellido,
        programa: r.programa,
        fechaInicio: r.fecha_inicio,
        mesCapita: mesCapita(r.fecha_inicio, reference),
        valorCapita: r.valor_capita,
      })),
    },
    novedades: {
      total,
      page: novedadesPage,
      pageCount: novedadesPageCount,
      rows: novedades.map((r) => ({
        tipo: r.tipo,
        fecha: novedadFecha(r, timeZone),
        pacienteId: r.paciente_id,
        documento: r.documento,
        nombre: r.nombre,
        apellido: r.apellido,
        motivo: r.motivo,
        entidadAnterior: r.entidad_anterior,
        entidadNueva: r.entidad_nueva,
      })),
    },
  };
}
