import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actionContext } from '../web/action-context.js';
import { today } from '../web/deps.js';
import { sendErrorPage } from '../web/errors.js';
import type { FieldErrors, FormValues } from '../web/fields.js';
import { listUrl, parseForm, parseId, queryValue } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import { parseSearchQuery } from '../patients/patient.search.schema.js';
import { sendKeptPage } from '../platform/pages/cached-page.js';
import { sendCsvExport } from '../web/csv-export.js';
import { exportFollowList } from './follow.export.js';
import { followPage } from './follow.pages.js';
import { changeIngresoStatus, openNewCycle } from './ingreso.actions.js';
import { findCycleDateBounds, findIngresoForChange } from './ingreso.repository.js';
import { isEstado, MSG } from './ingreso.rules.js';
import { newCycleForm, statusForm } from './ingreso.schema.js';
import { FOLLOW_PATH } from './views/follow.links.js';
import { TerminatePage, type TerminateCycle } from './views/terminate.page.js';

/** /patients/follow, keeping the search and page the form came from (when they were sent and well-formed). */
function backTo(values: FormValues, errors: FieldErrors): string {
  const page = errors.page ? null : parseId((values.page ?? '').trim());
  return listUrl(FOLLOW_PATH, {
    query_search: errors.query_search ? '' : (values.query_search ?? '').trim(),
    page: page !== null && page > 1 ? page : null,
  });
}

/** Routes under /patients: the follow page, its export and the Ingreso lifecycle endpoints (decisions §5 and §6), which answer with it. */
export async function ingresoRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.deps;

  // GET /patients/follow (and /patients/follow/: the router ignores the trailing slash).
  app.get('/follow', async (request, reply) => {
    const { query, page } = parseSearchQuery(request.query);
    const kept = await app.pages.get(followPage, { query, page, today: today(app.deps), timeZone: app.deps.config.timeZone });
    return sendKeptPage(request, reply, kept!);
  });

  // The follow page only reads; without this, POST would reach the patient update route (/patients/:id/).
  app.post('/follow', async (request, reply) => {
    reply.header('Allow', 'GET, HEAD');
    return sendErrorPage(request, reply, 405);
  });

  app.get('/follow.csv', async (request, reply) => {
    const { query } = parseSearchQuery(request.query);
    return sendCsvExport(reply, exportFollowList(actionContext(request), { query }));
  });

  const sendTerminatePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    found: Omit<TerminateCycle, 'earliestEnd'>,
    values: FormValues,
    errors: FieldErrors,
  ) => {
    // The hint names the earliest date the cycle can end on (decision 0063), as the check does.
    const { lastChange, lastExam } = await findCycleDateBounds(db, found.id);
    const earliestEnd = [found.fecha_inicio, lastChange ?? '', lastExam ?? ''].reduce((a, b) => (b > a ? b : a));
    const cycle: TerminateCycle = { ...found, earliestEnd };
    const query = (values.query_search ?? '').trim();
    const page = parseId((values.page ?? '').trim()) ?? 1;
    const back = { url: backTo(values, {}), query, page };
    return sendPage(
      reply,
      <TerminatePage ctx={pageContext(request, reply)} cycle={cycle} values={values} errors={errors} back={back} today={today(app.deps)} />,
    );
  };

  // The question before terminating, on a page of our own (no window.confirm; it works without JavaScript).
  app.get('/ingreso/terminar/:entryId/', async (request, reply) => {
    const ingresoId = parseId((request.params as { entryId: string }).entryId);
    if (ingresoId === null) return sendErrorPage(request, reply, 404);
    const found = await findIngresoForChange(db, ingresoId);
    if (!found) return sendErrorPage(request, reply, 404);
    const values = { query_search: queryValue(request.query, 'query_search') ?? '', page: queryValue(request.query, 'page') ?? '' };
    if (found.estado === 'TERMINADO') return redirectWith(reply, backTo(values, {}), 'info', MSG.finished);
    return sendTerminatePage(request, reply, found, values, {});
  });

  app.post('/ingreso/estado/:entryId/:newStatus/', async (request, reply) => {
    const params = request.params as { entryId: string; newStatus: string };
    const ingresoId = parseId(params.entryId);
    const target = params.newStatus;
    // Unknown or non-numeric id, or a status word not in the table: 404 page.
    if (ingresoId === null || !isEstado(target)) return sendErrorPage(request, reply, 404);
    // Read as posted here; checked against the cycle as it is in the transaction (decideStatusChange).
    const form = parseForm(request.body, statusForm);
    const posted = { values: form.values, errors: form.ok ? {} : form.errors };
    const result = await changeIngresoStatus(actionContext(request), { ingresoId, target, form: posted });
    if (result.kind === 'not_found') return sendErrorPage(request, reply, 404);
    if (result.fieldErrors) return sendTerminatePage(request, reply, result.cycle, posted.values, result.fieldErrors);
    return redirectWith(reply, backTo(posted.values, posted.errors), result.message.level, result.message.text);
  });

  app.post('/ingreso/nuevo/:patientId/', async (request, reply) => {
    const pacienteId = parseId((request.params as { patientId: string }).patientId);
    if (pacienteId === null) return sendErrorPage(request, reply, 404);
    const form = parseForm(request.body, newCycleForm);
    const posted = { values: form.values, errors: form.ok ? {} : form.errors };
    const result = await openNewCycle(actionContext(request), { pacienteId, form: posted });
    if (result.kind === 'not_found') return sendErrorPage(request, reply, 404);
    // A refused date comes back beside the field of this patient's form, as it was typed (issue 29, point 8); the
    // answer stays the redirect with its message that the contract names.
    if (result.fieldError !== undefined) {
      reply.flashForm({ action: request.url.split('?')[0]!, fields: [['fecha_inicio', posted.values.fecha_inicio ?? '']], errors: { fecha_inicio: result.fieldError } });
    }
    return redirectWith(reply, backTo(posted.values, posted.errors), result.message.level, result.message.text);
  });
}
