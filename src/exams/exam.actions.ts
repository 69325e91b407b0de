// The exam records' writes as use cases (issue 26): adding a record to the ACTIVO cycle, voiding one, and the
// archive view's audit entry. Each owns its transaction and its audit entry and says what to show; no HTTP here.
import type { ViewAuditQueue } from '../audit/audit.queue.js';
import { recordAudit, recordAuditAlone } from '../audit/audit.repository.js';
import { isPostgres } from '../db/database.js';
import { dateRuleRefused } from '../db/errors.js';
import { findActiveIngreso } from '../ingresos/ingreso.repository.js';
import { labelOf } from '../patients/patient.rules.js';
import { findPatientById } from '../patients/patient.repository.js';
import { todayOf, type ActionContext, type Actor } from '../platform/writes/action-context.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { conflict, isDomainError, notFound } from '../shared/domain-error.js';
import type { FieldErrors, FormValues } from '../web/fields.js';
import { parseForm, parseId } from '../web/form.js';
import { attendVisitByExam, VISIT_NOT_OFFERED } from '../agenda/agenda.actions.js';
import { AGENDA_MSG } from '../agenda/agenda.rules.js';
import { EXAM_AUDITED_ON_CREATE } from './exam.fields.js';
import {
  findIngresoOfPatient,
  findRecordOfPatient,
  insertExamRecord,
  listCycleRecords,
  listPatientCycles,
  lockActiveIngreso,
  voidExamRecord,
} from './exam.repository.js';
import { EXAM_KINDS, type ExamKindValue } from './exam.rules.js';
import { examSchema, voidSchema } from './exam.schema.js';
import type { NewExamRecordRow } from './exam.table.js';

export const EXAM_MSG = {
  noActivo: 'El paciente no tiene un ingreso ACTIVO (pudo haber cambiado mientras llenaba el formulario): no se guardó el registro.',
  cycleChanged: 'El ciclo activo del paciente cambió mientras llenaba el formulario: no se guardó el registro. Revise la fecha y vuelva a intentarlo.',
  created: (kind: ExamKindValue) => `Registro de ${labelOf(EXAM_KINDS, kind).toLowerCase()} guardado en el ingreso activo.`,
  createdWithVisit: (kind: ExamKindValue) => `Registro de ${labelOf(EXAM_KINDS, kind).toLowerCase()} guardado en el ingreso activo; la cita quedó atendida.`,
  voided: (id: number) => `Registro n.º ${id} anulado. Ya no aparece en la vista clínica y se conserva en el historial del ingreso.`,
  alreadyVoided: (id: number) => `El registro n.º ${id} ya estaba anulado.`,
  voidArchived: 'Solo se pueden anular registros del ingreso activo: los ciclos archivados son de solo lectura.',
  voidMotivo: (error: string) => `No se anuló el registro: indique el motivo de la anulación. ${error}`,
} as const;

/** What the transactions below refuse (domain errors: shared/domain-error.ts), turned into answers here. */
const NO_ACTIVE_INGRESO = 'exam.no_active_ingreso';
const RECORD_NOT_FOUND = 'exam.record_not_found';
const RECORD_ARCHIVED = 'exam.record_archived';
const RECORD_ALREADY_VOIDED = 'exam.record_already_voided';
const CYCLE_CHANGED = 'exam.cycle_changed';

export type Message = { level: 'success' | 'info' | 'error'; text: string };

/** The audited actions need someone acting: exam records say who registered and who voided them. */
function actorOf(ctx: ActionContext): Actor {
  if (!ctx.actor) throw new Error('an exam record is written by a logged-in user');
  return ctx.actor;
}

const engineOf = (ctx: ActionContext) => (isPostgres(ctx.db) ? 'postgres' : 'sqlite');

export type AddExamResult =
  | { kind: 'not_found' }
  /** the form's errors, to show beside its fields on the clinical view */
  | { kind: 'invalid'; posted: { kind: ExamKindValue; values: FormValues; errors: FieldErrors } }
  | { kind: 'done'; message: Message };

