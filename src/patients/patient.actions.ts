// The patient's use cases, each one function that owns its transaction, its audit entries and the mapping of
// domain errors to field errors: the route, the import, the tests and the seeds call the same ones (decision 0081).

import { followCycleStatus, planCycleVisits } from '../agenda/agenda.actions.js';
import { recordAudit } from '../audit/audit.repository.js';
import { diffFields } from '../audit/audit.rules.js';
import type { Trx } from '../db/database.js';
import { dateRuleRefused } from '../db/errors.js';
import { birthAfterCyclesProblem, DATE_RULE_FALLBACK, movedStartProblem } from '../ingresos/cycle-dates.rules.js';
import { applyStatusChange, findActiveIngreso, findCycleDateBounds, findEarliestCycleStart, findLatestFechaFin, openIngreso } from '../ingresos/ingreso.repository.js';
import { MSG as INGRESO_MSG, startsBeforeLastEnd } from '../ingresos/ingreso.rules.js';
import { inTransaction } from '../platform/writes/transaction.js';
import type { ViewAuditQueue } from '../audit/audit.queue.js';
import { todayOf, type ActionContext, type Actor } from '../platform/writes/action-context.js';
import { formatDateEs } from '../shared/dates.js';
import { conflict, isDomainError, notFound } from '../shared/domain-error.js';
import { findDocumentoKeyHolder, findPeopleBornOn, isDocumentoKeyTaken, type PersonCandidate } from './identity.repository.js';
import { AUDITED_PATIENT_FIELDS } from './patient.fields.js';
import { findPatientById } from './patient.repository.js';
import { DOCUMENTO_TAKEN, insertPatient, setActiveIngresoFechaInicio, updatePatient } from './patient.writes.repository.js';
import { documentoKey, keptDocumentoKey, patientDerivedColumns, similarPeople } from './patient.rules.js';
import { FORM_MSG, type PatientInput } from './patient.schema.js';
import type { PatientRow } from './patient.table.js';

/** What a use case answers: done (the id and the one-time message), or the form's errors by field. */
export type PatientActionResult =
  | { ok: true; id: number; message: string }
  | { ok: false; errors: Record<string, string>; similar: readonly PersonCandidate[]; documentoHolder?: { id: number; name: string } | null }
  | { ok: false; notFound: true };

const formErrors = (errors: Record<string, string>, similar: readonly PersonCandidate[] = []): PatientActionResult => ({ ok: false, errors, similar });

/** The documento is taken: its error, with the record that holds it to link to (issue 29, point 8). */
async function documentoTaken(db: ActionContext['db'], key: string, exceptId?: number): Promise<PatientActionResult> {
  const holder = await findDocumentoKeyHolder(db, key, exceptId);
  return {
    ok: false,
    errors: { documento: FORM_MSG.documentoTaken },
    similar: [],
    documentoHolder: holder ? { id: holder.id, name: `${holder.nombre} ${holder.apellido}` } : null,
  };
}

/** The patient was deleted while the form was being sent. */
const PATIENT_GONE = 'patient.gone';
/** The birth date or the moved start of the ACTIVO cycle breaks a date rule (checked in the transaction): the errors by field. */
const DATES_REFUSED = 'patient.dates_refused';

/**
 * The date rules the patient form's birth date and cycle start must keep against what is stored (decisions 0013,
 * 0063), each beside its field: the moved start not before the previous cycle's end, nor after the cycle's first
 * exam or status change; a changed birth date not after the start of any other cycle of the patient (the moved one
 * is checked against the posted birth date by the form's schema).
 */
async function datesProblems(trx: Trx, current: PatientRow, fechaNacimiento: string, fechaInicio: string | null): Promise<Record<string, string>> {
  const errors: Record<string, string> = {};
  const active = fechaInicio !== null ? await findActiveIngreso(trx, current.id) : undefined;
  if (fechaInicio !== null) {
    const latestFechaFin = await findLatestFechaFin(trx, current.id);
    if (startsBeforeLastEnd(fechaInicio, latestFechaFin)) errors.fecha_inicio_programa = INGRESO_MSG.fechaInicioBeforeLastEnd(latestFechaFin!);
    else if (active && active.fecha_inicio !== fechaInicio) {
      const problem = movedStartProblem(fechaInicio, await findCycleDateBounds(trx, active.id));
      if (problem !== null) errors.fecha_inicio_programa = problem;
    }
  }
  if (fechaNacimiento !== current.fecha_nacimiento) {
    const problem = birthAfterCyclesProblem(fechaNacimiento, await findEarliestCycleStart(trx, current.id, active?.id ?? null));
    if (problem !== null) errors.fecha_nacimiento = problem;
  }
  return errors;
}

