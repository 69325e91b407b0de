import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/audit.repository.js';
import { findActiveIngreso } from '../ingresos/ingreso.repository.js';
import { findPatientById } from '../patients/patient.repository.js';
import { labelOf } from '../patients/patient.rules.js';
import { parseListQuery } from '../patients/patient.schema.js';
import type { PatientRow } from '../patients/patient.table.js';
import { today } from '../web/deps.js';
import { parseForm, parseId } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
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
import { ArchivePage } from './views/archive.page.js';
import { KIND_PATHS, type PostedForm } from './views/forms.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { dateRuleRefused } from '../db/errors.js';
import { conflict, isDomainError, notFound } from '../shared/domain-error.js';
import { sendKeptPage } from '../platform/pages/cached-page.js';
import { clinicalPage, examListPage } from './exam.pages.js';

export const EXAM_MSG = {
  noActivo: 'El paciente no tiene un ingreso ACTIVO (pudo haber cambiado mientras llenaba el formulario): no se guardó el registro.',
  cycleChanged: 'El ciclo activo del paciente cambió mientras llenaba el formulario: no se guardó el registro. Revise la fecha y vuelva a intentarlo.',
  created: (kind: ExamKindValue) => `Registro de ${labelOf(EXAM_KINDS, kind).toLowerCase()} guardado en el ingreso activo.`,
  voided: (id: number) => `Registro n.º ${id} anulado. Ya no aparece en la vista clínica y se conserva en el historial del ingreso.`,
  alreadyVoided: (id: number) => `El registro n.º ${id} ya estaba anulado.`,
  voidArchived: 'Solo se pueden anular registros del ingreso activo: los ciclos archivados son de solo lectura.',
  voidMotivo: (error: string) => `No se anuló el registro: indique el motivo de la anulación. ${error}`,
} as const;

/** What the transactions below refuse (domain errors: shared/domain-error.ts), turned into answers by the routes. */
const NO_ACTIVE_INGRESO = 'exam.no_active_ingreso';
const RECORD_NOT_FOUND = 'exam.record_not_found';
const RECORD_ARCHIVED = 'exam.record_archived';
const RECORD_ALREADY_VOIDED = 'exam.record_already_voided';
const CYCLE_CHANGED = 'exam.cycle_changed';

type PatientParams = { Params: { patientId: string } };

