import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { mesCapita, mesFiltroRange, MES_CAPITA_MAX } from '../ingresos/ingreso.rules.js';
import { ENTIDADES_SALUD, choiceValues } from '../patients/patient.rules.js';
import { csvDecimal } from '../shared/csv.js';
import { today, type AppDeps } from '../web/deps.js';
import { queryValue } from '../web/form.js';
import { pageContext, sendPage } from '../web/render.js';
import { EXPORT_PAGE_SIZE, sendCsvExport } from './csv-export.js';
import { readDataVersion } from '../db/data-version.js';
import { LatestValueCache } from './dashboard.cache.js';
import { capitaPages, countCyclesInMonth, countOpenGroups, listIngresosAtLimit, type CapitaQuery } from './dashboard.repository.js';
import { CAPITA_MESSAGES, capitaReferenceDate, monthRangeOf, parseCapitaMonth, startOfDayUtc, summarizeOpenGroups } from './dashboard.rules.js';
import { listStaleMonitoring } from './monitoring.repository.js';
import { DashboardPage, renderDashboardHtml, type CapitaForm, type DashboardData, type DashboardHtml } from './views/dashboard.page.js';

/** How many rows the dashboard's lists show (their totals are always shown). */
const LIST_LIMIT = 50;

export const CAPITA_HEADER = ['documento', 'tipo_documento', 'nombre', 'apellido', 'entidad_salud', 'programa', 'mes_capita', 'valor_capita'] as const;

/** The figures and the part of the page drawn from them alone. */
type DashboardFigures = { data: DashboardData; html: DashboardHtml };

/**
 * Every figure of the dashboard for today, and the HTML drawn from them, computed once per (today, data version) and shared by every request
 * until a change of patients, ingresos or monitoring records (in any process) bumps the version
 * (docs/decisions/0012-dashboard-cache-and-data-version.md). The version is read before the figures, so the
 * figures are never older than the version they are kept under. The statements run one after another: a request
 * holds at most one connection of the pool.
 */
async function loadFigures(deps: AppDeps, cache: LatestValueCache<DashboardFigures>): Promise<DashboardFigures> {
  const { db } = deps;
  const day = today(deps);
  const version = await readDataVersion(db);
  return cache.get(`${day} ${version}`, async () => {
    const month = monthRangeOf(day);
    const open = summarizeOpenGroups(await countOpenGroups(db, day));
    const cycles = await countCyclesInMonth(db, month.start, month.end);
    const atLimit = await listIngresosAtLimit(db, mesFiltroRange(MES_CAPITA_MAX, day).to!, LIST_LIMIT);
    const staleMonitoring = await listStaleMonitoring(db, day, LIST_LIMIT);
    const data: DashboardData = {
      today: day,
      mes: month.mes,
      status: open.status,
      cycles,
      byPrograma: open.byPrograma,
      byEntidad: open.byEntidad,
      mesCapita: open.mesCapita,
      capita: open.capita,
      atLimit,
      staleMonitoring,
    };
    return { data, html: renderDashboardHtml(data) };
  });
}

/** Routes under /dashboard. */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;
  const cache = new LatestValueCache<DashboardFigures>();

  async function sendDashboard(request: FastifyRequest, reply: FastifyReply, capitaForm: CapitaForm | null, status = 200) {
    const { data, html } = await loadFigures(deps, cache);
    const form = capitaForm ?? { mes: data.mes, entidad: '' };
    return sendPage(reply, <DashboardPage ctx={pageContext(request, reply)} html={html} mes={data.mes} capitaForm={form} />, status);
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