/**
 * Runs the change again once when the database refused a date the checks had accepted (another request wrote in
 * between): the second run's checks see that write and name its date.
 */
async function retriedOnDateRule<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (dateRuleRefused(err) === null) throw err;
    return run();
  }
}

export const pickAudited = (row: PatientInput): Record<string, unknown> => Object.fromEntries(AUDITED_PATIENT_FIELDS.map((f) => [f, row[f] ?? null]));

// ---------------------------------------------------------------------------------------------------------
// Create

/** Who writes and when, as a step inside a caller's transaction writes it (the instant read once per use case). */
export interface WriteStamp {
  actor: Actor | null;
  at: Date;
  requestId: string | null;
}

const stampOf = (ctx: ActionContext): WriteStamp => ({ actor: ctx.actor, at: ctx.clock.now(), requestId: ctx.requestId ?? null });

export interface NewPatientWithCycle {
  patient: PatientInput;
  fechaInicio: string;
  /** The first cycle's estado: ACTIVO (the form), or SUSPENDIDO from the day it starts (an import column). */
  estado: 'ACTIVO' | 'SUSPENDIDO';
  /** Details added to the patient.create entry (e.g. the import it came from). */
  auditDetails?: Record<string, unknown>;
}

/**
 * The step a creation takes inside a transaction (this module's and the import's): the patient row, its ACTIVO
 * Ingreso and its history row, optionally suspended at once, and the patient.create audit entry. Throws the
 * DOCUMENTO_TAKEN domain error when the documento_key is taken (the unique index decides).
 */
export async function insertPatientWithCycle(trx: Trx, ctx: WriteStamp, input: NewPatientWithCycle): Promise<{ patientId: number; ingresoId: number }> {
  const now = ctx.at.toISOString();
  const userId = ctx.actor?.id ?? null;
  const p = input.patient;
  // Active from its first cycle's start, as that cycle's trigger would make it: the row is written once (decision 0300).
  const patientId = await insertPatient(trx, { ...p, ...patientDerivedColumns(p), activo_desde: input.fechaInicio, created_at: now, updated_at: now });
  const ingresoId = await openIngreso(trx, { pacienteId: patientId, fechaInicio: input.fechaInicio, userId, now });
  // The first cycle's visits, planned from its program (the lookback counts from the UTC day: a day's difference
  // does not matter to it), then paused with it when it starts suspended.
  await planCycleVisits(trx, { pacienteId: patientId, ingresoId, fechaInicio: input.fechaInicio, today: now.slice(0, 10), now, userId });
  if (input.estado === 'SUSPENDIDO') {
    await applyStatusChange(trx, { ingresoId, from: 'ACTIVO', to: 'SUSPENDIDO', fechaFin: null, motivo: null, fecha: input.fechaInicio, userId, now });
    await followCycleStatus(trx, { ingresoId, from: 'ACTIVO', to: 'SUSPENDIDO', now, userId });
  }
  await recordAudit(trx, {
    at: ctx.at,
    actor: ctx.actor,
    action: 'patient.create',
    entityType: 'patient',
    entityId: patientId,
    patientId,
    changes: {
      ...diffFields(null, pickAudited(p)),
      ingreso: [null, { id: ingresoId, estado: input.estado, fecha_inicio: input.fechaInicio }],
      ...(input.auditDetails ?? {}),
    },
    requestId: ctx.requestId,
  });
  return { patientId, ingresoId };
}

export interface CreatePatientInput {
  patient: PatientInput;
  /** the first cycle's start; null: today */
  fechaInicioPrograma: string | null;
  /** "es otra persona" was confirmed: created even beside similar people (decision 0043) */
  otherPerson: boolean;
}

/**
 * Creates a patient with its ACTIVO first cycle. Refused with a field error when the documento is taken; held
 * back, with the similar people, when someone with the same birth date and a similar name exists and the
 * person was not confirmed as another.
 */
export async function createPatient(ctx: ActionContext, input: CreatePatientInput): Promise<PatientActionResult> {
  const { db } = ctx;
  const p = input.patient;
  if (await isDocumentoKeyTaken(db, documentoKey(p.documento))) return documentoTaken(db, documentoKey(p.documento));
  const similar = similarPeople(p, await findPeopleBornOn(db, [p.fecha_nacimiento]));
  if (similar.length > 0 && !input.otherPerson) return formErrors({}, similar);
  const fechaInicio = input.fechaInicioPrograma ?? todayOf(ctx);
  const stamp = stampOf(ctx);
  let id: number;
  try {
    id = await inTransaction(db, async (trx) => {
      const created = await insertPatientWithCycle(trx, stamp, {
        patient: p,
        fechaInicio,
        estado: 'ACTIVO',
        auditDetails: similar.length > 0 ? { otra_persona_confirmada: [null, similar.map((s) => s.id)] } : {},
      });
      return created.patientId;
    });
  } catch (err) {
    // Another request took the documento between the check and the insert: the unique index refused it.
    if (isDomainError(err, DOCUMENTO_TAKEN)) return documentoTaken(db, documentoKey(p.documento));
    throw err;
  }
  return { ok: true, id, message: `Paciente ${p.nombre} ${p.apellido} registrado (ficha n.º ${id}). Ciclo ACTIVO desde el ${formatDateEs(fechaInicio)}.` };
}

