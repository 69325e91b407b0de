// One formatter for every place the audit trail is read (the audit page, each patient's history, the audit
// CSV): a stored change becomes what staff typed and read. Decimals with a comma and their unit (32,4
// eventos/h), money as pesos, dates dd/mm/aaaa, choices by their label, fields by the Spanish label their form
// shows (the field definitions the forms use). Pure; never throws: an entry written by any version of the
// application must still display.
//
// The features define their records' fields and write to the trail (they import audit/), so the trail may not
// import them: the application gives it their definitions once, at start (registerAuditFields, from
// src/app/audit-fields.ts).

import { formatDateEs, formatDateTimeEs } from '../shared/dates.js';
import { formatCop, formatMeasure } from '../shared/decimal.js';
import type { FieldDef, FieldDefs } from '../shared/field-defs.js';
import { displayValue, parseChanges } from './audit.labels.js';

const USER_FIELDS: FieldDefs = {
  username: { label: 'Usuario', kind: 'text' },
  is_admin: { label: 'Administrador', kind: 'boolean' },
  is_active: { label: 'Activo', kind: 'boolean' },
  password: { label: 'Contraseña', kind: 'text' },
  via: { label: 'Medio', kind: 'text' },
};

/** Fields of views, exports and the patient's first cycle (details rather than changes of one record). */
const DETAIL_FIELDS: FieldDefs = {
  ingreso: { label: 'Ciclo', kind: 'text' },
  registros: { label: 'Registros', kind: 'integer' },
  exportacion: { label: 'Exportación', kind: 'text' },
  filtros: { label: 'Filtros', kind: 'text' },
  filas: { label: 'Filas', kind: 'integer' },
  datos: { label: 'Datos', kind: 'text' },
  // An import's summary (imports/import.confirm.ts) and an export's filters: read as words, not as stored JSON
  // (issue 29, point 8).
  archivo: { label: 'Archivo', kind: 'text' },
  sha256: { label: 'Huella del archivo (SHA-256)', kind: 'text' },
  creados: { label: 'Pacientes creados', kind: 'integer' },
  omitidos: { label: 'Filas omitidas', kind: 'integer' },
  con_errores: { label: 'Filas con errores', kind: 'integer' },
  documentos_repetidos: { label: 'Documentos repetidos', kind: 'integer' },
  posibles_duplicados: { label: 'Posibles duplicados', kind: 'integer' },
  posibles_duplicados_importados: { label: 'Posibles duplicados importados', kind: 'boolean' },
  omitidos_por_cambios: { label: 'Filas omitidas por cambios mientras tanto', kind: 'integer' },
  filas_omitidas_por_cambios: { label: 'Filas omitidas por cambios (n.º de fila)', kind: 'text' },
  query_search: { label: 'Búsqueda', kind: 'text' },
  mes_filtro: { label: 'Mes del programa', kind: 'integer' },
  mes: { label: 'Mes', kind: 'text' },
  usuario: { label: 'Usuario (n.º)', kind: 'text' },
  accion: { label: 'Acción', kind: 'text' },
  entidad: { label: 'Tipo de registro', kind: 'text' },
  registro: { label: 'N.º de registro', kind: 'text' },
  paciente: { label: 'Paciente', kind: 'text' },
  desde: { label: 'Desde', kind: 'date' },
  hasta: { label: 'Hasta', kind: 'date' },
};

/** Fields that hold a user's id: shown by the user's name when it is the entry's own actor (always, for these). */
const USER_REFERENCES: ReadonlySet<string> = new Set(['registrado_por', 'anulado_por']);

/** The definitions the trail reads entries with: each record type's, and all of them for a field not found there. */
export interface AuditFields {
  readonly byEntity: Readonly<Record<string, FieldDefs>>;
  readonly all: FieldDefs;
}

/** The record types' definitions (entity_type → fields), with the users' and the details of views and exports. */
export function auditFields(byEntity: Readonly<Record<string, FieldDefs>>): AuditFields {
  const withUsers = { ...byEntity, user: USER_FIELDS };
  return { byEntity: withUsers, all: Object.assign({}, DETAIL_FIELDS, ...Object.values(withUsers)) as FieldDefs };
}

