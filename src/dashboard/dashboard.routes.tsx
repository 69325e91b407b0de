import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { mesCapita, mesFiltroRange, MES_CAPITA_MAX } from '../ingresos/ingreso.rules.js';
import { ENTIDADES_SALUD, choiceValues } from '../patients/patient.rules.js';
import { csvDecimal, keysetPages } from '../shared/csv.js';
import { today, type AppDeps } from '../web/deps.js';
import { queryValue } from '../web/form.js';
import { pageContext, sendPage } from '../web/render.js';
import { EXPORT_PAGE_SIZE, sendCsvExport } from './csv-export.js';
import {
  countActiveByMesCapita,
  countCyclesInMonth,
  countOpenPatientsBy,
  countPatientsByOpenStatus,
  findCapitaPage,
  listIngresosAtLimit,
  sumCapitaByEntidad,
  type CapitaQuery,
  type CapitaRow,
} from './dashboard.repository.js';
import { CAPITA_MESSAGES, capitaReferenceDate, monthRangeOf, parseCapitaMonth, startOfDayUtc } from './dashboard.rules.js';
import { listStaleMonitoring } from './monitoring.repository.js';
import { DashboardPage, type DashboardData } from './views/dashboard.page.js';

/** How many rows the dashboard's lists show (their totals are always shown). */
const LIST_LIMIT = 50;

export const CAPITA_HEADER = ['documento', 'tipo_documento', 'nombre', 'apellido', 'entidad_salud', 'programa', 'mes_capita', 'valor_capita'] as const;

async function loadDashboard(deps: AppDeps, capitaForm: DashboardData['capitaForm'] | null): Promise<DashboardData> {
  const { db } = deps;
  const day = today(deps);
  const month = monthRangeOf(day);
  const [status, cycles, byPrograma, byEntidad, counts, capita, atLimit, staleMonitoring] = await Promise.all([
    countPatientsByOpenStatus(db),
    countCyclesInMonth(db, month.start, month.end),
    countOpenPatientsBy(db, 'programa'),
    countOpenPatientsBy(db, 'entidad_salud'),
    countActiveByMesCapita(db, day),
    sumCapitaByEntidad(db),
    listIngresosAtLimit(db, mesFiltroRange(MES_CAPITA_MAX, day).to!, LIST_LIMIT),
    listStaleMonitoring(db, day, LIST_LIMIT),
  ]);
  return {
    today: day,
    mes: month.mes,
    status,
    cycles,
    byPrograma,
    byEntidad,
    mesCapita: counts,
    capita,
    atLimit,
    staleMonitoring,
    capitaForm: capitaForm ?? { mes: month.mes, entidad: '' },
  };
}

async function sendDashboard(request: FastifyRequest, reply: FastifyReply, capitaForm: DashboardData['capitaForm'] | null, status = 200) {
  const data = await loadDashboard(request.server.deps, capitaForm);
  return sendPage(reply, <DashboardPage ctx={pageContext(request, reply)} data={data} />, status);
}

/** Routes under /dashboard. */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;

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
    let total = 0;
    async function* rows() {
      const all = keysetPages<CapitaRow>((after) => findCapitaPage(deps.db, q, after, EXPORT_PAGE_SIZE), EXPORT_PAGE_SIZE);
      for await (const r of all) {
        total += r.valor_capita;
        yield [r.documento, r.tipo_documento, r.nombre, r.apellido, r.entidad_salud, r.programa, mesCapita(r.fecha_inicio, reference), csvDecimal(r.valor_capita)];
      }
    }
    return sendCsvExport(request, reply, {
      name: 'capita',
      fileName: `capita-${month.mes}${entidad ? `-${entidad}` : ''}.csv`,
      filters: { mes: month.mes, entidad },
      header: CAPITA_HEADER,
      rows: rows(),
      footer: () => ['TOTAL', '', '', '', '', '', '', csvDecimal(total)],
    });
  });
}
