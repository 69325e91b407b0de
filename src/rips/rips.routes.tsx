import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { contentDisposition } from '../shared/csv.js';
import { actionContext } from '../web/action-context.js';
import { today } from '../web/deps.js';
import { pageContext, sendPage } from '../web/render.js';
import { generateRips, reviewRipsMonth } from './rips.actions.js';
import { RIPS_MSG } from './rips.rules.js';
import { parseRipsQuery, type RipsQuery } from './rips.schema.js';
import { RipsPage } from './views/rips.page.js';

/**
 * /dashboard/rips/ and /dashboard/rips.json: every logged-in user, like the dashboard and its capitation export
 * (the staff who bill). Not a kept page: it is read per request (the month's review is a full pass anyway).
 */
export async function ripsRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.deps;

  const renderPage = async (request: FastifyRequest, reply: FastifyReply, q: RipsQuery, extraErrors: Record<string, string> = {}, status = 200) => {
    const review = q.mes !== null && q.entidad !== null && q.period !== null ? { mes: q.mes, entidad: q.entidad, data: await reviewRipsMonth(db, { entidad: q.entidad, period: q.period }) } : null;
    const errors = { ...q.errors, ...extraErrors };
    return sendPage(reply, <RipsPage ctx={pageContext(request, reply)} values={q.values} errors={errors} review={review} />, status);
  };

  app.get('/rips/', async (request, reply) => {
    const q = parseRipsQuery(request.query, today(app.deps), false);
    const nothingAsked = q.values.mes === '' && q.values.entidad_salud === '';
    if (nothingAsked) return renderPage(request, reply, { ...q, errors: {} });
    const queryBad = q.errors.mes !== undefined || q.errors.entidad_salud !== undefined || q.errors.factura !== undefined || q.errors.operacion !== undefined;
    return renderPage(request, reply, q, {}, queryBad ? 400 : 200);
  });

  app.get('/rips.json', async (request, reply) => {
    const q = parseRipsQuery(request.query, today(app.deps), true);
    if (Object.keys(q.errors).length > 0 || q.mes === null || q.entidad === null || q.period === null || q.operacion === null) return renderPage(request, reply, q, {}, 400);
    const result = await generateRips(actionContext(request), { mes: q.mes, entidad: q.entidad, period: q.period, operacion: q.operacion, factura: q.factura });
    if (!result.ok) {
      const text = result.problems > 0 ? RIPS_MSG.problems(result.problems) : 'No hay servicios de esta entidad en el mes: no hay RIPS que generar.';
      return renderPage(request, reply, q, { _form: text }, 400);
    }
    return reply
      .code(200)
      .type('application/json; charset=utf-8')
      .header('Content-Disposition', contentDisposition(result.download.fileName))
      .send(Readable.from(result.download.chunks, { objectMode: false }));
  });
}