/** Routes under /exams (decisions §7). */
export async function examRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock, config, engine } = app.deps;
  const actorOf = (request: FastifyRequest) => ({ id: request.user!.id, username: request.user!.username });
  const clinicalUrl = (patientId: number) => `/exams/${patientId}/`;

  /** The patient of the path, or null after answering 404. */
  const loadPatient = async (request: FastifyRequest, reply: FastifyReply, raw: string): Promise<PatientRow | null> => {
    const id = parseId(raw);
    const patient = id === null ? undefined : await findPatientById(db, id);
    if (!patient) {
      await reply.callNotFound();
      return null;
    }
    return patient;
  };

  const recordClinicalView = (request: FastifyRequest, patientId: number, ingresoId: number | null, registros: number) =>
    app.auditViews.record({
      at: clock.now(),
      actor: actorOf(request),
      action: 'exam.view_clinical',
      entityType: 'patient',
      entityId: patientId,
      patientId,
      changes: { ingreso_id: ingresoId, registros },
      requestId: String(request.id),
    });

  /** The clinical view (kept after a GET; with the posted form after a failed POST), and the view recorded. */
  const sendClinical = async (request: FastifyRequest, reply: FastifyReply, patientId: number, posted: PostedForm | null) => {
    const input = { patientId, today: today(app.deps), timeZone: config.timeZone, posted };
    const view = posted === null ? await app.pages.get(clinicalPage, input) : await app.pages.render(clinicalPage, input);
    if (!view) return reply.callNotFound();
    await recordClinicalView(request, patientId, view.meta.ingresoId, view.meta.registros);
    return sendKeptPage(request, reply, view);
  };

  app.get('/', async (request, reply) => {
    const { query, page } = parseListQuery(request.query);
    const kept = await app.pages.get(examListPage, { query, page, today: today(app.deps) });
    return sendKeptPage(request, reply, kept!);
  });

  app.get<PatientParams>('/:patientId/', async (request, reply) => {
    const id = parseId(request.params.patientId);
    if (id === null) return reply.callNotFound();
    return sendClinical(request, reply, id, null);
  });

  for (const { value: kind } of EXAM_KINDS) {
    app.post<PatientParams>(`/:patientId/${KIND_PATHS[kind]}/`, async (request, reply) => {
      const patient = await loadPatient(request, reply, request.params.patientId);
      if (!patient) return reply;
      // No ACTIVO Ingreso: nothing to attach the record to, and the view would have no form to show errors in.
      const cycle = await findActiveIngreso(db, patient.id);
      if (!cycle) return redirectWith(reply, clinicalUrl(patient.id), 'error', EXAM_MSG.noActivo);

      const form = parseForm(request.body, examSchema(kind, today(app.deps), cycle.fecha_inicio));
      if (!form.ok) return sendClinical(request, reply, patient.id, { kind, values: form.values, errors: form.errors });

      const now = clock.now();
      const user = actorOf(request);
      try {
        await inTransaction(db, async (trx) => {
          // Re-checked under a lock: a status change racing this post never leaves a record on a closed cycle.
          const active = await lockActiveIngreso(trx, patient.id, engine);
          if (!active) throw conflict(NO_ACTIVE_INGRESO);
          // A cycle that changed meanwhile (another opened, its start moved) is not the one the date was checked against.
          if (active.id !== cycle.id || form.data.fecha < active.fecha_inicio) throw conflict(CYCLE_CHANGED);
          const row: NewExamRecordRow = {
            ...form.data,
            ingreso_id: active.id,
            kind,
            registrado_por: user.id,
            created_at: now.toISOString(),
          };
          const id = await insertExamRecord(trx, row);
          const changes: Record<string, [null, unknown]> = {};
          for (const [k, v] of Object.entries(row)) if (v !== null && k !== 'created_at') changes[k] = [null, v];
          await recordAudit(trx, {
            at: now,
            actor: user,
            action: 'exam.create',
            entityType: 'exam_record',
            entityId: id,
            patientId: patient.id,
            changes,
            requestId: String(request.id),
          });
        });
      } catch (err) {
        if (isDomainError(err, NO_ACTIVE_INGRESO)) return redirectWith(reply, clinicalUrl(patient.id), 'error', EXAM_MSG.noActivo);
        // The database found the date outside the cycle as it is now: the cycle changed under the form as well.
        if (isDomainError(err, CYCLE_CHANGED) || dateRuleRefused(err) !== null) return redirectWith(reply, clinicalUrl(patient.id), 'error', EXAM_MSG.cycleChanged);
        throw err;
      }
      return redirectWith(reply, clinicalUrl(patient.id), 'success', EXAM_MSG.created(kind));
    });
  }

  app.post<{ Params: { patientId: string; recordId: string } }>('/:patientId/registro/:recordId/anular/', async (request, reply) => {
    const patient = await loadPatient(request, reply, request.params.patientId);
    if (!patient) return reply;
    const recordId = parseId(request.params.recordId);
    if (recordId === null || !(await findRecordOfPatient(db, patient.id, recordId))) return reply.callNotFound();

    const form = parseForm(request.body, voidSchema);
    if (!form.ok) return redirectWith(reply, clinicalUrl(patient.id), 'error', EXAM_MSG.voidMotivo(form.errors.motivo_anulacion ?? form.errors._form ?? ''));

    const now = clock.now();
    const user = actorOf(request);
    try {
      await inTransaction(db, async (trx) => {
        const active = await lockActiveIngreso(trx, patient.id, engine);
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
          requestId: String(request.id),
        });
      });
    } catch (err) {
      if (isDomainError(err, RECORD_NOT_FOUND)) return reply.callNotFound();
      if (isDomainError(err, RECORD_ARCHIVED)) return redirectWith(reply, clinicalUrl(patient.id), 'error', EXAM_MSG.voidArchived);
      if (isDomainError(err, RECORD_ALREADY_VOIDED)) return redirectWith(reply, clinicalUrl(patient.id), 'info', EXAM_MSG.alreadyVoided(recordId));
      throw err;
    }
    return redirectWith(reply, clinicalUrl(patient.id), 'success', EXAM_MSG.voided(recordId));
  });

  app.get<{ Params: { patientId: string; ingresoId: string } }>('/:patientId/ingreso/:ingresoId/', async (request, reply) => {
    const patient = await loadPatient(request, reply, request.params.patientId);
    if (!patient) return reply;
    const ingresoId = parseId(request.params.ingresoId);
    const ingreso = ingresoId === null ? undefined : await findIngresoOfPatient(db, patient.id, ingresoId);
    if (!ingreso) return reply.callNotFound();
    const [records, cycles] = await Promise.all([listCycleRecords(db, ingreso.id, { includeVoided: true }), listPatientCycles(db, patient.id)]);
    await recordAudit(db, {
      at: clock.now(),
      actor: actorOf(request),
      action: 'exam.view_archive',
      entityType: 'ingreso',
      entityId: ingreso.id,
      patientId: patient.id,
      changes: { estado: ingreso.estado, registros: records.length },
      requestId: String(request.id),
    });
    return sendPage(
      reply,
      <ArchivePage
        ctx={pageContext(request, reply)}
        patient={patient}
        ingreso={ingreso}
        records={records}
        cycles={cycles}
        today={today(app.deps)}
        timeZone={config.timeZone}
      />,
    );
  });
}
