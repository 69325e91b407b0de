// Pure rules of the Ingreso (program cycle): program month, the month filter, and the lifecycle decisions of
// decisions.md §6. No I/O: "today" is always an argument ('YYYY-MM-DD' in the configured zone).

import { addMonthsToMonthStart, formatDateEs, monthStartOf } from '../shared/dates.js';
import type { CycleDateBounds } from './cycle-dates.rules.js';

export const ESTADOS = ['ACTIVO', 'SUSPENDIDO', 'TERMINADO'] as const;
export type Estado = (typeof ESTADOS)[number];

/** Estados that count as a pending process: they block a new cycle (at most one per patient, DB-enforced). */
export const OPEN_ESTADOS: readonly Estado[] = ['ACTIVO', 'SUSPENDIDO'];

export function isEstado(x: unknown): x is Estado {
  return typeof x === 'string' && (ESTADOS as readonly string[]).includes(x);
}

export const MES_CAPITA_MAX = 18;
/** Longest accepted motivo: the spec says "text"; this only stops absurd input (decisions §10). */
export const MOTIVO_MAX_LENGTH = 2000;

const YEAR_MONTH = /^(\d{4})-(\d{2})/;

/**
 * Program month, exactly the spec: empty → 0; else (ty - sy) * 12 + (tm - sm) + 1 clamped to 1..18.
 * The day of the month plays no part (started 31 Oct, on 1 Nov it is month 2). A value that does not start
 * with 'YYYY-MM' also gives 0: there is no month to count from, and a list page must not fail over it.
 */
export function mesCapita(fechaInicio: string | null, today: string): number {
  if (fechaInicio === null) return 0;
  const start = YEAR_MONTH.exec(fechaInicio.trim());
  if (!start) return 0;
  const now = YEAR_MONTH.exec(today);
  if (!now) throw new RangeError(`today must be YYYY-MM-DD: ${JSON.stringify(today)}`);
  const raw = (Number(now[1]) - Number(start[1])) * 12 + (Number(now[2]) - Number(start[2])) + 1;
  return Math.min(MES_CAPITA_MAX, Math.max(1, raw));
}

export interface DateRange {
  /** inclusive lower bound on fecha_inicio, or null for no lower bound */
  from: string | null;
  /** exclusive upper bound on fecha_inicio, or null for no upper bound */
  to: string | null;
}

/**
 * The fecha_inicio range for which mesCapita(fecha_inicio, today) === mes, so the filter runs in SQL as
 * `fecha_inicio >= from and fecha_inicio < to` (skip a null bound). Dates compare correctly as text.
 *   m = 1      : from the first day of this month, no upper bound (future starts count as month 1)
 *   m = 2..17  : the calendar month (m - 1) months back
 *   m = 18     : no lower bound, before the first day of the month 16 months back (17 or more months back)
 * Rows with an empty fecha_inicio (mes_capita 0) never match. Throws for mes outside 1..18: parse the query
 * parameter with parseMesFiltro first.
 */
export function mesFiltroRange(mes: number, today: string): DateRange {
  if (!Number.isInteger(mes) || mes < 1 || mes > MES_CAPITA_MAX) {
    throw new RangeError(`mes must be an integer 1..${MES_CAPITA_MAX}: ${mes}`);
  }
  const thisMonth = monthStartOf(today);
  if (mes === 1) return { from: thisMonth, to: null };
  if (mes === MES_CAPITA_MAX) return { from: null, to: addMonthsToMonthStart(thisMonth, -(MES_CAPITA_MAX - 2)) };
  const from = addMonthsToMonthStart(thisMonth, -(mes - 1));
  return { from, to: addMonthsToMonthStart(from, 1) };
}

/**
 * The mes_filtro query parameter: an integer 1..18 (as a string of digits, or a number), else null, which
 * means "no filter" (decisions §5: out of range or not a number is ignored). A repeated parameter (array)
 * is ignored too.
 */
export function parseMesFiltro(raw: unknown): number | null {
  let n: number;
  if (typeof raw === 'number') {
    n = raw;
  } else if (typeof raw === 'string') {
    const s = raw.trim();
    if (!/^\d{1,3}$/.test(s)) return null;
    n = Number(s);
  } else {
    return null;
  }
  return Number.isInteger(n) && n >= 1 && n <= MES_CAPITA_MAX ? n : null;
}

// ---------------------------------------------------------------------------------------------------------
// Lifecycle (decisions §6)

export interface StatusChangeInput {
  current: Estado;
  /** the path's new_status; the route answers 404 first when !isEstado(target) */
  target: string;
  fecha_terminacion?: string | undefined;
  motivo_estado?: string | undefined;
  /** the Ingreso's fecha_inicio */
  fechaInicio: string;
  today: string;
  /** its history's and exams' dates (cycle-dates.rules.ts): a change is not dated before them; none when omitted */
  bounds?: CycleDateBounds | undefined;
}

