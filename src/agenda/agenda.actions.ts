// The agenda's use cases (issue 28): each one function that owns its transaction, its audit entry and the mapping
// of its refusals to field errors. Two steps run inside the Ingreso's own transactions instead (planCycleVisits,
// followCycleStatus): opening a cycle plans its visits, changing its estado moves them, in the same commit.
import { createHash, randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/audit.repository.js';
import { isUniqueViolation } from '../db/errors.js';
import { conflict } from '../shared/domain-error.js';
import type { Trx } from '../db/database.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { todayOf, type ActionContext } from '../platform/writes/action-context.js';
import type { FieldErrors } from '../web/fields.js';
import type { ParsedForm } from '../web/form.js';
import {
  AGENDA_MSG,
  bookingTimeErrors,
  canalLabel,
  type CanalValue,
  CAN,
  CYCLE_MOTIVO,
  estadoLabel,
  type ExamOfVisit,
  hhmm,
  planVisits,
  startMinute,
  visitRecordedBy,
  visitsFollowingCycle,
  type CycleEstado,
} from './agenda.rules.js';
import { findAjustes, findBookingPatient, findCita, findCycleExam, findDueVisit, findPlanLinesOfPatient, findProfesional, findProgramaOf, findRecurso, findTipo, insertBookedVisit, insertPlannedVisits, insertVisitHistory, moveCycleVisits, overlapRefused, updateVisit, type Booking } from './agenda.repository.js';
import { findConsent, findLiveConsent, findLiveFeedByHash, insertConsent, insertFeed, markConsentWithdrawn, markFeedRevoked } from './agenda.contact.repository.js';
import type { BookingInput, RescheduleInput } from './agenda.schema.js';
import type { CitaEstado, CitaRow } from './agenda.table.js';

export type AgendaResult = { ok: true; id: number; pacienteId: number; message: string } | { ok: false; errors: FieldErrors; notFound?: boolean };

// ---------------------------------------------------------------------------------------------------------
// Steps inside the Ingreso's transactions

/**
 * Plans the due visits of a cycle just opened, from its program's plan edition in force on the cycle's start
 * (decision 0101). Runs inside the caller's transaction (opening a cycle, creating a patient).
 */
export async function planCycleVisits(
  trx: Trx,
  input: { pacienteId: number; ingresoId: number; fechaInicio: string; today: string; now: string; userId: number | null },
): Promise<number> {
  const lines = await findPlanLinesOfPatient(trx, input.pacienteId, input.fechaInicio);
  const visits = planVisits(lines, input.fechaInicio, input.today);
  await insertPlannedVisits(trx, { pacienteId: input.pacienteId, ingresoId: input.ingresoId, visits, now: input.now, userId: input.userId });
  return visits.length;
}

/**
 * What a change of the cycle's estado does to its visits (decision 0102): suspending pauses the pending and booked
 * ones, reactivating makes the paused ones due again, terminating cancels what had not happened. Runs inside the
 * caller's transaction; each visit moved gets its history row.
 */
export async function followCycleStatus(
  trx: Trx,
  input: { ingresoId: number; from: CycleEstado; to: CycleEstado; now: string; userId: number | null },
): Promise<number> {
  const move = visitsFollowingCycle(input.from, input.to);
  if (move === null) return 0;
  return moveCycleVisits(trx, { ingresoId: input.ingresoId, from: move.from, to: move.to, motivo: CYCLE_MOTIVO[input.to], now: input.now, userId: input.userId });
}

// ---------------------------------------------------------------------------------------------------------
// Booking

type Slot = RescheduleInput;

/** The refusals of a slot against the settings, the day and the catalogues (nothing is written). */
async function slotErrors(trx: Trx, ctx: ActionContext, slot: Slot): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const horario = await findAjustes(trx);
  Object.assign(errors, bookingTimeErrors({ ...slot, today: todayOf(ctx), horario }));
  if (!(await findProfesional(trx, slot.profesional))) errors.profesional = AGENDA_MSG.unknownProfesional;
  if (slot.recurso !== null && !(await findRecurso(trx, slot.recurso))) errors.recurso = AGENDA_MSG.unknownRecurso;
  return errors;
}

