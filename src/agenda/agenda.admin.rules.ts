// The agenda's administration (issue 28): what a new plan edition, the clinic's hours and a resource must be. Pure.
import { formatDateEs } from '../shared/dates.js';
import { minutesOfDay } from './agenda.rules.js';

export const PROGRAMAS_PLAN = [
  { value: 'PROGRAMA AOS', label: 'Programa AOS' },
  { value: 'PROGRAMA INSOMNIO', label: 'Programa insomnio' },
] as const;
export type ProgramaPlan = (typeof PROGRAMAS_PLAN)[number]['value'];
export const isProgramaPlan = (s: string): s is ProgramaPlan => PROGRAMAS_PLAN.some((p) => p.value === s);

export const CLASES_RECURSO = [
  { value: 'SALA', label: 'Sala o consultorio' },
  { value: 'POLIGRAFO', label: 'Polígrafo' },
  { value: 'CPAP', label: 'Equipo CPAP' },
] as const;
export type ClaseRecurso = (typeof CLASES_RECURSO)[number]['value'];
export const isClaseRecurso = (s: string): s is ClaseRecurso => CLASES_RECURSO.some((c) => c.value === s);
export const claseLabel = (s: string): string => CLASES_RECURSO.find((c) => c.value === s)?.label ?? s;

/** How many visit lines the new edition's form offers (the seed plans have five). */
export const PLAN_FORM_LINES = 12;
/** The names of line `n`'s fields (1-based): the form has PLAN_FORM_LINES of them. */
export const lineFields = (n: number) => ({ tipo: `tipo_${n}`, dia: `dia_${n}`, repeticiones: `repeticiones_${n}`, intervalo: `intervalo_${n}` });
/** The limits of a line, as the migration's checks hold them. */
export const LINE_LIMITS = { diaMax: 3660, repeticionesMax: 52, intervaloMax: 366 } as const;
export const RECURSO_NOMBRE_MAX = 80;
export const LUGAR_MAX = 200;

export const ADMIN_MSG = {
  programa: 'Elija un programa de la lista.',
  pastEdition: 'La fecha ya pasó: una edición nueva rige desde hoy o una fecha futura.',
  notAfterLatest: (desde: string) => `Debe regir después de la última edición de este programa (vigente desde ${formatDateEs(desde)}).`,
  noLines: 'Agregue al menos una visita al plan.',
  tipo: 'Elija un tipo de cita de la lista.',
  dia: `Ingrese el día como un número de 0 a ${LINE_LIMITS.diaMax}.`,
  repeticiones: `Ingrese cuántas veces, de 1 a ${LINE_LIMITS.repeticionesMax}.`,
  intervalo: `Ingrese los días entre visitas, de 0 a ${LINE_LIMITS.intervaloMax}.`,
  intervaloNeeded: 'Si la visita se repite, indique cada cuántos días (1 o más).',
  lineIncomplete: 'Complete la visita o deje la fila vacía.',
  hora: 'Ingrese la hora como HH:MM (por ejemplo 07:00).',
  closesBeforeOpens: 'La hora de cierre debe ser posterior a la de apertura.',
  lugar: `Ingrese el lugar (hasta ${LUGAR_MAX} caracteres).`,
  nombre: `Ingrese el nombre (hasta ${RECURSO_NOMBRE_MAX} caracteres).`,
  nombreTaken: 'Ya hay un recurso con ese nombre.',
  clase: 'Elija una clase de la lista.',
} as const;

/**
 * Why a new edition may not be in force from `vigenteDesde`: a date in the past (cycles already started would
 * change plan after the fact), or not after the program's latest edition (editions follow one another).
 */
export function editionDateProblem(vigenteDesde: string, today: string, latest: string | null): string | null {
  if (vigenteDesde < today) return ADMIN_MSG.pastEdition;
  if (latest !== null && vigenteDesde <= latest) return ADMIN_MSG.notAfterLatest(latest);
  return null;
}

/** A line's visits in words: 'una vez', '8 veces, cada 14 días'. */
export function repeatText(line: { repeticiones: number; intervalo_dias: number }): string {
  if (line.repeticiones === 1) return 'Una vez';
  return `${line.repeticiones} veces, cada ${line.intervalo_dias === 1 ? 'día' : `${line.intervalo_dias} días`}`;
}

/** The clinic's hours refused: closing not after opening (both already times of day). */
export function hoursProblem(apertura: string, cierre: string): string | null {
  const a = minutesOfDay(apertura);
  const c = minutesOfDay(cierre);
  return a !== null && c !== null && c <= a ? ADMIN_MSG.closesBeforeOpens : null;
}

/**
 * The new edition form's first values: the program asked for (the first one when unknown), in force from today,
 * with the lines of that program's latest edition so the administrator edits the plan rather than retyping it.
 */
export function newEditionValues(
  asked: string,
  today: string,
  editions: readonly { id: number; programa: string; vigente_desde: string }[],
  lines: readonly { plan_id: number; tipo: string; dia: number; repeticiones: number; intervalo_dias: number }[],
): Record<string, string> {
  const programa = isProgramaPlan(asked) ? asked : PROGRAMAS_PLAN[0].value;
  const latest = editions
    .filter((e) => e.programa === programa)
    .reduce<(typeof editions)[number] | null>((best, e) => (best === null || e.vigente_desde > best.vigente_desde ? e : best), null);
  const values: Record<string, string> = { programa, vigente_desde: today };
  if (latest === null) return values;
  lines
    .filter((l) => l.plan_id === latest.id)
    .slice(0, PLAN_FORM_LINES)
    .forEach((l, i) => {
      const f = lineFields(i + 1);
      Object.assign(values, { [f.tipo]: l.tipo, [f.dia]: String(l.dia), [f.repeticiones]: String(l.repeticiones), [f.intervalo]: String(l.intervalo_dias) });
    });
  return values;
}
