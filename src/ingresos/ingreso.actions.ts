// The Ingreso's writes as use cases (issue 26): each one function that owns its transaction, its audit entry and
// the mapping of its refusals to messages and field errors. Routes and CLI commands call them; they know no HTTP.
import { followCycleStatus, planCycleVisits } from '../agenda/agenda.actions.js';
import { recordAudit } from '../audit/audit.repository.js';
import { diffFields } from '../audit/audit.rules.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { todayOf, type ActionContext } from '../platform/writes/action-context.js';
import { isDomainError } from '../shared/domain-error.js';
import type { FieldErrors, FormValues } from '../web/fields.js';
import { INGRESO_FORM_LABELS } from './ingreso.fields.js';
import { dateRuleRefused } from '../db/errors.js';
import { DATE_RULE_FALLBACK } from './cycle-dates.rules.js';
import { applyStatusChange, CYCLE_ALREADY_OPEN, findCycleDateBounds, findCycleState, findIngresoForChange, openIngreso } from './ingreso.repository.js';
import {
  MSG,
  newCycleMessage,
  statusChangeMessage,
  terminationErrorsByField,
  type Estado,
  type NewCycleDecision,
  type StatusChangeDecision,
} from './ingreso.rules.js';
import { decideNewCycle, decideStatusChange, RETURN_FIELDS } from './ingreso.schema.js';

/** How many times a status change is re-decided when a concurrent change got there first. */
const MAX_ATTEMPTS = 3;
export const RACED = 'El ingreso cambió mientras se procesaba la solicitud. Revise su estado y vuelva a intentarlo.';

export type Message = { level: 'success' | 'info' | 'error'; text: string };

/** A lifecycle form as parseForm read it: its values and its errors (none when it was well-formed). */
export interface PostedLifecycleForm {
  values: FormValues;
  errors: FieldErrors;
}

/** Problems of a malformed submission (repeated or unknown fields…), as sentences; the return fields only lose their value. */
function formProblems(errors: FieldErrors): string[] {
  return Object.entries(errors)
    .filter(([name]) => !(RETURN_FIELDS as readonly string[]).includes(name))
    .map(([name, text]) => (name === '_form' ? text : `${INGRESO_FORM_LABELS[name] ?? name}: ${text}`));
}

export type StatusChangeResult =
  | { kind: 'not_found' }
  /**
   * Decided (applied or refused) with the message to show. `fieldErrors` is set for a termination refused for its
   * fields: the errors to show beside them on the page that asks first (`cycle`).
   */
  | {
      kind: 'done';
      decision: StatusChangeDecision | null;
      message: Message;
      cycle: { id: number; numero: number; nombre: string; fecha_inicio: string; estado: string };
      fieldErrors: FieldErrors | null;
    };

/**
 * Changes an Ingreso's estado (terminate, suspend, reactivate: decisions §6), deciding on the cycle as it is inside
 * the transaction, writing its history row and its `ingreso.status` audit entry. A concurrent change re-decides.
 */
export async function changeIngresoStatus(
  ctx: ActionContext,
  input: { ingresoId: number; target: Estado; form: PostedLifecycleForm },
): Promise<StatusChangeResult> {
  const { db, clock } = ctx;
  const { ingresoId, target, form } = input;
  const { values } = form;
  const found = await findIngresoForChange(db, ingresoId);
  if (!found) return { kind: 'not_found' };
  const problems = formProblems(form.errors);
  if (problems.length > 0) {
    const message = statusChangeMessage({ kind: 'invalid', to: target, errors: problems }, found.nombre);
    return { kind: 'done', decision: null, message, cycle: found, fieldErrors: null };
  }

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const work = inTransaction(db, async (trx) => {
      // Re-read inside the transaction: the decision is made on the state the update is conditional on.
      const ingreso = await findIngresoForChange(trx, ingresoId);
      if (!ingreso) return null;
      const todayDate = todayOf(ctx);
      const decision = decideStatusChange({
        current: ingreso.estado,
        target,
        fecha_terminacion: values.fecha_terminacion,
        motivo_estado: values.motivo_estado,
        fechaInicio: ingreso.fecha_inicio,
        today: todayDate,
        bounds: ingreso.estado === 'TERMINADO' ? undefined : await findCycleDateBounds(trx, ingresoId),
      });
      if (decision.kind !== 'apply') return { decision, nombre: ingreso.nombre };
      const at = clock.now();
      const applied = await applyStatusChange(trx, {
        ingresoId,
        from: decision.from,
        to: decision.to,
        fechaFin: decision.fecha_fin,
        motivo: decision.motivo,
        fecha: decision.fecha_fin ?? todayDate,
        userId: ctx.actor?.id ?? null,
        now: at.toISOString(),
      });
      if (!applied) return 'raced' as const;
      // The cycle's visits follow it (paused, resumed, cancelled), in this same transaction.
      await followCycleStatus(trx, { ingresoId, from: decision.from, to: decision.to, now: at.toISOString(), userId: ctx.actor?.id ?? null });
      await recordAudit(trx, {
        at,
        actor: ctx.actor,
        action: 'ingreso.status',
        entityType: 'ingreso',
        entityId: ingresoId,
        patientId: ingreso.paciente_id,
        changes: diffFields(
          { estado: decision.from, fecha_fin: ingreso.fecha_fin, motivo: ingreso.motivo },
          { estado: decision.to, fecha_fin: decision.fecha_fin, motivo: decision.motivo },
        ),
        requestId: ctx.requestId,
      });
      return { decision, nombre: ingreso.nombre };
    });
    // The database refused a date the decision had accepted (an exam or a change got in between): decided again
    // on what is stored now, which names the date; the rule alone if it keeps happening.
    const outcome = await work.catch((err: unknown) => {
      const rule = dateRuleRefused(err);
      if (rule === null) throw err;
      if (attempt < MAX_ATTEMPTS) return 'raced' as const;
      const decision: StatusChangeDecision = { kind: 'invalid', to: target, errors: [DATE_RULE_FALLBACK[rule]] };
      return { decision, nombre: found.nombre };
    });
    if (outcome === null) return { kind: 'not_found' };
    if (outcome === 'raced') continue;
    const { decision } = outcome;
    // Sent from the page that asks first: the errors go beside its fields, on that page.
    const fieldErrors =
      decision.kind === 'invalid' && target === 'TERMINADO' && values.confirmacion === '1' ? terminationErrorsByField(decision.errors) : null;
    return { kind: 'done', decision, message: statusChangeMessage(decision, outcome.nombre), cycle: found, fieldErrors };
  }
  return { kind: 'done', decision: null, message: { level: 'error', text: RACED }, cycle: found, fieldErrors: null };
}

