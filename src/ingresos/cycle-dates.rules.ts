// The date rules a cycle's later writes must keep (issue 25, decision 0063), as pure functions with their Spanish
// messages, each naming the date it conflicts with. The database holds the same rules (migration 0160); these come
// first so that the person sees the reason beside the field. No I/O: the dates are read by the repository.

import type { DateRuleCode } from '../db/errors.js';
import { formatDateEs } from '../shared/dates.js';

/** What a cycle's stored dates allow: each null when the cycle has no such row. */
export interface CycleDateBounds {
  /** The latest date of the cycle's status history, its opening included. */
  lastChange: string | null;
  /** The earliest date of a status change after the opening. */
  firstChange: string | null;
  /** The earliest and the latest date of the cycle's exam records (voided ones included: they stay in the cycle). */
  firstExam: string | null;
  lastExam: string | null;
}

export const NO_BOUNDS: CycleDateBounds = { lastChange: null, firstChange: null, firstExam: null, lastExam: null };

export const DATE_MSG = {
  terminationBeforeLastChange: (fecha: string): string =>
    `La fecha de terminación no puede ser anterior al ${formatDateEs(fecha)}, fecha del último cambio de estado.`,
  terminationBeforeLastExam: (fecha: string): string =>
    `La fecha de terminación no puede ser anterior al ${formatDateEs(fecha)}, fecha del último examen registrado en el ciclo.`,
  changeBeforeLastChange: (today: string, fecha: string): string =>
    `El cambio de estado lleva la fecha de hoy (${formatDateEs(today)}), anterior al ${formatDateEs(fecha)}, fecha del último cambio de estado.`,
  changeBeforeLastExam: (today: string, fecha: string): string =>
    `El cambio de estado lleva la fecha de hoy (${formatDateEs(today)}), anterior al ${formatDateEs(fecha)}, fecha del último examen registrado en el ciclo.`,
  startAfterFirstExam: (fecha: string): string =>
    `La fecha de inicio no puede ser posterior al ${formatDateEs(fecha)}, fecha del primer examen registrado en el ciclo.`,
  startAfterFirstChange: (fecha: string): string =>
    `La fecha de inicio no puede ser posterior al ${formatDateEs(fecha)}, fecha del primer cambio de estado del ciclo.`,
  birthAfterStart: (fecha: string): string =>
    `La fecha de nacimiento no puede ser posterior al ${formatDateEs(fecha)}, fecha de inicio de un ciclo del paciente.`,
} as const;

/** The binding lower bound among the last change and the last exam (the later one; the change when equal). */
function latestBound(bounds: CycleDateBounds): { fecha: string; of: 'change' | 'exam' } | null {
  const { lastChange, lastExam } = bounds;
  if (lastExam !== null && (lastChange === null || lastExam > lastChange)) return { fecha: lastExam, of: 'exam' };
  return lastChange !== null ? { fecha: lastChange, of: 'change' } : null;
}

/** Why a cycle cannot be terminated on `fechaFin`, as far as its history and exams go (the rest: terminationDateProblem). */
export function terminationBoundsProblem(fechaFin: string, bounds: CycleDateBounds): string | null {
  const bound = latestBound(bounds);
  if (bound === null || fechaFin >= bound.fecha) return null;
  return bound.of === 'exam' ? DATE_MSG.terminationBeforeLastExam(bound.fecha) : DATE_MSG.terminationBeforeLastChange(bound.fecha);
}

/** Why a suspension or a reactivation, dated today, cannot be recorded (a change or an exam dated later), or null. */
export function statusChangeBoundsProblem(today: string, bounds: CycleDateBounds): string | null {
  const bound = latestBound(bounds);
  if (bound === null || today >= bound.fecha) return null;
  return bound.of === 'exam' ? DATE_MSG.changeBeforeLastExam(today, bound.fecha) : DATE_MSG.changeBeforeLastChange(today, bound.fecha);
}

/** Why a cycle's start cannot move to `fechaInicio`: after its first exam or its first status change. */
export function movedStartProblem(fechaInicio: string, bounds: CycleDateBounds): string | null {
  if (bounds.firstExam !== null && fechaInicio > bounds.firstExam) return DATE_MSG.startAfterFirstExam(bounds.firstExam);
  if (bounds.firstChange !== null && fechaInicio > bounds.firstChange) return DATE_MSG.startAfterFirstChange(bounds.firstChange);
  return null;
}

/** Why the birth date cannot move to `fechaNacimiento`: after the start of one of the patient's cycles (the earliest given). */
export function birthAfterCyclesProblem(fechaNacimiento: string, earliestStart: string | null): string | null {
  return earliestStart !== null && fechaNacimiento > earliestStart ? DATE_MSG.birthAfterStart(earliestStart) : null;
}

/**
 * What to say when the database refused a write for a date rule that the checks above had let through (another
 * write got in between, twice): the rule without its date, which only the database saw.
 */
export const DATE_RULE_FALLBACK: Readonly<Record<DateRuleCode, string>> = {
  exam_outside_cycle: 'La fecha del examen queda fuera de las fechas de su ciclo.',
  start_before_birth: 'La fecha de inicio no puede ser anterior a la fecha de nacimiento del paciente.',
  end_before_start: 'La fecha de terminación no puede ser anterior a la fecha de inicio del ciclo.',
  start_after_exam: 'La fecha de inicio no puede ser posterior a un examen registrado en el ciclo.',
  end_before_exam: 'La fecha de terminación no puede ser anterior a un examen registrado en el ciclo.',
  start_after_status_change: 'La fecha de inicio no puede ser posterior a un cambio de estado del ciclo.',
  end_before_status_change: 'La fecha de terminación no puede ser anterior al último cambio de estado del ciclo.',
  birth_after_start: 'La fecha de nacimiento no puede ser posterior al inicio de un ciclo del paciente.',
  history_out_of_order: 'La fecha no puede ser anterior al último cambio de estado del ciclo.',
  status_change_before_exam: 'El cambio de estado no puede ser anterior a un examen registrado en el ciclo.',
};
