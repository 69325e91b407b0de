import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PatientHistoryCache } from '../audit/audit.history-cache.js';
import { historyWithViews, patientHistoryFragment } from '../audit/views/patient-history.js';
import { sendKeptPage } from '../platform/pages/cached-page.js';
import { actionContext } from '../web/action-context.js';
import { today } from '../web/deps.js';
import type { FieldErrors, FormValues } from '../web/fields.js';
import { parseId, queryValue } from '../web/form.js';
import { FragmentSlot, pageContext, redirectWith, sendPage } from '../web/render.js';
import { DEFAULT_DEPARTAMENTO } from './divipola.js';
import type { PersonCandidate } from './identity.repository.js';
import { createPatient, recordPatientView, updatePatientRecord } from './patient.actions.js';
import { patientListPage, patientRecordPage } from './patient.pages.js';
import { parseCreatePatientForm, parseListQuery, parsePatientForm } from './patient.schema.js';
import { CreatePatientPage } from './views/create.page.js';

/** Audit entries shown on the patient page (the full trail is at /users/audit/). */
const HISTORY_LIMIT = 20;
/**
 * Bytes of rendered histories kept (a patient's 20 latest entries are 2 to 15 KB, mostly views at ~330 bytes):
 * about fifteen hundred patients, those seen most recently.
 */
const HISTORY_CACHE_BYTES = 12 * 1024 * 1024;

/** Routes under /patients: the list, the creation form, and each patient's record (the follow page: ingresos/). */
export async function patientRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;
  const { db } = deps;

  app.get('/', async (request, reply) => {
    const page = await app.pages.get(patientListPage, { filters: parseListQuery(request.query), today: today(deps) });
    return sendKeptPage(request, reply, page!);
  });

  // ------------------------------------------------------------------------------------------------ create

  const renderCreate = (
    request: FastifyRequest,
    reply: FastifyReply,
    values: FormValues,
    errors: FieldErrors,
    similar: readonly PersonCandidate[] = [],
    documentoHolder: { id: number; name: string } | null = null,
  ) => sendPage(reply, <CreatePatientPage ctx={pageContext(request, reply)} values={values} errors={errors} similar={similar} documentoHolder={documentoHolder} />);

  app.get('/create/', async (request, reply) =>
    renderCreate(request, reply, { departamento: DEFAULT_DEPARTAMENTO, diagnostico_clinico: 'G47.3' }, {}),
  );

  app.post('/create/', async (request, reply) => {
    const { form, otherPerson } = parseCreatePatientForm(request.body, today(deps));
    if (!form.ok) return renderCreate(request, reply, form.values, form.errors);
    const result = await createPatient(actionContext(request), { patient: form.patient, fechaInicioPrograma: form.fechaInicioPrograma, otherPerson });
    if (result.ok) return redirectWith(reply, '/patients/', 'success', result.message);
    return 'errors' in result ? renderCreate(request, reply, form.values, result.errors, result.similar, result.documentoHolder) : reply.callNotFound();
  });

  // ------------------------------------------------------------------------------------------------ detail

  // The changes only: the views are shown, per request, with the "Incluir consultas" filter (decision 0036).
  const histories = new PatientHistoryCache(deps.config.timeZone, HISTORY_CACHE_BYTES, 'changes');
  app.keptMemory.add('patient history', () => histories.bytes);

  /**
   * The patient's page: the record (kept after a GET; with a posted form's values and errors after a failed POST,
   * through the same render) and its history.
   */
  const renderDetail = async (
    request: FastifyRequest,
    reply: FastifyReply,
    patientId: number,
    form: { values: FormValues; errors: FieldErrors; documentoHolder?: { id: number; name: string } | null } | null,
  ) => {
    const input = { patientId, today: today(deps), form };
    // The patient's counter read for the record serves its history too (decision 0370).
    const { kept: record, patientVersion } =
      form === null ? await app.pages.getOfPatient(patientRecordPage, input) : { kept: await app.pages.render(patientRecordPage, input), patientVersion: null };
    if (!record) return reply.callNotFound();
    // Queued before the history is read, so the page's own history shows this view (decision 0011).
    await recordPatientView(actionContext(request), app.auditViews, patientId);
    const includeViews = form === null && queryValue(request.query, 'consultas') === '1';
    // With kept pages off (the differential tests), the history is read whole on every visit too.
    const historyCache = app.pages.enabled ? histories : new PatientHistoryCache(deps.config.timeZone, HISTORY_CACHE_BYTES, 'changes');
    const history = includeViews
      ? await historyWithViews(db, patientId, HISTORY_LIMIT, app.auditViews.pendingForPatient(patientId), deps.config.timeZone)
      : await historyCache.rows(db, patientId, HISTORY_LIMIT, [], patientVersion);
    return sendKeptPage(request, reply, record, {
      after: <FragmentSlot fragment={patientHistoryFragment({ count: history.count, rows: history.rows, limit: HISTORY_LIMIT, patientId, includeViews })} />,
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
    const form = parsePatientForm(request.body, today(deps));
    // A patient that does not exist answers 404 through the page's own render, valid form or not.
    if (!form.ok) return renderDetail(request, reply, id, form);
    const result = await updatePatientRecord(actionContext(request), id, { patient: form.patient, fechaInicioPrograma: form.fechaInicioPrograma });
    if (result.ok) return redirectWith(reply, `/patients/${id}/`, 'success', result.message);
    return 'errors' in result ? renderDetail(request, reply, id, { values: form.values, errors: result.errors, documentoHolder: result.documentoHolder }) : reply.callNotFound();
  });
}
