// The lifecycle forms of the follow page (decisions §6) as zod schemas: the fields as posted, read before the
// cycle is known; then, on the cycle as it is inside the transaction, the status change's and the new cycle's own
// fields, each with its Spanish message, over the rules of ingreso.rules.ts.

import { z } from 'zod';
import { parseIsoDate } from '../shared/dates.js';
import { fail, withContext } from '../web/form.js';
import {
  cycleStartProblem,
  ERR,
  isEstado,
  MOTIVO_MAX_LENGTH,
  OPEN_ESTADOS,
  startsBeforeLastEnd,
  terminationDateProblem,
  type NewCycleDecision,
  type NewCycleInput,
  type StatusChangeDecision,
  type StatusChangeInput,
} from './ingreso.rules.js';
import { NO_BOUNDS, statusChangeBoundsProblem, terminationBoundsProblem, type CycleDateBounds } from './cycle-dates.rules.js';

/** Fields the follow page's forms send besides their own: where to come back to (search and page). */
export const RETURN_FIELDS = ['query_search', 'page'] as const;
const returnFields = { query_search: z.string(), page: z.string() };

/** The status change form as posted (its fields are checked against the cycle by decideStatusChange). */
export const statusForm = z.object({ fecha_terminacion: z.string(), motivo_estado: z.string(), confirmacion: z.string(), ...returnFields });

/** The new cycle form as posted (its date is checked against the patient's cycles by decideNewCycle). */
export const newCycleForm = z.object({ fecha_inicio: z.string(), ...returnFields });

/** The motivo of a status change, trimmed (blank: null); required to terminate, at most MOTIVO_MAX_LENGTH characters. */
const motivoField = (required: boolean) =>
  z.string().transform((raw, ctx): string | null => {
    const motivo = raw.trim();
    if (motivo === '') return required ? fail(ctx, ERR.motivoMissing) : null;
    return motivo.length > MOTIVO_MAX_LENGTH ? fail(ctx, ERR.motivoTooLong) : motivo;
  });

/**
 * The termination of a cycle that started on `fechaInicio`: its end date (terminationDateProblem; then not before
 * the cycle's last status change nor its last exam, terminationBoundsProblem) and a motivo.
 */
const termination = withContext((context: () => { fechaInicio: string; today: string; bounds: CycleDateBounds }) =>
  z.object({
    fecha_terminacion: z.string().transform((raw, ctx) => {
      const s = raw.trim();
      if (s === '') return fail(ctx, ERR.fechaTerminacionMissing);
      const fechaFin = parseIsoDate(s);
      if (fechaFin === null) return fail(ctx, ERR.fechaTerminacionInvalid);
      const { fechaInicio, today, bounds } = context();
      const problem = terminationDateProblem(fechaFin, fechaInicio, today) ?? terminationBoundsProblem(fechaFin, bounds);
      return problem === null ? fechaFin : fail(ctx, problem);
    }),
    motivo_estado: motivoField(true),
  }),
);

export const terminationSchema = (fechaInicio: string, today: string, bounds: CycleDateBounds = NO_BOUNDS) =>
  termination({ fechaInicio, today, bounds });

/** A suspension: an optional motivo. */
export const suspensionSchema = z.object({ motivo_estado: motivoField(false) });

/**
 * Decides a status change following decisions.md §6.
 *
 * Order of checks: a TERMINADO Ingreso answers 'finished' whatever the target, TERMINADO→TERMINADO included
 * (a finished cycle cannot change; saying so is more useful than "already in that state"). Then an equal
 * target answers 'same'. Then the allowed transitions, each with its schema; for TERMINADO every field problem
 * is reported at once, in the form's order.
 */
export function decideStatusChange(input: StatusChangeInput): StatusChangeDecision {
  const { current, target } = input;
  if (current === 'TERMINADO') return { kind: 'finished' };
  if (!isEstado(target)) return { kind: 'not_allowed' };
  if (target === current) return { kind: 'same', estado: current };
  const fields = { fecha_terminacion: input.fecha_terminacion ?? '', motivo_estado: input.motivo_estado ?? '' };

  const bounds = input.bounds ?? NO_BOUNDS;
  if (target === 'TERMINADO') {
    const parsed = terminationSchema(input.fechaInicio, input.today, bounds).safeParse(fields);
    if (!parsed.success) return { kind: 'invalid', to: 'TERMINADO', errors: parsed.error.issues.map((issue) => issue.message) };
    return { kind: 'apply', from: current, to: 'TERMINADO', fecha_fin: parsed.data.fecha_terminacion, motivo: parsed.data.motivo_estado };
  }

  // A suspension or a reactivation takes effect today: not before the cycle's last change or exam (decision 0063).
  const dated = statusChangeBoundsProblem(input.today, bounds);
  if (current === 'ACTIVO' && target === 'SUSPENDIDO') {
    if (dated !== null) return { kind: 'invalid', to: 'SUSPENDIDO', errors: [dated] };
    const parsed = suspensionSchema.safeParse(fields);
    if (!parsed.success) return { kind: 'invalid', to: 'SUSPENDIDO', errors: parsed.error.issues.map((issue) => issue.message) };
    return { kind: 'apply', from: 'ACTIVO', to: 'SUSPENDIDO', fecha_fin: null, motivo: parsed.data.motivo_estado };
  }

  if (current === 'SUSPENDIDO' && target === 'ACTIVO') {
    if (dated !== null) return { kind: 'invalid', to: 'ACTIVO', errors: [dated] };
    return { kind: 'apply', from: 'SUSPENDIDO', to: 'ACTIVO', fecha_fin: null, motivo: null };
  }

  return { kind: 'not_allowed' };
}

/** Said of a new cycle's start that is not a real date (YYYY-MM-DD). */
const INVALID_START = 'Ingrese una fecha válida (AAAA-MM-DD).';

/** A new cycle's start: a real date on which a cycle can start (cycleStartProblem: not after today, nor before birth). */
const newCycle = withContext((context: () => { today: string; fechaNacimiento: string | null }) =>
  z.object({
    fecha_inicio: z.string().transform((raw, ctx) => {
      const fecha = parseIsoDate(raw);
      if (fecha === null) return fail(ctx, INVALID_START);
      const { today, fechaNacimiento } = context();
      const reason = cycleStartProblem(fecha, today, fechaNacimiento);
      return reason === null ? fecha : fail(ctx, reason);
    }),
  }),
);

export const newCycleSchema = (today: string, fechaNacimiento: string | null) => newCycle({ today, fechaNacimiento });

/**
 * Decides POST /patients/ingreso/nuevo/. Order: pending process first (the spec's main rule, and the answer
 * does not depend on the form), then the date (newCycleSchema), then the previous cycle's end. A new cycle may
 * start on the very day the previous one ended; a start later than today or before the patient's birth is refused.
 */
export function decideNewCycle(input: NewCycleInput): NewCycleDecision {
  if (input.openEstados.some((e) => OPEN_ESTADOS.includes(e))) return { kind: 'pending_process' };
  const parsed = newCycleSchema(input.today, input.fechaNacimiento).safeParse({ fecha_inicio: input.fecha_inicio ?? '' });
  if (!parsed.success) {
    const message = parsed.error.issues[0]!.message;
    return message === INVALID_START ? { kind: 'invalid_date' } : { kind: 'impossible_start', reason: message };
  }
  const fecha = parsed.data.fecha_inicio;
  if (startsBeforeLastEnd(fecha, input.latestFechaFin)) return { kind: 'before_last_end', latestFechaFin: input.latestFechaFin! };
  return { kind: 'ok', fecha_inicio: fecha };
}
