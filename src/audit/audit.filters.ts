// The query string of /users/audit/ (and its CSV export): filters read leniently. A bad value is reported in
// Spanish and ignored, so the page always renders.

import { addDays, parseIsoDate, startOfDayUtc } from '../shared/dates.js';
import { parseId, queryValue } from '../web/form.js';
import type { AuditFilters } from './audit.repository.js';

export const AUDIT_FILTER_FIELDS = ['usuario', 'accion', 'entidad', 'registro', 'paciente', 'desde', 'hasta'] as const;
export type AuditFilterValues = Record<(typeof AUDIT_FILTER_FIELDS)[number], string>;

export interface ParsedAuditQuery {
  /** what the person typed, to show in the form again */
  values: AuditFilterValues;
  filters: AuditFilters;
  /** Spanish explanations of the values that were ignored */
  errors: string[];
  /** keyset cursor: show entries older than this entry id */
  antes: number | null;
}

const short = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

export function parseAuditQuery(query: unknown, timeZone: string): ParsedAuditQuery {
  const values = Object.fromEntries(
    AUDIT_FILTER_FIELDS.map((f) => [f, (queryValue(query, f) ?? '').trim().slice(0, 200)]),
  ) as AuditFilterValues;
  const errors: string[] = [];
  const filters: AuditFilters = {};

  const idOf = (name: 'usuario' | 'registro' | 'paciente', label: string): number | null => {
    const raw = values[name];
    if (raw === '') return null;
    const id = parseId(raw);
    if (id === null) errors.push(`${label} «${short(raw)}» no es un número válido; se ignoró ese filtro.`);
    return id;
  };
  filters.userId = idOf('usuario', 'El usuario');
  filters.entityId = idOf('registro', 'El número de registro');
  // The patient by number, or by documento or name as people say them (issue 29, point 8).
  if (/^\d+$/.test(values.paciente)) filters.patientId = idOf('paciente', 'El número de paciente');
  else if (values.paciente !== '') filters.patientText = values.paciente;

  if (values.accion !== '') {
    if (/^[a-z_.]{1,60}$/.test(values.accion)) filters.action = values.accion;
    else errors.push(`La acción «${short(values.accion)}» no es válida; se ignoró ese filtro.`);
  }
  if (values.entidad !== '') {
    if (/^[a-z_]{1,40}$/.test(values.entidad)) filters.entityType = values.entidad;
    else errors.push(`El tipo de registro «${short(values.entidad)}» no es válido; se ignoró ese filtro.`);
  }

  const dateOf = (name: 'desde' | 'hasta', label: string): string | null => {
    const raw = values[name];
    if (raw === '') return null;
    const d = parseIsoDate(raw);
    if (d === null) errors.push(`La fecha ${label} «${short(raw)}» no es válida (use AAAA-MM-DD); se ignoró.`);
    return d;
  };
  const desde = dateOf('desde', 'inicial');
  const hasta = dateOf('hasta', 'final');
  if (desde && hasta && desde > hasta) {
    errors.push('La fecha inicial es posterior a la final: no hay entradas en ese rango.');
  }
  if (desde) filters.fromInstant = startOfDayUtc(desde, timeZone);
  if (hasta) filters.toInstant = startOfDayUtc(addDays(hasta, 1), timeZone);

  const antes = parseId(queryValue(query, 'antes'));
  return { values, filters, errors, antes };
}

/** The query string of the filters (without the cursor), for links that keep them. */
export function auditQueryString(values: AuditFilterValues, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const f of AUDIT_FILTER_FIELDS) if (values[f] !== '') params.set(f, values[f]);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}
