// Pure rules of the month's enrolment report per insurer (GET /dashboard/novedades/, issue 27, decision 0130):
// reading its query string, and the names of its novedades. No I/O; "today" is an argument.

import { ENTIDADES_SALUD, choiceValues } from '../patients/patient.rules.js';
import { parseCapitaMonth, type CapitaMonth } from './dashboard.rules.js';
import { parsePageNumber } from '../shared/paging.js';

/** The kinds of novedad, in the order the report totals them. */
export const NOVEDAD_TIPOS = ['APERTURA', 'SUSPENSION', 'REACTIVACION', 'TERMINACION', 'CAMBIO_ENTIDAD'] as const;
export type NovedadTipo = (typeof NOVEDAD_TIPOS)[number];

/** What a staff member reads for each kind (es-CO). */
export const NOVEDAD_LABELS: Record<NovedadTipo, string> = {
  APERTURA: 'Ciclos abiertos',
  SUSPENSION: 'Ciclos suspendidos',
  REACTIVACION: 'Ciclos reactivados',
  TERMINACION: 'Ciclos terminados',
  CAMBIO_ENTIDAD: 'Cambios de entidad de salud',
};

/** One row's kind, in the singular. */
export const NOVEDAD_ROW_LABELS: Record<NovedadTipo, string> = {
  APERTURA: 'Apertura de ciclo',
  SUSPENSION: 'Suspensión',
  REACTIVACION: 'Reactivación',
  TERMINACION: 'Terminación',
  CAMBIO_ENTIDAD: 'Cambio de entidad',
};

/**
 * The kind of a change of an Ingreso's estado (a row of ingreso_historial): opened (desde null), suspended,
 * reactivated (SUSPENDIDO → ACTIVO), terminated. The repository writes the same rule as a CASE (kept beside it).
 */
export function novedadOfChange(desde: string | null, hacia: string): NovedadTipo | null {
  if (desde === null) return 'APERTURA';
  if (hacia === 'SUSPENDIDO') return 'SUSPENSION';
  if (hacia === 'TERMINADO') return 'TERMINACION';
  if (hacia === 'ACTIVO') return 'REACTIVACION';
  return null;
}

export const NOVEDADES_MESSAGES = {
  missing: 'Indique el mes del informe (AAAA-MM, por ejemplo 2026-11).',
  invalid: (raw: string): string => `«${raw}» no es un mes válido. Use el formato AAAA-MM, por ejemplo 2026-11.`,
  future: (mes: string): string => `El mes ${mes} todavía no ha comenzado: el informe de novedades solo existe para el mes actual o meses pasados.`,
  entidadMissing: 'Elija la entidad de salud del informe (ENTITY_A o ENTITY_B).',
  entidadUnknown: 'La entidad de salud indicada no existe. Elija ENTITY_A o ENTITY_B.',
} as const;

/** Rows of each list on one page of the report. */
export const NOVEDADES_PAGE_SIZE = 50;

export type ReportMonth = Extract<CapitaMonth, { kind: 'current' | 'past' }>;

/** The form as typed (cut to a sane length), to show again beside its errors. */
export interface NovedadesForm {
  mes: string;
  entidad_salud: string;
}

export type NovedadesQuery =
  | { ok: true; month: ReportMonth; entidad: string; page: number; pageNovedades: number; form: NovedadesForm }
  | { ok: false; errors: Partial<Record<keyof NovedadesForm, string>>; form: NovedadesForm };


/**
 * The query string of the report and its CSV: `mes` (this month or a past one, as capita.csv reads it), the
 * required `entidad_salud`, and the page of each list. Every refusal is a message beside its field.
 */
export function parseNovedadesQuery(
  raw: { mes: string | undefined; entidad_salud: string | undefined; page?: string | undefined; page_novedades?: string | undefined },
  today: string,
): NovedadesQuery {
  const form: NovedadesForm = { mes: (raw.mes ?? '').trim().slice(0, 40), entidad_salud: (raw.entidad_salud ?? '').trim().slice(0, 40) };
  const errors: Partial<Record<keyof NovedadesForm, string>> = {};
  const month = parseCapitaMonth(raw.mes, today);
  if (month.kind === 'missing') errors.mes = NOVEDADES_MESSAGES.missing;
  else if (month.kind === 'invalid') errors.mes = NOVEDADES_MESSAGES.invalid(month.raw);
  else if (month.kind === 'future') errors.mes = NOVEDADES_MESSAGES.future(month.mes);
  const entidades: readonly string[] = choiceValues(ENTIDADES_SALUD);
  if (form.entidad_salud === '') errors.entidad_salud = NOVEDADES_MESSAGES.entidadMissing;
  else if (!entidades.includes(form.entidad_salud)) errors.entidad_salud = NOVEDADES_MESSAGES.entidadUnknown;
  if (month.kind !== 'current' && month.kind !== 'past') return { ok: false, errors, form };
  if (errors.entidad_salud !== undefined) return { ok: false, errors, form };
  return { ok: true, month, entidad: form.entidad_salud, page: parsePageNumber(raw.page), pageNovedades: parsePageNumber(raw.page_novedades), form: { ...form, mes: month.mes } };
}
