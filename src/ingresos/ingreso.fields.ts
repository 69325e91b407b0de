// The enrolment cycle's fields as people read them in the history (src/shared/field-defs.ts).

import type { FieldDef } from '../shared/field-defs.js';
import { ESTADOS } from './ingreso.rules.js';

export const INGRESO_FIELDS = {
  estado: { label: 'Estado', kind: 'choice', choices: ESTADOS.map((e) => ({ value: e, label: e })) },
  fecha_inicio: { label: 'Fecha de inicio', kind: 'date' },
  fecha_fin: { label: 'Fecha de terminación', kind: 'date' },
  motivo: { label: 'Motivo', kind: 'text' },
} as const satisfies Record<string, FieldDef>;
