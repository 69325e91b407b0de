// The month's enrolment report of one insurer as CSV (GET /dashboard/novedades.csv, decision 0130): first the
// capitation list, row for row what capita.csv gives for the same month and insurer (the same generator), then the
// month's novedades; streamed a page at a time, and its 'export' entry written once its rows are out.

import { auditedExport } from '../audit/audit.actions.js';
import { mesCapita } from '../ingresos/ingreso.rules.js';
import { todayOf, type ActionContext } from '../platform/writes/action-context.js';
import { csvDecimal, EXPORT_PAGE_SIZE, keysetBatches, type CsvDownload } from '../shared/csv.js';
import { todayIn } from '../shared/dates.js';
import { capitaQueryOf } from './dashboard.export.js';
import { capitaPages } from './dashboard.repository.js';
import { capitaReferenceDate } from './dashboard.rules.js';
import { findNovedadesPage, type NovedadRow } from './novedades.repository.js';
import type { ReportMonth } from './novedades.rules.js';

export const NOVEDADES_HEADER = [
  'novedad',
  'fecha',
  'documento',
  'tipo_documento',
  'nombre',
  'apellido',
  'entidad_salud',
  'programa',
  'mes_capita',
  'valor_capita',
  'motivo',
  'entidad_anterior',
  'entidad_nueva',
] as const;

/** The word of the CSV's first column for a patient of the capitation list. */
export const INSCRITO = 'INSCRITO';

/** The day a novedad took effect: its date, or the day (in TIME_ZONE) of the instant it was recorded. */
export function novedadFecha(row: Pick<NovedadRow, 'orden'>, timeZone: string): string {
  return row.orden.length === 10 ? row.orden : todayIn(timeZone, new Date(row.orden));
}

/** The report of one insurer for a month (current or past, as parseNovedadesQuery read it). */
/** The patient's cells of a row, in the header's order: the same for an enrolled patient and a novedad. */
const patientCells = (r: { documento: string; tipo_documento: string; nombre: string; apellido: string; entidad_salud: string; programa: string }) => [
  r.documento,
  r.tipo_documento,
  r.nombre,
  r.apellido,
  r.entidad_salud,
  r.programa,
];

export function exportNovedades(ctx: ActionContext, input: { month: ReportMonth; entidad: string; timeZone: string }): CsvDownload {
  const { db } = ctx;
  const { month, entidad, timeZone } = input;
  const q = { ...capitaQueryOf(month, entidad, timeZone), entidad };
  const reference = capitaReferenceDate(month, todayOf(ctx));
  async function* pages() {
    for await (const page of capitaPages(db, q, EXPORT_PAGE_SIZE)) {
      yield page.map((r) => [
        INSCRITO,
        r.fecha_inicio,
        ...patientCells(r),
        mesCapita(r.fecha_inicio, reference),
        csvDecimal(r.valor_capita),
        '',
        '',
        '',
      ]);
    }
    const novedades = keysetBatches<NovedadRow>((after) => findNovedadesPage(db, q, { after, limit: EXPORT_PAGE_SIZE }), EXPORT_PAGE_SIZE);
    for await (const page of novedades) {
      yield page.map((r) => [
        r.tipo,
        novedadFecha(r, timeZone),
        ...patientCells(r),
        '',
        '',
        r.motivo ?? '',
        r.entidad_anterior ?? '',
        r.entidad_nueva ?? '',
      ]);
    }
  }
  return auditedExport(ctx, {
    name: 'novedades',
    fileName: `novedades-${month.mes}-${entidad}.csv`,
    filters: { mes: month.mes, entidad_salud: entidad },
    header: NOVEDADES_HEADER,
    pages: pages(),
  });
}