/**
 * Adds an exam record of `kind` to the patient's ACTIVO cycle (decisions §7), its date checked against that cycle
 * (decision 0031) and re-checked under a lock, with its `exam.create` audit entry.
 */
export async function addExamRecord(ctx: ActionContext, input: { patientId: number; kind: ExamKindValue; body: unknown }): Promise<AddExamResult> {
  const { db, clock } = ctx;
  const { patientId, kind } = input;
  const patient = await findPatientById(db, patientId);
  if (!patient) return { kind: 'not_found' };
  // No ACTIVO Ingreso: nothing to attach the record to, and the view would have no form to show errors in.
  const cycle = await findActiveIngreso(db, patient.id);
  if (!cycle) return { kind: 'done', message: { level: 'error', text: EXAM_MSG.noActivo } };

  // The day's booked visit the form offered (issue 28): not a field of the record, read beside the record's form.
  const { cita_id: citaRaw, ...body } = (typeof input.body === 'object' && input.body !== null ? input.body : {}) as Record<string, unknown>;
  const citaText = typeof citaRaw === 'string' ? citaRaw.trim() : '';
  const citaId = citaText === '' ? null : parseId(citaText);
  const form = parseForm(body, examSchema(kind, todayOf(ctx), cycle.fecha_inicio));
  const values = { ...form.values, cita_id: citaText };
  const citaError = citaRaw !== undefined && typeof citaRaw !== 'string' ? 'Este campo se envió más de una vez.' : citaText !== '' && citaId === null ? AGENDA_MSG.visitNotOffered : null;
  if (!form.ok || citaError) return { kind: 'invalid', posted: { kind, values, errors: { ...(form.ok ? {} : form.errors), ...(citaError ? { cita_id: citaError } : {}) } } };

  const now = clock.now();
  const user = actorOf(ctx);
  try {
    await inTransaction(db, async (trx) => {
      // Re-checked under a lock: a status change racing this post never leaves a record on a closed cycle.
      const active = await lockActiveIngreso(trx, patient.id, engineOf(ctx));
      if (!active) throw conflict(NO_ACTIVE_INGRESO);
      // A cycle that changed meanwhile (another opened, its start moved) is not the one the date was checked against.
      if (active.id !== cycle.id || form.data.fecha < active.fecha_inicio) throw conflict(CYCLE_CHANGED);
      const row: NewExamRecordRow = { ...form.data, ingreso_id: active.id, kind, registrado_por: user.id, created_at: now.toISOString() };
      const id = await insertExamRecord(trx, row);
      const changes: Record<string, [null, unknown]> = {};
      for (const [k, v] of Object.entries(row)) if (v !== null && EXAM_AUDITED_ON_CREATE.has(k)) changes[k] = [null, v];
      await recordAudit(trx, {
        at: now,
        actor: user,
        action: 'exam.create',
        entityType: 'exam_record',
        entityId: id,
        patientId: patient.id,
        changes,
        requestId: ctx.requestId,
      });
      // Marked attended with the record, in the same commit (the visit's own change: agenda.actions.ts).
      if (citaId !== null) await attendVisitByExam(trx, ctx, { citaId, pacienteId: patient.id, examId: id, exam: { kind, fecha: row.fecha, tipo: row.tipo ?? null, tipo_sesion: row.tipo_sesion ?? null } });
    });
  } catch (err) {
    if (isDomainError(err, VISIT_NOT_OFFERED)) return { kind: 'invalid', posted: { kind, values, errors: { cita_id: AGENDA_MSG.visitNotOffered } } };
    if (isDomainError(err, NO_ACTIVE_INGRESO)) return { kind: 'done', message: { level: 'error', text: EXAM_MSG.noActivo } };
    // The database found the date outside the cycle as it is now: the cycle changed under the form as well.
    if (isDomainError(err, CYCLE_CHANGED) || dateRuleRefused(err) !== null) return { kind: 'done', message: { level: 'error', text: EXAM_MSG.cycleChanged } };
    throw err;
  }
  return { kind: 'done', message: { level: 'success', text: citaId !== null ? EXAM_MSG.createdWithVisit(kind) : EXAM_MSG.created(kind) } };
}

