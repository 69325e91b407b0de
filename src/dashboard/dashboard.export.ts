// decisions §8: the month's capitation list as CSV, one row per billable patient, and its 'export' entry.

import { auditedExport } from '../audit/audit.actions.js';
import { mesCapita } from '../ingresos/ingreso.rules.js';
import { todayOf, type ActionContext } from '../platform/writes/action-context.js';
import { csvDecimal, EXPORT_PAGE_SIZE, type CsvDownload } from '../shared/csv.js';
import { startOfDayUtc } from '../shared/dates.js';
import { capitaPages, type CapitaQuery } from './dashboard.repository.js';
import { capitaReferenceDate, type CapitaMonth } from './dashboard.rules.js';

export const CAPITA_HEADER = ['documento', 'tipo_documento', 'nombre', 'apellido', 'entidad_salud', 'programa', 'mes_capita', 'valor_capita'] as const;

/** The capitation list's query of a month (current or past) for one insurer or all (null). */
export function capitaQueryOf(month: Extract<CapitaMonth, { kind: 'current' | 'past' }>, entidad: string | null, timeZone: string): CapitaQuery {
  return {
    kind: month.kind,
    start: month.start,
    end: month.end,
    startInstant: startOfDayUtc(month.start, timeZone),
    endInstant: startOfDayUtc(month.end, timeZone),
    entidad,
  };
}

/** The month (current or past, as parseCapitaMonth read it) for one insurer or all (null). */
export function exportCapita(
  ctx: ActionContext,
  input: { month: Extract<CapitaMonth, { kind: 'current' | 'past' }>; entidad: string | null; timeZone: string },
): CsvDownload {
  const { db } = ctx;
  const { month, entidad, timeZone } = input;
  const q = capitaQueryOf(month, entidad, timeZone);
  const reference = capitaReferenceDate(month, todayOf(ctx));
  async function* pages() {
    for await (const page of capitaPages(db, q, EXPORT_PAGE_SIZE)) {
      yield page.map((r) => [r.documento, r.tipo_documento, r.nombre, r.apellido, r.entidad_salud, r.programa, mesCapita(r.fecha_inicio, reference), csvDecimal(r.valor_capita)]);
    }
  }
  return auditedExport(ctx, {
    name: 'capita',
    fileName: `capita-${month.mes}${entidad ? `-${entidad}` : ''}.csv`,
    filters: { mes: month.mes, entidad },
    header: CAPITA_HEADER,
    pages: pages(),
  });
}