let registered: AuditFields = auditFields({});

/** Gives the trail the features' field definitions (once, when the application is built; the same every time). */
export function registerAuditFields(byEntity: Readonly<Record<string, FieldDefs>>): void {
  registered = auditFields(byEntity);
}

/** A field's definition: the record type's own, else any, else null (shown by its name, values as stored). */
export function fieldDefOf(entityType: string | null, field: string, fields: AuditFields = registered): FieldDef | null {
  return (entityType ? fields.byEntity[entityType]?.[field] : undefined) ?? fields.all[field] ?? null;
}

/** A field's label: its definition's, or its stored name made readable ('fecha_cierre' → 'Fecha cierre'). */
export function fieldLabelOf(entityType: string | null, field: string, fields: AuditFields = registered): string {
  const def = fieldDefOf(entityType, field, fields);
  if (def) return def.label;
  const words = field.replace(/[_.]+/g, ' ').trim();
  return words === '' ? field : words[0]!.toUpperCase() + words.slice(1);
}

const isEmpty = (v: unknown) => v === null || v === undefined || v === '';

/**
 * The cycle numbers (1, 2, 3 by start, decision 0115) of the Ingresos an entry names, by their internal id: the
 * trail shows a cycle by its number, never by its id.
 */
export type CycleNumbers = ReadonlyMap<number, number>;

const NO_CYCLES: CycleNumbers = new Map();

/** The Ingresos an entry names: its record (an 'ingreso' entry), an ingreso_id field or detail, a first cycle { id }. */
export function cycleIdsOf(entityType: string | null, entityId: number | null, changes: string | null): number[] {
  const ids: number[] = [];
  if (entityType === 'ingreso' && entityId !== null) ids.push(entityId);
  if (changes === null || !changes.includes('ingreso')) return ids;
  const parsed = parseChanges(changes);
  const add = (v: unknown) => {
    if (typeof v === 'number' && Number.isSafeInteger(v)) ids.push(v);
    else if (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { id?: unknown }).id === 'number') ids.push((v as { id: number }).id);
  };
  for (const f of parsed.fields) if (f.field === 'ingreso_id' || f.field === 'ingreso') (add(f.before), add(f.after));
  for (const d of parsed.details) if (d.key === 'ingreso_id' || d.key === 'ingreso') add(d.value);
  return ids;
}

/** The first cycle written with a new patient: { id, estado, fecha_inicio }, by its cycle number. */
function cycleText(v: unknown, cycles: CycleNumbers): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.estado !== 'string' || typeof o.fecha_inicio !== 'string') return null;
  const numero = typeof o.id === 'number' ? cycles.get(o.id) : undefined;
  return `Ciclo${numero === undefined ? '' : ` ${numero}`} ${o.estado} desde el ${formatDateEs(o.fecha_inicio)}`;
}

/**
 * A list or a group of values (an export's filters, the lines an import left out) as words: «Búsqueda: ana ·
 * Mes del programa: 3», «4, 9, 12»; empty parts left out. Null for anything else.
 */
function groupText(value: unknown, timeZone: string, fields: AuditFields): string | null {
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map((v) => formatStoredValue(null, v, timeZone, fields)).join(', ');
  if (typeof value !== 'object' || value === null) return null;
  const parts = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => !isEmpty(v))
    .map(([k, v]) => `${fieldLabelOf(null, k, fields)}: ${formatStoredValue(fieldDefOf(null, k, fields), v, timeZone, fields)}`);
  return parts.length === 0 ? 'ninguno' : parts.join(' · ');
}

