import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseListQuery } from '../patients/patient.schema.js';
import { actionContext } from '../web/action-context.js';
import { today } from '../web/deps.js';
import { parseId } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import { addExamRecord, recordClinicalView, viewCycleArchive, voidExam } from './exam.actions.js';
import { EXAM_KINDS } from './exam.rules.js';
import { ArchivePage } from './views/archive.page.js';
import { KIND_PATHS, type PostedForm } from './views/forms.js';
import { sendKeptPage } from '../platform/pages/cached-page.js';
import { clinicalPage, examListPage } from './exam.pages.js';

type PatientParams = { Params: { patientId: string } };

/** Routes under /exams (decisions §7). */
export async function examRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.deps;
  const clinicalUrl = (patientId: number) => `/exams/${patientId}/`;

  /** The clinical view (kept after a GET; with the posted form after a failed POST), and the view recorded. */
  const sendClinical = async (request: FastifyRequest, reply: FastifyReply, patientId: number, posted: PostedForm | null) => {
    const input = { patientId, today: today(app.deps), timeZone: config.timeZone, posted };
    const view = posted === null ? await app.pages.get(clinicalPage, input) : await app.pages.render(clinicalPage, input);
    if (!view) return reply.callNotFound();
    await recordClinicalView(actionContext(request), app.auditViews, { patientId, ingresoId: view.meta.ingresoId, registros: view.meta.registros });
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
      const patientId = parseId(request.params.patientId);
      if (patientId === null) return reply.callNotFound();
      const result = await addExamRecord(actionContext(request), { patientId, kind, body: request.body });
      if (result.kind === 'not_found') return reply.callNotFound();
      if (result.kind === 'invalid') return sendClinical(request, reply, patientId, result.posted);
      return redirectWith(reply, clinicalUrl(patientId), result.message.level, result.message.text);
    });
  }

  app.post<{ Params: { patientId: string; recordId: string } }>('/:patientId/registro/:recordId/anular/', async (request, reply) => {
    const patientId = parseId(request.params.patientId);
    const recordId = parseId(request.params.recordId);
    if (patientId === null || recordId === null) return reply.callNotFound();
    const result = await voidExam(actionContext(request), { patientId, recordId, body: request.body });
    if (result.kind === 'not_found') return reply.callNotFound();
    return redirectWith(reply, clinicalUrl(patientId), result.message.level, result.message.text);
  });

  app.get<{ Params: { patientId: string; ingresoId: string } }>('/:patientId/ingreso/:ingresoId/', async (request, reply) => {
    const patientId = parseId(request.params.patientId);
    if (patientId === null) return reply.callNotFound();
    const archive = await viewCycleArchive(actionContext(request), { patientId, ingresoId: parseId(request.params.ingresoId) });
    if (!archive) return reply.callNotFound();
    return sendPage(
      reply,
      <ArchivePage
        ctx={pageContext(request, reply)}
        patient={archive.patient}
        ingreso={archive.ingreso}
        records={archive.records}
        cycles={archive.cycles}
        today={today(app.deps)}
        timeZone={config.timeZone}
      />,
    );
  });
}
