import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ENTIDADES_SALUD, choiceValues } from '../patients/patient.rules.js';
import { today } from '../web/deps.js';
import { queryValue } from '../web/form.js';
import { sendKeptPage } from '../platform/pages/cached-page.js';
import { actionContext } from '../web/action-context.js';
import { sendCsvExport } from '../web/csv-export.js';
import { exportCapita } from './dashboard.export.js';
import { dashboardPage } from './dashboard.pages.js';
import { novedadesRoutes } from './novedades.routes.js';
import { agendaCountsPage, countsInput, NO_FILTERS } from '../agenda/agenda.pages.js';
import { FragmentSlot } from '../web/render.js';
import { CAPITA_MESSAGES, parseCapitaMonth } from './dashboard.rules.js';
import { CapitaReport, type CapitaForm } from './views/dashboard.page.js';

/** Routes under /dashboard. */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;

  /** The dashboard, with the capitation form as sent (and its error) or empty. */
  async function sendDashboard(request: FastifyRequest, reply: FastifyReply, capitaForm: CapitaForm | null, status = 200) {
    const day = today(deps);
    // The agenda's worklist counts (issue 28), kept on their own tables and shared with the unfiltered worklists, in
    // the hole before the capitation form; both versions read in one statement.
    const both = await app.pages.getBoth(dashboardPage, { today: day }, agendaCountsPage, countsInput(NO_FILTERS, day));
    const page = both[0]!;
    const agenda = both[1]!;
    const { mes } = page.meta;
    const fill = (
      <>
        {agenda.fragments.map((f) => (
          <FragmentSlot fragment={f} />
        ))}
        <CapitaReport form={capitaForm} mes={mes} />
      </>
    );
    return sendKeptPage(request, reply, page, { fill: [fill], status });
  }

  app.get('/', async (request, reply) => sendDashboard(request, reply, null));

  // Issue 27: the month's enrolment report per insurer and its CSV (decision 0130).
  await novedadesRoutes(app);

  // decisions §8: the month's capitation list, streamed, one row per billable patient.
  app.get('/capita.csv', async (request, reply) => {
    const rawMes = queryValue(request.query, 'mes');
    const rawEntidad = (queryValue(request.query, 'entidad') ?? '').trim();
    const day = today(deps);
    const month = parseCapitaMonth(rawMes, day);
    const form = { mes: (rawMes ?? '').slice(0, 40), entidad: rawEntidad.slice(0, 40) };
    if (month.kind === 'missing') return sendDashboard(request, reply, { ...form, error: CAPITA_MESSAGES.missing }, 400);
    if (month.kind === 'invalid') return sendDashboard(request, reply, { ...form, error: CAPITA_MESSAGES.invalid(month.raw) }, 400);
    if (month.kind === 'future') return sendDashboard(request, reply, { ...form, error: CAPITA_MESSAGES.future(month.mes) }, 400);
    const entidades: readonly string[] = choiceValues(ENTIDADES_SALUD);
    if (rawEntidad !== '' && !entidades.includes(rawEntidad)) {
      return sendDashboard(request, reply, { ...form, error: CAPITA_MESSAGES.entidad }, 400);
    }
    return sendCsvExport(reply, exportCapita(actionContext(request), { month, entidad: rawEntidad === '' ? null : rawEntidad, timeZone: deps.config.timeZone }));
  });
}