/** A stored value as the person reads it, by its field's definition; what does not fit it is shown as stored. */
export function formatStoredValue(def: FieldDef | null, value: unknown, timeZone: string, fields: AuditFields = registered, cycles: CycleNumbers = NO_CYCLES): string {
  if (isEmpty(value)) return '—';
  const cycle = cycleText(value, cycles);
  if (cycle !== null) return cycle;
  const group = groupText(value, timeZone, fields);
  if (group !== null) return group;
  if (def === null) return displayValue(value);
  switch (def.kind) {
    case 'decimal':
      return Number.isSafeInteger(value) ? `${formatMeasure(value as number)}${def.unit ? ` ${def.unit}` : ''}` : displayValue(value);
    case 'money':
      return Number.isSafeInteger(value) ? formatCop(value as number) : displayValue(value);
    case 'date':
      return typeof value === 'string' ? formatDateEs(value) : displayValue(value);
    case 'instant':
      return typeof value === 'string' ? formatDateTimeEs(value, timeZone) : displayValue(value);
    case 'reference':
      return typeof value === 'number' ? `n.º ${value}` : displayValue(value);
    case 'choice': {
      const choice = def.choices?.find((c) => c.value === value || String(c.value) === String(value));
      return choice ? choice.label : displayValue(value);
    }
    default:
      return displayValue(value);
  }
}

export interface ReadableField {
  /** the stored name */
  field: string;
  label: string;
  before: string;
  after: string;
  /** the stored values as text (for auditors) */
  rawBefore: string;
  rawAfter: string;
}

export interface ReadableDetail {
  key: string;
  label: string;
  value: string;
  raw: string;
}

export interface ReadableChanges {
  fields: ReadableField[];
  details: ReadableDetail[];
}

/** A stored value as stored: text as is, anything else as compact JSON; missing values empty. */
export function rawText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** An entry's stored changes (its `changes` column) as people read them, with the stored values beside. */
export function readableChanges(
  entityType: string | null,
  changes: string | null,
  timeZone: string,
  fields: AuditFields = registered,
  cycles: CycleNumbers = NO_CYCLES,
  /** the entry's user: a field naming them by id (registrado_por) shows their name (issue 29, point 8) */
  actor: { id: number | null; username: string | null } | null = null,
): ReadableChanges {
  const parsed = parseChanges(changes);
  // An Ingreso named by its id (ingreso_id) reads as its cycle number; the entry's user by their name.
  const valueOf = (key: string, def: FieldDef | null, value: unknown) => {
    if (USER_REFERENCES.has(key) && actor?.username && actor.id !== null && value === actor.id) return actor.username;
    const numero = key === 'ingreso_id' && typeof value === 'number' ? cycles.get(value) : undefined;
    return numero === undefined ? formatStoredValue(def, value, timeZone, fields, cycles) : String(numero);
  };
  return {
    fields: parsed.fields.map(({ field, before, after }) => {
      const def = fieldDefOf(entityType, field, fields);
      return {
        field,
        label: fieldLabelOf(entityType, field, fields),
        before: valueOf(field, def, before),
        after: valueOf(field, def, after),
        rawBefore: rawText(before),
        rawAfter: rawText(after),
      };
    }),
    details: parsed.details.map(({ key, value }) => ({
      key,
      label: fieldLabelOf(entityType, key, fields),
      value: valueOf(key, fieldDefOf(entityType, key, fields), value),
      raw: rawText(value),
    })),
  };
}

/** The changes as one line of text (the CSV's readable column): 'IAH: — → 32,4 eventos/h | Registros: 3'. */
export function changesLine(c: ReadableChanges): string {
  return [...c.fields.map((f) => `${f.label}: ${f.before} → ${f.after}`), ...c.details.map((d) => `${d.label}: ${d.value}`)].join(' | ');
}

/** The stored changes as one line (the CSV's raw column): 'iah: null → 3240 | registros: 3'. */
export function rawChangesLine(c: ReadableChanges): string {
  const raw = (s: string) => (s === '' ? 'null' : s);
  return [...c.fields.map((f) => `${f.field}: ${raw(f.rawBefore)} → ${raw(f.rawAfter)}`), ...c.details.map((d) => `${d.key}: ${raw(d.raw)}`)].join(' | ');
}