export type StatusChangeDecision =
  /**
   * Apply the change. `fecha_fin` and `motivo` are the values to write to the Ingreso's columns (and the
   * history row): TERMINADO sets both; SUSPENDIDO sets fecha_fin null and motivo to the optional reason;
   * reactivation (ACTIVO) sets both null, clearing the suspension's reason, which stays in the history.
   */
  | { kind: 'apply'; from: Estado; to: Estado; fecha_fin: string | null; motivo: string | null }
  /** target equals the current estado (ACTIVO→ACTIVO, SUSPENDIDO→SUSPENDIDO): info message, no change */
  | { kind: 'same'; estado: Estado }
  /** the Ingreso is TERMINADO: error message, no change */
  | { kind: 'finished' }
  /** fields missing or invalid for a change to `to`: error message listing `errors`, no change */
  | { kind: 'invalid'; to: Estado; errors: string[] }
  /** not a transition of the table (only reachable with an unknown target, which the route turns into 404) */
  | { kind: 'not_allowed' };

export const ERR = {
  fechaTerminacionMissing: 'Falta la fecha de terminación.',
  fechaTerminacionInvalid: 'La fecha de terminación no es una fecha válida (AAAA-MM-DD).',
  fechaTerminacionBeforeStart: (fechaInicio: string): string =>
    `La fecha de terminación no puede ser anterior a la fecha de inicio del ciclo (${formatDateEs(fechaInicio)}).`,
  fechaTerminacionFuture: 'La fecha de terminación no puede ser posterior a hoy.',
  fechaTerminacionNotStarted: (fechaInicio: string): string =>
    `El ciclo aún no ha empezado: solo puede terminarse con su fecha de inicio (${formatDateEs(fechaInicio)}).`,
  motivoMissing: 'Falta el motivo de la terminación.',
  motivoTooLong: `El motivo no puede superar ${MOTIVO_MAX_LENGTH} caracteres.`,
} as const;

/**
 * Why a cycle that started on `fechaInicio` cannot end on `fechaFin` (a real date), or null: not before its start,
 * not after today, except that a cycle opened with a future start, to be cancelled, ends on its own start date.
 */
export function terminationDateProblem(fechaFin: string, fechaInicio: string, today: string): string | null {
  if (fechaFin < fechaInicio) return ERR.fechaTerminacionBeforeStart(fechaInicio);
  if (fechaFin > today && fechaFin !== fechaInicio) {
    return fechaInicio > today ? ERR.fechaTerminacionNotStarted(fechaInicio) : ERR.fechaTerminacionFuture;
  }
  return null;
}

/** The sentences of an invalid termination by the field they are about (shown beside it). */
export function terminationErrorsByField(errors: readonly string[]): { fecha_terminacion?: string; motivo_estado?: string } {
  const isMotivo = (e: string) => e === ERR.motivoMissing || e === ERR.motivoTooLong;
  const motivo = errors.filter(isMotivo);
  const fecha = errors.filter((e) => !isMotivo(e));
  return {
    ...(fecha.length > 0 ? { fecha_terminacion: fecha.join(' ') } : {}),
    ...(motivo.length > 0 ? { motivo_estado: motivo.join(' ') } : {}),
  };
}

export interface NewCycleInput {
  /** the posted fecha_inicio (raw) */
  fecha_inicio: string | undefined;
  /** estados of the patient's existing Ingresos (all of them, or only the open ones: TERMINADO is ignored) */
  openEstados: readonly Estado[];
  /** the latest fecha_fin among the patient's TERMINADO Ingresos, or null */
  latestFechaFin: string | null;
  today: string;
  /** the patient's fecha_nacimiento: a cycle cannot start before it */
  fechaNacimiento: string | null;
}

export type NewCycleDecision =
  | { kind: 'ok'; fecha_inicio: string }
  | { kind: 'pending_process' }
  | { kind: 'invalid_date' }
  /** a start later than today or before the birth date: `reason` says which */
  | { kind: 'impossible_start'; reason: string }
  | { kind: 'before_last_end'; latestFechaFin: string };

/**
 * Cycles of one patient never overlap: a cycle may start on the day the previous one ended, not before. Holds
 * for a new cycle and for a moved start of the ACTIVO one (the patient form's fecha_inicio_programa).
 */
export function startsBeforeLastEnd(fechaInicio: string, latestFechaFin: string | null): boolean {
  return latestFechaFin !== null && fechaInicio < latestFechaFin;
}

