import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { mesCapita } from '../ingresos/ingreso.rules.js';
import { ENTIDADES_SALUD, choiceValues } from '../patients/patient.rules.js';
import { csvDecimal } from '../shared/csv.js';
import { startOfDayUtc } from '../shared/dates.js';
import { today } from '../web/deps.js';
import { queryValue } from '../web/form.js';
import { sendKeptPage } from '../platform/pages/cached-page.js';
import { EXPORT_PAGE_SIZE, sendCsvExport } from './csv-export.js';
import { dashboardPage } from './dashboard.pages.js';
import { capitaPages, type CapitaQuery } from './dashboard.repository.js';
import { CAPITA_MESSAGES, capitaReferenceDate, parseCapitaMonth } from './dashboard.rules.js';
import { CapitaReportForm, type CapitaForm } from './views/dashboard.page.js';

export const CAPITA_HEADER = ['documento', 'tipo_documento', 'nombre', 'apellido', 'entidad_salud', 'programa', 'mes_capita', 'valor_capita'] as const;

/** Routes under /dashboard. */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;

  /** The dashboard, with the capitation form as sent (and its error) or empty. */
  async function sendDashboard(request: FastifyRequest, reply: FastifyReply, capitaForm: CapitaForm | null, status = 200) {
    const page = (await app.pages.get(dashboardPage, { today: today(deps) }))!;
    const { mes } = page.meta;
    return sendKeptPage(request, reply, page, { fill: [<CapitaReportForm form={capitaForm ?? { mes, entidad: '' }} mes={mes} />], status });
  }

  app.get('/', async (request, reply) => sendDashboard(request, reply, null));

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
    const entidad = rawEntidad === '' ? null : rawEntidad;
    const tz = deps.config.timeZone;
    const q: CapitaQuery = {
      kind: month.kind,
      start: month.start,
      end: month.end,
      startInstant: startOfDayUtc(month.start, tz),
      endInstant: startOfDayUtc(month.end, tz),
      entidad,
    };
    const reference = capitaReferenceDate(month, day);
    async function* pages() {
      for await (const page of capitaPages(deps.db, q, EXPORT_PAGE_SIZE)) {
        yield page.map((r) => [r.documento, r.tipo_documento, r.nombre, r.apellido, r.entidad_salud, r.programa, mesCapita(r.fecha_inicio, reference), csvDecimal(r.valor_capita)]);
      }
    }
    return sendCsvExport(request, reply, {
      name: 'capita',
      fileName: `capita-${month.mes}${entidad ? `-${entidad}` : ''}.csv`,
      filters: { mes: month.mes, entidad },
      header: CAPITA_HEADER,
      pages: pages(),
    });
  });
}