// ---------------------------------------------------------------------------------------------------------
// Update

export interface UpdatePatientInput {
  patient: PatientInput;
  /** the ACTIVO cycle's start moved to this date; null: left as it is */
  fechaInicioPrograma: string | null;
}

/**
 * Saves the patient's record and, when given, moves its ACTIVO cycle's start (audited as an ingreso.update):
 * one transaction, one patient.update entry with the changed fields. Not found when the patient is gone.
 */
export async function updatePatientRecord(ctx: ActionContext, id: number, input: UpdatePatientInput): Promise<PatientActionResult> {
  const { db } = ctx;
  const stamp = stampOf(ctx);
  const before = await findPatientById(db, id);
  if (!before) return { ok: false, notFound: true };
  const p = input.patient;
  const key = keptDocumentoKey(before, documentoKey(p.documento));
  if (key === documentoKey(p.documento) && (await isDocumentoKeyTaken(db, key, id))) return documentoTaken(db, key, id);
  const now = stamp.at.toISOString();
  const fechaInicio = input.fechaInicioPrograma;
  try {
    await retriedOnDateRule(() =>
      inTransaction(db, async (trx) => {
        const current = await findPatientById(trx, id);
        if (!current) throw notFound(PATIENT_GONE);
        const dateErrors = await datesProblems(trx, current, p.fecha_nacimiento, fechaInicio);
        if (Object.keys(dateErrors).length > 0) throw conflict(DATES_REFUSED, { errors: dateErrors });
        // The start moves first, unless it moves below the stored birth date: no write passes through a state
        // that breaks a date rule the database holds (birth ≤ every start).
        const birthFirst = fechaInicio !== null && fechaInicio < current.fecha_nacimiento;
        const update = () => updatePatient(trx, id, { ...p, ...patientDerivedColumns(p), documento_key: key, updated_at: now });
        if (birthFirst || fechaInicio === null) await update();
        const changes: Record<string, unknown> = diffFields(pickAudited(current), pickAudited(p));
        if (fechaInicio !== null) {
          const moved = await setActiveIngresoFechaInicio(trx, id, fechaInicio, now);
          if (!birthFirst) await update();
          if (moved && moved.before !== fechaInicio) {
            changes.fecha_inicio_programa = [moved.before, fechaInicio];
            await recordAudit(trx, {
              at: stamp.at,
              actor: stamp.actor,
              action: 'ingreso.update',
              entityType: 'ingreso',
              entityId: moved.id,
              patientId: id,
              changes: { fecha_inicio: [moved.before, fechaInicio] },
              requestId: stamp.requestId,
            });
          }
        }
        await recordAudit(trx, {
          at: stamp.at,
          actor: stamp.actor,
          action: 'patient.update',
          entityType: 'patient',
          entityId: id,
          patientId: id,
          changes,
          requestId: stamp.requestId,
        });
      }),
    );
  } catch (err) {
    if (isDomainError(err, DOCUMENTO_TAKEN)) return documentoTaken(db, key, id);
    if (isDomainError(err, PATIENT_GONE)) return { ok: false, notFound: true };
    if (isDomainError<{ errors: Record<string, string> }>(err, DATES_REFUSED)) return formErrors(err.details.errors);
    const rule = dateRuleRefused(err);
    if (rule !== null) {
      const field = rule === 'birth_after_start' ? 'fecha_nacimiento' : 'fecha_inicio_programa';
      return formErrors({ [field]: DATE_RULE_FALLBACK[rule] });
    }
    throw err;
  }
  return { ok: true, id, message: `Datos de ${p.nombre} ${p.apellido} guardados.` };
}

/** Records a view of the patient's record in the trail, through the queue of views (decision 0017). */
export function recordPatientView(ctx: ActionContext, views: ViewAuditQueue, patientId: number): Promise<void> {
  return views.record({
    at: ctx.clock.now(),
    actor: ctx.actor,
    action: 'patient.view',
    entityType: 'patient',
    entityId: patientId,
    patientId,
    requestId: ctx.requestId ?? null,
  });
}