export const CYCLE_START_MSG = {
  future: (today: string): string =>
    `La fecha de inicio no puede ser posterior a hoy (${formatDateEs(today)}): un ciclo empieza el día en que el paciente ingresa.`,
  beforeBirth: (fechaNacimiento: string): string =>
    `La fecha de inicio no puede ser anterior a la fecha de nacimiento del paciente (${formatDateEs(fechaNacimiento)}).`,
} as const;

/**
 * Why a cycle cannot start on `fechaInicio`, or null (decision 0031): not later than today (a future start would
 * be billed as month 1 now), nor before the patient's birth. Holds for a patient's first cycle, a new one, and the
 * start moved from the patient form.
 */
export function cycleStartProblem(fechaInicio: string, today: string, fechaNacimiento: string | null): string | null {
  if (fechaInicio > today) return CYCLE_START_MSG.future(today);
  if (fechaNacimiento !== null && fechaInicio < fechaNacimiento) return CYCLE_START_MSG.beforeBirth(fechaNacimiento);
  return null;
}

/** Flag for the team (decisions §6: an Ingreso is never ended automatically; month 18 or beyond is flagged). */
export function isAtProgramLimit(fechaInicio: string | null, today: string): boolean {
  return mesCapita(fechaInicio, today) >= MES_CAPITA_MAX;
}

// ---------------------------------------------------------------------------------------------------------
// User-facing messages (Spanish). `nombre` is the patient's first name.

export const MSG = {
  terminated: (nombre: string): string => `El ciclo de ${nombre} ha finalizado y fue archivado ✅`,
  suspended: (nombre: string): string => `El ciclo de ${nombre} quedó suspendido.`,
  reactivated: (nombre: string): string => `El ciclo de ${nombre} fue reactivado.`,
  same: (estado: Estado): string => `El ingreso ya está en estado ${estado}; no se hizo ningún cambio.`,
  finished: 'Este ciclo ya finalizó (TERMINADO) y no puede cambiar de estado.',
  notAllowed: 'Ese cambio de estado no está permitido.',
  invalidTermination: (errors: readonly string[]): string =>
    `No se pudo terminar el ciclo. ${errors.join(' ')}`,
  invalidStatusChange: (errors: readonly string[]): string =>
    `No se pudo cambiar el estado. ${errors.join(' ')}`,
  pendingProcess:
    'No se puede iniciar un nuevo ciclo: el paciente tiene un proceso pendiente (un ingreso ACTIVO o SUSPENDIDO).',
  newCycleInvalidDate: 'No se pudo iniciar el ciclo: indique una fecha de inicio válida (AAAA-MM-DD).',
  newCycleBeforeLastEnd: (latestFechaFin: string): string =>
    `No se pudo iniciar el ciclo: la fecha de inicio no puede ser anterior al fin del último ciclo (${formatDateEs(latestFechaFin)}).`,
  fechaInicioBeforeLastEnd: (latestFechaFin: string): string =>
    `No puede ser anterior al fin del ciclo anterior (${formatDateEs(latestFechaFin)}): los ciclos no se superponen.`,
  newCycleCreated: (nombre: string): string => `Se inició un nuevo ciclo para ${nombre}.`,
} as const;

/** The one message for a status-change decision, with its level, so routes stay a thin mapping. */
export function statusChangeMessage(
  decision: StatusChangeDecision,
  nombre: string,
): { level: 'success' | 'info' | 'error'; text: string } {
  switch (decision.kind) {
    case 'apply':
      if (decision.to === 'TERMINADO') return { level: 'success', text: MSG.terminated(nombre) };
      if (decision.to === 'SUSPENDIDO') return { level: 'success', text: MSG.suspended(nombre) };
      return { level: 'success', text: MSG.reactivated(nombre) };
    case 'same':
      return { level: 'info', text: MSG.same(decision.estado) };
    case 'finished':
      return { level: 'error', text: MSG.finished };
    case 'invalid':
      return {
        level: 'error',
        text: decision.to === 'TERMINADO' ? MSG.invalidTermination(decision.errors) : MSG.invalidStatusChange(decision.errors),
      };
    case 'not_allowed':
      return { level: 'error', text: MSG.notAllowed };
  }
}

/** The one message for a new-cycle decision, with its level. */
export function newCycleMessage(
  decision: NewCycleDecision,
  nombre: string,
): { level: 'success' | 'error'; text: string } {
  switch (decision.kind) {
    case 'ok':
      return { level: 'success', text: MSG.newCycleCreated(nombre) };
    case 'pending_process':
      return { level: 'error', text: MSG.pendingProcess };
    case 'invalid_date':
      return { level: 'error', text: MSG.newCycleInvalidDate };
    case 'impossible_start':
      return { level: 'error', text: `No se pudo iniciar el ciclo. ${decision.reason}` };
    case 'before_last_end':
      return { level: 'error', text: MSG.newCycleBeforeLastEnd(decision.latestFechaFin) };
  }
}