export type NewCycleResult =
  | { kind: 'not_found' }
  /**
   * `fieldError`: the date was refused; the form comes back on a page of its own with the typed date and this
   * message beside the field (issue 29, point 8), instead of a banner on the follow page.
   */
  | { kind: 'done'; decision: NewCycleDecision | null; message: Message; fieldError?: string; nombre: string };

/** What stands beside the date when a new cycle's date is refused; null for the other outcomes. */
function newCycleDateError(decision: NewCycleDecision): string | null {
  switch (decision.kind) {
    case 'invalid_date':
      return 'Indique una fecha de inicio válida (AAAA-MM-DD).';
    case 'impossible_start':
      return decision.reason;
    case 'before_last_end':
      return MSG.fechaInicioBeforeLastEnd(decision.latestFechaFin);
    default:
      return null;
  }
}

/**
 * Opens a new ACTIVO cycle for a patient (decisions §6): refused while one is open (also when a concurrent opening
 * got there first: the partial unique index), for an impossible date, or before the last cycle's end. Writes the
 * opening history row and the `ingreso.open` audit entry.
 */
export async function openNewCycle(ctx: ActionContext, input: { pacienteId: number; form: PostedLifecycleForm }): Promise<NewCycleResult> {
  const { db, clock } = ctx;
  const { pacienteId, form } = input;
  const state = await findCycleState(db, pacienteId);
  if (!state) return { kind: 'not_found' };
  const problems = formProblems(form.errors);
  if (problems.length > 0) {
    return { kind: 'done', decision: null, message: { level: 'error', text: `No se pudo iniciar el ciclo. ${problems.join(' ')}` }, nombre: state.nombre };
  }

  let decision: NewCycleDecision;
  try {
    // The transaction has ended (rolled back) before the catch runs, so on PostgreSQL the refused insert
    // never leaves an aborted transaction behind.
    decision = await inTransaction(db, async (trx) => {
      const current = (await findCycleState(trx, pacienteId)) ?? state;
      const d = decideNewCycle({
        fecha_inicio: form.values.fecha_inicio,
        openEstados: current.openEstados,
        latestFechaFin: current.latestFechaFin,
        today: todayOf(ctx),
        fechaNacimiento: current.fechaNacimiento,
      });
      if (d.kind !== 'ok') return d;
      const at = clock.now();
      const ingresoId = await openIngreso(trx, { pacienteId, fechaInicio: d.fecha_inicio, userId: ctx.actor?.id ?? null, now: at.toISOString() });
      // Its program's plan: the cycle's visits, due, in this same transaction.
      await planCycleVisits(trx, { pacienteId, ingresoId, fechaInicio: d.fecha_inicio, today: todayOf(ctx), now: at.toISOString(), userId: ctx.actor?.id ?? null });
      await recordAudit(trx, {
        at,
        actor: ctx.actor,
        action: 'ingreso.open',
        entityType: 'ingreso',
        entityId: ingresoId,
        patientId: pacienteId,
        changes: { estado: [null, 'ACTIVO' satisfies Estado], fecha_inicio: [null, d.fecha_inicio] },
        requestId: ctx.requestId,
      });
      return d;
    });
  } catch (err) {
    // The birth date moved under the new start (another request, between the check and the insert).
    const rule = dateRuleRefused(err);
    if (rule !== null) decision = { kind: 'impossible_start', reason: DATE_RULE_FALLBACK[rule] };
    else if (isDomainError(err, CYCLE_ALREADY_OPEN)) decision = { kind: 'pending_process' };
    else throw err;
  }
  const fieldError = newCycleDateError(decision);
  return { kind: 'done', decision, message: newCycleMessage(decision, state.nombre), nombre: state.nombre, ...(fieldError ? { fieldError } : {}) };
}