const bookingOf = (slot: Slot): Booking => {
  const inicio = startMinute(slot.fecha, slot.hora);
  return {
    fecha: slot.fecha,
    hora: slot.hora,
    duracion_min: slot.duracion_min,
    inicio_min: inicio,
    fin_min: inicio + slot.duracion_min,
    profesional_id: slot.profesional,
    recurso_id: slot.recurso,
  };
};

const bookingDetail = (b: Booking) => ({ fecha: b.fecha, hora: b.hora, duracion_min: b.duracion_min, profesional_id: b.profesional_id, recurso_id: b.recurso_id });

/** A database refusal of an overlap, as the error beside its field; rethrows anything else. */
function overlapErrors(err: unknown): FieldErrors {
  const which = overlapRefused(err);
  if (which === 'profesional') return { hora: AGENDA_MSG.overlapProfesional };
  if (which === 'recurso') return { recurso: AGENDA_MSG.overlapRecurso };
  throw err;
}

const whenText = (b: { fecha: string; hora: string; duracion_min: number }) => {
  const start = Number(b.hora.slice(0, 2)) * 60 + Number(b.hora.slice(3));
  return `${b.fecha} de ${b.hora} a ${hhmm(start + b.duracion_min)}`;
};

/**
 * Books a visit (decision 0100): fills the cycle's earliest due visit of that kind, or adds an unplanned one. Refused,
 * with the message beside its field and nothing stored: an unknown patient, kind, professional or resource, a
 * patient without an open ACTIVO cycle, a date in the past, a time outside the clinic's hours, an overlap with
 * another visit of the professional or the resource (the database decides, under any concurrency).
 */
export async function bookVisit(ctx: ActionContext, parsed: ParsedForm<BookingInput>): Promise<AgendaResult> {
  if (!parsed.ok) return { ok: false, errors: parsed.errors };
  const input = parsed.data;
  try {
    return await inTransaction(ctx.db, async (trx): Promise<AgendaResult> => {
      const errors: FieldErrors = {};
      const patient = await findBookingPatient(trx, input.patient_id);
      if (!patient) return { ok: false, errors: { patient_id: 'Paciente desconocido.' }, notFound: true };
      if (!patient.cycle) errors.patient_id = AGENDA_MSG.noCycle;
      else if (patient.cycle.estado === 'TERMINADO') errors.patient_id = AGENDA_MSG.cycleFinished;
      else if (patient.cycle.estado === 'SUSPENDIDO') errors.patient_id = AGENDA_MSG.cycleSuspended;
      const tipo = await findTipo(trx, input.tipo);
      if (!tipo) errors.tipo = AGENDA_MSG.unknownTipo;
      Object.assign(errors, await slotErrors(trx, ctx, input));
      if (Object.keys(errors).length > 0 || !patient.cycle || !tipo) return { ok: false, errors };

      const at = ctx.clock.now();
      const now = at.toISOString();
      const booking = bookingOf(input);
      const due = await findDueVisit(trx, patient.cycle.id, tipo.codigo);
      let id: number;
      if (due) {
        id = due.id;
        const moved = await updateVisit(trx, { id, from: 'PENDIENTE', set: { estado: 'AGENDADA', ...booking }, now });
        if (!moved) return { ok: false, errors: { _form: 'La cita cambió mientras se agendaba. Vuelva a intentarlo.' } };
      } else {
        id = await insertBookedVisit(trx, { pacienteId: patient.id, ingresoId: patient.cycle.id, tipo: tipo.codigo, booking, now });
      }
      await insertVisitHistory(trx, { cita_id: id, at: now, user_id: ctx.actor?.id ?? null, desde: due ? 'PENDIENTE' : null, hacia: 'AGENDADA', detalle: bookingDetail(booking) });
      await recordAudit(trx, {
        at,
        actor: ctx.actor,
        action: 'cita.book',
        entityType: 'cita',
        entityId: id,
        patientId: patient.id,
        changes: { tipo: [null, tipo.codigo], estado: [due ? 'PENDIENTE' : null, 'AGENDADA'], ...pairs(null, bookingDetail(booking)) },
        requestId: ctx.requestId,
      });
      return { ok: true, id, pacienteId: patient.id, message: `Cita de ${tipo.nombre} agendada para ${patient.nombre} ${patient.apellido}: ${whenText(booking)}.` };
    });
  } catch (err) {
    return { ok: false, errors: overlapErrors(err) };
  }
}

