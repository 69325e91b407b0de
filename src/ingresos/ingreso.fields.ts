// The enrolment cycle's fields as people read them in the history (src/shared/field-defs.ts).

import type { FieldDef } from '../shared/field-defs.js';
import { ESTADOS } from './ingreso.rules.js';

export const INGRESO_FIELDS = {
  estado: { label: 'Estado', kind: 'choice', choices: ESTADOS.map((e) => ({ value: e, label: e })) },
  fecha_inicio: { label: 'Fecha de inicio', kind: 'date' },
  fecha_fin: { label: 'Fecha de terminación', kind: 'date' },
  motivo: { label: 'Motivo', kind: 'text' },
} as const satisfies Record<string, FieldDef>;

/** The lifecycle forms' posted fields, each the stored field it fills (its label is the one the trail shows). */
export const INGRESO_FORM_FIELDS = {
  fecha_terminacion: INGRESO_FIELDS.fecha_fin,
  motivo_estado: INGRESO_FIELDS.motivo,
  fecha_inicio: INGRESO_FIELDS.fecha_inicio,
} as const satisfies Record<string, FieldDef>;

/** Posted field name → its label, to name a field in a message. */
export const INGRESO_FORM_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(INGRESO_FORM_FIELDS).map(([name, def]) => [name, def.label]),
);
