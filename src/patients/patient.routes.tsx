import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/audit.repository.js';
import { PatientHistoryCache } from '../audit/audit.history-cache.js';
import { diffFields } from '../audit/audit.rules.js';
import { findActiveIngreso, findCycleDateBounds, findEarliestCycleStart, findLatestFechaFin } from '../ingresos/ingreso.repository.js';
import { birthAfterCyclesProblem, DATE_RULE_FALLBACK, movedStartProblem } from '../ingresos/cycle-dates.rules.js';
import { dateRuleRefused } from '../db/errors.js';
import type { Trx } from '../db/database.js';
import type { PatientRow } from './patient.table.js';
import { MSG as INGRESO_MSG, startsBeforeLastEnd } from '../ingresos/ingreso.rules.js';
import { formatDateEs } from '../shared/dates.js';
import { today } from '../web/deps.js';
import type { FieldErrors, FormValues } from '../web/fields.js';
import { parseId, queryValue } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import { createPatientWithCycle, pickAudited } from './patient.create.js';
import { findPeopleBornOn, isDocumentoKeyTaken, type PersonCandidate } from './identity.repository.js';
import { DOCUMENTO_TAKEN, findPatientById, setActiveIngresoFechaInicio, updatePatient } from './patient.repository.js';
import { documentoKey, keptDocumentoKey, patientDerivedColumns, similarPeople } from './patient.rules.js';
import { FORM_MSG, parseCreatePatientForm, parseListQuery, parsePatientForm } from './patient.schema.js';
import { CreatePatientPage } from './views/create.page.js';
import { historyWithViews, PatientHistory } from '../audit/views/patient-history.js';
import { followPage } from './follow.pages.js';
import { patientListPage, patientRecordPage } from './patient.pages.js';
import { sendErrorPage } from '../web/errors.js';
import { DEFAULT_DEPARTAMENTO } from './divipola.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { conflict, isDomainError, notFound } from '../shared/domain-error.js';
import { sendKeptPage } from '../platform/pages/cached-page.js';

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
async function datesProblems(trx: Trx, current: PatientRow, fechaNacimiento: string, fechaInicio: string | null): Promise<FieldErrors> {
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

/** Audit entries shown on the patient page (the full trail is at /users/audit/). */
const HISTORY_LIMIT = 20;
/**
 * Bytes of rendered histories kept (a patient's 20 latest entries are 2 to 15 KB, mostly views at ~330 bytes):
 * about fifteen hundred patients, those seen most recently.
 */
const HISTORY_CACHE_BYTES = 12 * 1024 * 1024;

/** Routes under /patients: the list, the follow page, the creation form, and each patient's record. */
export async function patientRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;
  const { db, clock } = deps;
  const actorOf = (request: FastifyRequest) => (request.user ? { id: request.user.id, username: request.user.username } : null);

  app.get('/', async (request, reply) => {
    const page = await app.pages.get(patientListPage, { filters: parseListQuery(request.query), today: today(deps) });
    return sendKeptPage(request, reply, page!);
  });

  // GET /patients/follow (and /patients/follow/: the router ignores the trailing slash).
  app.get('/follow', async (request, reply) => {
    const { query, page } = parseListQuery(request.query);
    const kept = await app.pages.get(followPage, { query, page, today: today(deps), timeZone: deps.config.timeZone });
    return sendKeptPage(request, reply, kept!);
  });

  // The follow page only reads; without this, POST would reach the patient update route (/patients/:id/).
  app.post('/follow', async (request, reply) => {
    reply.header('Allow', 'GET, HEAD');
    return sendErrorPage(request, reply, 405);
  });

  // ------------------------------------------------------------------------------------------------ create

  const renderCreate = (request: FastifyRequest, reply: FastifyReply, values: FormValues, errors: FieldErrors, similar: readonly PersonCandidate[] = []) =>
    sendPage(reply, <CreatePatientPage ctx={pageContext(request, reply)} values={values} errors={errors} similar={similar} />);

  app.get('/create/', async (request, reply) =>
    renderCreate(request, reply, { departamento: DEFAULT_DEPARTAMENTO, diagnostico_clinico: 'G47.3' }, {}),
  );

  app.post('/create/', async (request, reply) => {
    const { form, otherPerson } = parseCreatePatientForm(request.body, today(deps));
    if (!form.ok) return renderCreate(request, reply, form.values, form.errors);
    const input = form.patient;
    if (await isDocumentoKeyTaken(db, documentoKey(input.documento))) {
      return renderCreate(request, reply, form.values, { documento: FORM_MSG.documentoTaken });
    }
    // Someone with the same birth date and a similar name: created only once "es otra persona" is confirmed (decision 0043).
    const similar = similarPeople(input, await findPeopleBornOn(db, [input.fecha_nacimiento]));
    if (similar.length > 0 && !otherPerson) return renderCreate(request, reply, form.values, {}, similar);
    const at = clock.now();
    const fechaInicio = form.fechaInicioPrograma ?? today(deps);
    let id: number;
    try {
      id = await inTransaction(db, async (trx) => {
        const created = await createPatientWithCycle(trx, {
          patient: input,
          fechaInicio,
          estado: 'ACTIVO',
          actor: actorOf(request),
          at,
          requestId: String(request.id),
          auditDetails: similar.length > 0 ? { otra_persona_confirmada: [null, similar.map((p) => p.id)] } : {},
        });
        return created.patientId;
      });
    } catch (err) {
      // Another request took the documento between the check and the insert: the unique index refused it.
      if (isDomainError(err, DOCUMENTO_TAKEN)) return renderCreate(request, reply, form.values, { documento: FORM_MSG.documentoTaken });
      throw err;
    }
    return redirectWith(
      reply,
      '/patients/',
      'success',
      `Paciente ${input.nombre} ${input.apellido} registrado (ficha n.º ${id}). Ciclo ACTIVO desde el ${formatDateEs(fechaInicio)}.`,
    );
  });

  // ------------------------------------------------------------------------------------------------ detail

  // The changes only: the views are shown, per request, with the "Incluir consultas" filter (decision 0036).
  const histories = new PatientHistoryCache(deps.config.timeZone, HISTORY_CACHE_BYTES, 'changes');

  /**
   * The patient's page: the record (kept after a GET; with a posted form's values and errors after a failed POST,
   * through the same render) and its history.
   */
  const renderDetail = async (
    request: FastifyRequest,
    reply: FastifyReply,
    patientId: number,
    form: { values: FormValues; errors: FieldErrors } | null,
  ) => {
    const input = { patientId, today: today(deps), form };
    const record = form === null ? await app.pages.get(patientRecordPage, input) : await app.pages.render(patientRecordPage, input);
    if (!record) return reply.callNotFound();
    // Queued before the history is read, so the page's own history shows this view (decision 0011).
    await app.auditViews.record({
      at: clock.now(),
      actor: actorOf(request),
      action: 'patient.view',
      entityType: 'patient',
      entityId: patientId,
      patientId,
      requestId: String(request.id),
    });
    const includeViews = form === null && queryValue(request.query, 'consultas') === '1';
    // With kept pages off (the differential tests), the history is read whole on every visit too.
    const historyCache = app.pages.enabled ? histories : new PatientHistoryCache(deps.config.timeZone, HISTORY_CACHE_BYTES, 'changes');
    const history = includeViews
      ? await historyWithViews(db, patientId, HISTORY_LIMIT, app.auditViews.pendingForPatient(patientId), deps.config.timeZone)
      : await historyCache.rows(db, patientId, HISTORY_LIMIT, []);
    return sendKeptPage(request, reply, record, {
      after: <PatientHistory count={history.count} rows={history.rows} limit={HISTORY_LIMIT} patientId={patientId} includeViews={includeViews} />,
    });
  };

  app.get('/:id/', async (request, reply) => {
    const id = parseId((request.params as { id?: string }).id);
    if (id === null) return reply.callNotFound();
    return renderDetail(request, reply, id, null);
  });

  app.post('/:id/', async (request, reply) => {
    const id = parseId((request.params as { id?: string }).id);
    if (id === null) return reply.callNotFound();
    const before = await findPatientById(db, id);
    if (!before) return reply.callNotFound();
    const form = parsePatientForm(request.body, today(deps));
    if (!form.ok) return renderDetail(request, reply, id, form);
    const input = form.patient;
    const key = keptDocumentoKey(before, documentoKey(input.documento));
    if (key === documentoKey(input.documento) && (await isDocumentoKeyTaken(db, key, id))) {
      return renderDetail(request, reply, id, { values: form.values, errors: { documento: FORM_MSG.documentoTaken } });
    }
    const at = clock.now();
    const now = at.toISOString();
    try {
      await retriedOnDateRule(() => inTransaction(db, async (trx) => {
        const current = await findPatientById(trx, id);
        if (!current) throw notFound(PATIENT_GONE);
        const dateErrors = await datesProblems(trx, current, input.fecha_nacimiento, form.fechaInicioPrograma);
        if (Object.keys(dateErrors).length > 0) throw conflict(DATES_REFUSED, { errors: dateErrors });
        // The start moves first, unless it moves below the stored birth date: no write passes through a state
        // that breaks a date rule the database holds (birth ≤ every start).
        const birthFirst = form.fechaInicioPrograma !== null && form.fechaInicioPrograma < current.fecha_nacimiento;
        const update = () => updatePatient(trx, id, { ...input, ...patientDerivedColumns(input), documento_key: key, updated_at: now });
        if (birthFirst || form.fechaInicioPrograma === null) await update();
        const changes: Record<string, unknown> = diffFields(pickAudited(current), pickAudited(input));
        if (form.fechaInicioPrograma !== null) {
          const moved = await setActiveIngresoFechaInicio(trx, id, form.fechaInicioPrograma, now);
          if (!birthFirst) await update();
          if (moved && moved.before !== form.fechaInicioPrograma) {
            changes.fecha_inicio_programa = [moved.before, form.fechaInicioPrograma];
            await recordAudit(trx, {
              at,
              actor: actorOf(request),
              action: 'ingreso.update',
              entityType: 'ingreso',
              entityId: moved.id,
              patientId: id,
              changes: { fecha_inicio: [moved.before, form.fechaInicioPrograma] },
              requestId: String(request.id),
            });
          }
        }
        await recordAudit(trx, {
          at,
          actor: actorOf(request),
          action: 'patient.update',
          entityType: 'patient',
          entityId: id,
          patientId: id,
          changes,
          requestId: String(request.id),
        });
      }));
    } catch (err) {
      if (isDomainError(err, DOCUMENTO_TAKEN)) {
        return renderDetail(request, reply, id, { values: form.values, errors: { documento: FORM_MSG.documentoTaken } });
      }
      if (isDomainError(err, PATIENT_GONE)) return reply.callNotFound();
      if (isDomainError<{ errors: FieldErrors }>(err, DATES_REFUSED)) return renderDetail(request, reply, id, { values: form.values, errors: err.details.errors });
      const rule = dateRuleRefused(err);
      if (rule !== null) {
        const field = rule === 'birth_after_start' ? 'fecha_nacimiento' : 'fecha_inicio_programa';
        return renderDetail(request, reply, id, { values: form.values, errors: { [field]: DATE_RULE_FALLBACK[rule] } });
      }
      throw err;
    }
    return redirectWith(reply, `/patients/${id}/`, 'success', `Datos de ${input.nombre} ${input.apellido} guardados.`);
  });
}