const pairs = (before: Record<string, unknown> | null, after: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(after).filter(([k, v]) => before?.[k] !== v).map(([k, v]) => [k, [before?.[k] ?? null, v]]));

type VisitChange = {
  allowed: (e: CitaEstado) => boolean;
  action: string;
  decide: (trx: Trx, cita: CitaRow) => Promise<{ errors: FieldErrors } | { set: Partial<CitaRow>; hacia: CitaEstado; detalle: Record<string, unknown>; message: string }>;
};

/** One change of a visit, decided on the visit as it is inside the caller's transaction: its history row and audit entry. */
async function applyVisitChange(trx: Trx, ctx: ActionContext, cita: CitaRow, change: VisitChange): Promise<AgendaResult> {
  if (!change.allowed(cita.estado)) return { ok: false, errors: { _form: `${AGENDA_MSG.notBookable} (${estadoLabel(cita.estado)})` } };
  const decided = await change.decide(trx, cita);
  if ('errors' in decided) return { ok: false, errors: decided.errors };
  const at = ctx.clock.now();
  const now = at.toISOString();
  const moved = await updateVisit(trx, { id: cita.id, from: cita.estado, set: { ...decided.set, estado: decided.hacia }, now });
  if (!moved) return { ok: false, errors: { _form: 'La cita cambió mientras se procesaba. Vuelva a intentarlo.' } };
  await insertVisitHistory(trx, { cita_id: cita.id, at: now, user_id: ctx.actor?.id ?? null, desde: cita.estado, hacia: decided.hacia, detalle: decided.detalle });
  const before: Record<string, unknown> = { estado: cita.estado };
  for (const k of Object.keys(decided.detalle)) before[k] = (cita as unknown as Record<string, unknown>)[k] ?? null;
  await recordAudit(trx, {
    at,
    actor: ctx.actor,
    action: change.action,
    entityType: 'cita',
    entityId: cita.id,
    patientId: cita.paciente_id,
    changes: pairs(before, { estado: decided.hacia, ...decided.detalle }),
    requestId: ctx.requestId,
  });
  return { ok: true, id: cita.id, pacienteId: cita.paciente_id, message: decided.message };
}

/** One change of a visit in its own transaction. */
async function changeVisit(ctx: ActionContext, citaId: number, change: VisitChange): Promise<AgendaResult> {
  try {
    return await inTransaction(ctx.db, async (trx): Promise<AgendaResult> => {
      const cita = await findCita(trx, citaId);
      if (!cita) return { ok: false, errors: { _form: 'Cita desconocida.' }, notFound: true };
      return applyVisitChange(trx, ctx, cita, change);
    });
  } catch (err) {
    return { ok: false, errors: overlapErrors(err) };
  }
}