export type VoidExamResult = { kind: 'not_found' } | { kind: 'done'; message: Message };

/** Voids a record of the patient's ACTIVO cycle with its motivo (archived cycles are read-only), audited as `exam.void`. */
export async function voidExam(ctx: ActionContext, input: { patientId: number; recordId: number; body: unknown }): Promise<VoidExamResult> {
  const { db, clock } = ctx;
  const { patientId, recordId } = input;
  const patient = await findPatientById(db, patientId);
  if (!patient || !(await findRecordOfPatient(db, patient.id, recordId))) return { kind: 'not_found' };

  const form = parseForm(input.body, voidSchema);
  if (!form.ok) return { kind: 'done', message: { level: 'error', text: EXAM_MSG.voidMotivo(form.errors.motivo_anulacion ?? form.errors._form ?? '') } };

  const now = clock.now();
  const user = actorOf(ctx);
  try {
    await inTransaction(db, async (trx) => {
      const active = await lockActiveIngreso(trx, patient.id, engineOf(ctx));
      const record = await findRecordOfPatient(trx, patient.id, recordId);
      if (!record) throw notFound(RECORD_NOT_FOUND);
      if (!active || record.ingreso_id !== active.id) throw conflict(RECORD_ARCHIVED);
      const motivo = form.data.motivo_anulacion;
      if (!(await voidExamRecord(trx, { id: recordId, by: user.id, at: now.toISOString(), motivo }))) throw conflict(RECORD_ALREADY_VOIDED);
      await recordAudit(trx, {
        at: now,
        actor: user,
        action: 'exam.void',
        entityType: 'exam_record',
        entityId: recordId,
        patientId: patient.id,
        changes: { anulado_at: [null, now.toISOString()], anulado_por: [null, user.id], motivo_anulacion: [null, motivo] },
        requestId: ctx.requestId,
      });
    });
  } catch (err) {
    if (isDomainError(err, RECORD_NOT_FOUND)) return { kind: 'not_found' };
    if (isDomainError(err, RECORD_ARCHIVED)) return { kind: 'done', message: { level: 'error', text: EXAM_MSG.voidArchived } };
    if (isDomainError(err, RECORD_ALREADY_VOIDED)) return { kind: 'done', message: { level: 'info', text: EXAM_MSG.alreadyVoided(recordId) } };
    throw err;
  }
  return { kind: 'done', message: { level: 'success', text: EXAM_MSG.voided(recordId) } };
}

/**
 * Reads an archived (or the current) cycle of a patient with its records, voided ones included, and records the
 * view in the trail (`exam.view_archive`). Null when the patient or the cycle is not found.
 */
export async function viewCycleArchive(ctx: ActionContext, input: { patientId: number; ingresoId: number | null }) {
  const { db, clock } = ctx;
  const patient = await findPatientById(db, input.patientId);
  if (!patient) return null;
  const ingreso = input.ingresoId === null ? undefined : await findIngresoOfPatient(db, patient.id, input.ingresoId);
  if (!ingreso) return null;
  const [records, cycles] = await Promise.all([listCycleRecords(db, ingreso.id, { includeVoided: true }), listPatientCycles(db, patient.id)]);
  await recordAuditAlone(db, {
    at: clock.now(),
    actor: ctx.actor,
    action: 'exam.view_archive',
    entityType: 'ingreso',
    entityId: ingreso.id,
    patientId: patient.id,
    changes: { estado: ingreso.estado, registros: records.length },
    requestId: ctx.requestId,
  });
  return { patient, ingreso, records, cycles };
}

/** Records a view of the patient's clinical view in the trail, through the queue of views (decision 0017). */
export function recordClinicalView(
  ctx: ActionContext,
  views: ViewAuditQueue,
  input: { patientId: number; ingresoId: number | null; registros: number },
): Promise<void> {
  return views.record({
    at: ctx.clock.now(),
    actor: ctx.actor,
    action: 'exam.view_clinical',
    entityType: 'patient',
    entityId: input.patientId,
    patientId: input.patientId,
    changes: { ingreso_id: input.ingresoId, registros: input.registros },
    requestId: ctx.requestId,
  });
}
