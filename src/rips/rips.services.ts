// The services of the catalogue: each exam kind and subtype Somno records (decision 0092).

import { TIPOS_MONITOREO, TIPOS_SESION } from '../exams/exam.rules.js';

export const KNOWN_SERVICIOS: readonly { value: string; label: string }[] = [
  ...TIPOS_MONITOREO.map((t) => ({ value: `MONITOREO:${t.value}`, label: `Monitoreo: ${t.label}` })),
  ...TIPOS_SESION.map((t) => ({ value: `PSICOLOGIA:${t.value}`, label: `Psicología: ${t.label}` })),
  { value: 'OTRO', label: 'Otro examen' },
];

export const servicioLabel = (servicio: string): string => KNOWN_SERVICIOS.find((s) => s.value === servicio)?.label ?? servicio;