/** Moves a booked visit to another slot (the same checks as a booking). */
export function rescheduleVisit(ctx: ActionContext, citaId: number, parsed: ParsedForm<RescheduleInput>): Promise<AgendaResult> {
  if (!parsed.ok) return Promise.resolve({ ok: false, errors: parsed.errors });
  const slot = parsed.data;
  return changeVisit(ctx, citaId, {
    allowed: CAN.reschedule,
    action: 'cita.reschedule',
    async decide(trx) {
      const errors = await slotErrors(trx, ctx, slot);
      if (Object.keys(errors).length > 0) return { errors };
      const booking = bookingOf(slot);
      return { set: booking, hacia: 'AGENDADA', detalle: bookingDetail(booking), message: `Cita reprogramada: ${whenText(booking)}.` };
    },
  });
}

export function cancelVisit(ctx: ActionContext, citaId: number, parsed: ParsedForm<{ motivo: string }>): Promise<AgendaResult> {
  if (!parsed.ok) return Promise.resolve({ ok: false, errors: parsed.errors });
  const { motivo } = parsed.data;
  return changeVisit(ctx, citaId, {
    allowed: CAN.cancel,
    action: 'cita.cancel',
    decide: async () => ({ set: { motivo }, hacia: 'CANCELADA', detalle: { motivo }, message: 'Cita cancelada.' }),
  });
}

/** Marking a booked visit attended, linked to the exam record that recorded it (of the same cycle), if any. */
const attendChange = (examId: number | null): VisitChange => ({
  allowed: CAN.attend,
  action: 'cita.attend',
  async decide(trx, cita) {
    if (examId !== null && !(await findCycleExam(trx, cita.ingreso_id, examId))) return { errors: { exam_record_id: AGENDA_MSG.examOther } };
    return { set: { exam_record_id: examId }, hacia: 'ATENDIDA', detalle: { exam_record_id: examId }, message: 'Cita marcada como atendida.' };
  },
});

/** Marks a booked visit attended, linked to the exam record that recorded it (of the same cycle), if any. */
export function attendVisit(ctx: ActionContext, citaId: number, parsed: ParsedForm<{ exam_record_id: number | null }>): Promise<AgendaResult> {
  if (!parsed.ok) return Promise.resolve({ ok: false, errors: parsed.errors });
  return changeVisit(ctx, citaId, attendChange(parsed.data.exam_record_id));
}

/** What `attendVisitByExam` throws when the visit chosen cannot be the one the exam records. */
export const VISIT_NOT_OFFERED = 'agenda.visit_not_offered';

/**
 * Step inside the exam record's transaction (registering an exam offers the day's booked visit): marks the
 * patient's booked visit attended, linked to the record just written, with the same change as `attendVisit`. The
 * visit must be the patient's, booked on the exam's date, of a kind that exam records; otherwise it throws
 * conflict(VISIT_NOT_OFFERED) and the caller's transaction, the record with it, is rolled back.
 */
export async function attendVisitByExam(
  trx: Trx,
  ctx: ActionContext,
  input: { citaId: number; pacienteId: number; examId: number; exam: ExamOfVisit },
): Promise<void> {
  const cita = await findCita(trx, input.citaId);
  const tipo = cita ? await findTipo(trx, cita.tipo) : undefined;
  if (!cita || !tipo || cita.paciente_id !== input.pacienteId || cita.fecha !== input.exam.fecha || !visitRecordedBy(tipo, input.exam)) throw conflict(VISIT_NOT_OFFERED);
  const result = await applyVisitChange(trx, ctx, cita, attendChange(input.examId));
  if (!result.ok) throw conflict(VISIT_NOT_OFFERED);
}

export function markNoShow(ctx: ActionContext, citaId: number): Promise<AgendaResult> {
  return changeVisit(ctx, citaId, {
    allowed: CAN.noShow,
    action: 'cita.no_show',
    decide: async () => ({ set: {}, hacia: 'NO_ASISTIO', detalle: {}, message: 'Inasistencia registrada.' }),
  });
}

// ---------------------------------------------------------------------------------------------------------
// Contact consent (Ley 1581 de 2012, decision 0104), reminders and calendar feeds

