import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actionContext } from '../web/action-context.js';
import { sendCsvExport } from '../web/csv-export.js';
import { today } from '../web/deps.js';
import { queryValue } from '../web/form.js';
import { pageContext, sendPage } from '../web/render.js';
import { monthRangeOf } from './dashboard.rules.js';
import { exportNovedades } from './novedades.export.js';
import { readNovedadesReport } from './novedades.report.js';
import { parseNovedadesQuery, type NovedadesForm } from './novedades.rules.js';
import { NovedadesPage } from './views/novedades.page.js';

/** The month's enrolment report per insurer, under /dashboard (decision 0130): the page and its CSV. */
export async function novedadesRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;

  const parse = (request: FastifyRequest) =>
    parseNovedadesQuery(
      {
        mes: queryValue(request.query, 'mes'),
        entidad_salud: queryValue(request.query, 'entidad_salud'),
        page: queryValue(request.query, 'page'),
        page_novedades: queryValue(request.query, 'page_novedades'),
      },
      today(deps),
    );

  /** The form alone: empty (first visit, 200) or with its errors (400). */
  const sendForm = (request: FastifyRequest, reply: FastifyReply, form: NovedadesForm, errors: Record<string, string>, status: number) =>
    sendPage(reply, <NovedadesPage ctx={pageContext(request, reply)} form={form} errors={errors} maxMes={monthRangeOf(today(deps)).mes} report={null} />, status);

  app.get('/novedades/', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const day = today(deps);
    // The first visit, with nothing asked yet: the form, this month chosen.
    if (query.mes === undefined && query.entidad_salud === undefined) {
      return sendForm(request, reply, { mes: monthRangeOf(day).mes, entidad_salud: '' }, {}, 200);
    }
    const parsed = parse(request);
    if (!parsed.ok) return sendForm(request, reply, parsed.form, parsed.errors, 400);
    const report = await readNovedadesReport(deps.db, {
      month: parsed.month,
      entidad: parsed.entidad,
      page: parsed.page,
      pageNovedades: parsed.pageNovedades,
      today: day,
      timeZone: deps.config.timeZone,
    });
    return sendPage(reply, <NovedadesPage ctx={pageContext(request, reply)} form={parsed.form} errors={{}} maxMes={monthRangeOf(day).mes} report={report} />);
  });

  app.get('/novedades.csv', async (request, reply) => {
    const parsed = parse(request);
    if (!parsed.ok) return sendForm(request, reply, parsed.form, parsed.errors, 400);
    return sendCsvExport(reply, exportNovedades(actionContext(request), { month: parsed.month, entidad: parsed.entidad, timeZone: deps.config.timeZone }));
  });
}