export type SimpleResult = { ok: true; message: string } | { ok: false; errors: FieldErrors; notFound?: boolean };

/** Records a patient's consent to be contacted by a channel, given on a date (not in the future); audited. */
export async function giveConsent(ctx: ActionContext, pacienteId: number, parsed: ParsedForm<{ canal: CanalValue; otorgado_el: string }>): Promise<SimpleResult> {
  if (!parsed.ok) return { ok: false, errors: parsed.errors };
  const { canal, otorgado_el } = parsed.data;
  if (otorgado_el > todayOf(ctx)) return { ok: false, errors: { otorgado_el: 'La fecha no puede ser futura.' } };
  try {
    return await inTransaction(ctx.db, async (trx): Promise<SimpleResult> => {
      if (!(await findProgramaOf(trx, pacienteId))) return { ok: false, errors: { _form: 'Paciente desconocido.' }, notFound: true };
      if (await findLiveConsent(trx, pacienteId, canal)) return { ok: false, errors: { canal: `Ya hay un consentimiento vigente por ${canalLabel(canal)}.` } };
      const at = ctx.clock.now();
      const now = at.toISOString();
      const id = await insertConsent(trx, { paciente_id: pacienteId, canal, otorgado_el, retirado_el: null, registrado_por: ctx.actor?.id ?? null, created_at: now, updated_at: now });
      await recordAudit(trx, {
        at,
        actor: ctx.actor,
        action: 'patient.consent_give',
        entityType: 'patient',
        entityId: pacienteId,
        patientId: pacienteId,
        changes: { consentimiento: [null, { id, canal, otorgado_el }] },
        requestId: ctx.requestId,
      });
      return { ok: true, message: `Consentimiento de contacto por ${canalLabel(canal)} registrado.` };
    });
  } catch (err) {
    if (isUniqueViolation(err)) return { ok: false, errors: { canal: `Ya hay un consentimiento vigente por ${canalLabel(canal)}.` } };
    throw err;
  }
}

/** Withdraws a live consent from a date (not before it was given, not in the future); audited. */
export async function withdrawConsent(ctx: ActionContext, consentId: number, parsed: ParsedForm<{ retirado_el: string }>): Promise<SimpleResult & { pacienteId?: number }> {
  if (!parsed.ok) return { ok: false, errors: parsed.errors };
  const { retirado_el } = parsed.data;
  return inTransaction(ctx.db, async (trx): Promise<SimpleResult & { pacienteId?: number }> => {
    const consent = await findConsent(trx, consentId);
    if (!consent) return { ok: false, errors: { _form: 'Consentimiento desconocido.' }, notFound: true };
    if (consent.retirado_el !== null) return { ok: false, errors: { _form: 'Ese consentimiento ya fue retirado.' }, pacienteId: consent.paciente_id };
    if (retirado_el > todayOf(ctx)) return { ok: false, errors: { retirado_el: 'La fecha no puede ser futura.' }, pacienteId: consent.paciente_id };
    if (retirado_el < consent.otorgado_el) return { ok: false, errors: { retirado_el: 'La fecha no puede ser anterior a la del consentimiento.' }, pacienteId: consent.paciente_id };
    const at = ctx.clock.now();
    await markConsentWithdrawn(trx, consentId, retirado_el, at.toISOString());
    await recordAudit(trx, {
      at,
      actor: ctx.actor,
      action: 'patient.consent_withdraw',
      entityType: 'patient',
      entityId: consent.paciente_id,
      patientId: consent.paciente_id,
      changes: { consentimiento: [{ id: consent.id, canal: consent.canal, retirado_el: null }, { id: consent.id, canal: consent.canal, retirado_el }] },
      requestId: ctx.requestId,
    });
    return { ok: true, message: `Consentimiento por ${canalLabel(consent.canal)} retirado.`, pacienteId: consent.paciente_id };
  });
}

/** Marks a booked visit as reminded, by whom and by which channel; refused for a channel without live consent. */
export async function markReminded(ctx: ActionContext, citaId: number, parsed: ParsedForm<{ canal: CanalValue }>): Promise<SimpleResult> {
  if (!parsed.ok) return { ok: false, errors: parsed.errors };
  const { canal } = parsed.data;
  return inTransaction(ctx.db, async (trx): Promise<SimpleResult> => {
    const cita = await findCita(trx, citaId);
    if (!cita) return { ok: false, errors: { _form: 'Cita desconocida.' }, notFound: true };
    if (cita.estado !== 'AGENDADA') return { ok: false, errors: { _form: AGENDA_MSG.notBookable } };
    if (!(await findLiveConsent(trx, cita.paciente_id, canal))) return { ok: false, errors: { canal: `El paciente no autorizó el contacto por ${canalLabel(canal)}.` } };
    const at = ctx.clock.now();
    const now = at.toISOString();
    await updateVisit(trx, { id: cita.id, from: 'AGENDADA', set: { recordado_at: now, recordado_por: ctx.actor?.id ?? null }, now });
    await insertVisitHistory(trx, { cita_id: cita.id, at: now, user_id: ctx.actor?.id ?? null, desde: 'AGENDADA', hacia: 'AGENDADA', detalle: { recordado: canal } });
    await recordAudit(trx, {
      at,
      actor: ctx.actor,
      action: 'cita.remind',
      entityType: 'cita',
      entityId: cita.id,
      patientId: cita.paciente_id,
      changes: { recordado_at: [cita.recordado_at, now], canal: [null, canal] },
      requestId: ctx.requestId,
    });
    return { ok: true, message: 'Recordatorio registrado.' };
  });
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Creates a secret address for the acting user's calendar feed; the token is shown once, its hash kept. */
export async function createFeed(ctx: ActionContext): Promise<{ ok: true; token: string; message: string } | { ok: false; errors: FieldErrors }> {
  const actor = ctx.actor;
  if (!actor) return { ok: false, errors: { _form: 'Inicie sesión.' } };
  const token = randomBytes(24).toString('base64url');
  return inTransaction(ctx.db, async (trx) => {
    const at = ctx.clock.now();
    const id = await insertFeed(trx, { user_id: actor.id, token_hash: sha256(token), created_at: at.toISOString(), revocado_at: null });
    await recordAudit(trx, { at, actor, action: 'agenda.feed_create', entityType: 'user', entityId: actor.id, changes: { feed: [null, id] }, requestId: ctx.requestId });
    return { ok: true as const, token, message: 'Dirección del calendario creada: cópiela ahora, no se volverá a mostrar.' };
  });
}

/** Revokes one of the acting user's feeds: its address answers 404 from then on. */
export async function revokeFeed(ctx: ActionContext, feedId: number): Promise<SimpleResult> {
  const actor = ctx.actor;
  if (!actor) return { ok: false, errors: { _form: 'Inicie sesión.' } };
  return inTransaction(ctx.db, async (trx): Promise<SimpleResult> => {
    const at = ctx.clock.now();
    const done = await markFeedRevoked(trx, feedId, actor.id, at.toISOString());
    if (!done) return { ok: false, errors: { _form: 'Dirección desconocida o ya revocada.' }, notFound: true };
    await recordAudit(trx, { at, actor, action: 'agenda.feed_revoke', entityType: 'user', entityId: actor.id, changes: { feed: [feedId, null] }, requestId: ctx.requestId });
    return { ok: true, message: 'Dirección del calendario revocada.' };
  });
}

/** The user whose feed a token opens, or null (unknown or revoked). */
export const feedOwner = async (ctx: ActionContext, token: string): Promise<number | null> =>
  (await findLiveFeedByHash(ctx.db, sha256(token)))?.user_id ?? null;
