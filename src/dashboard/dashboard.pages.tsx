// The dashboard kept by src/platform/pages/page-cache.ts.

import { mesFiltroRange, MES_CAPITA_MAX } from '../ingresos/ingreso.rules.js';
import { declarePage } from '../platform/pages/page-cache.js';
import { ContentMarker } from '../web/render.js';
import { countCyclesInMonth, countOpenGroups, listIngresosAtLimit } from './dashboard.repository.js';
import { monthRangeOf, summarizeOpenGroups } from './dashboard.rules.js';
import { listStaleMonitoring } from './monitoring.repository.js';
import { DashboardLists, DashboardSummary, type DashboardData } from './views/dashboard.page.js';

/** How many rows the dashboard's lists show (their totals are always shown). */
const LIST_LIMIT = 50;

/**
 * Every figure of the dashboard for today, and the HTML drawn from them; the capitation form, which is each
 * request's own (its values and errors), goes in the hole between the figures and the lists. The statements run
 * one after another: a request holds at most one connection of the pool.
 */
export const dashboardPage = declarePage<{ today: string }, { mes: string }>({
  name: 'dashboard',
  tables: ['patients', 'ingresos'],
  maxBytes: 1024 * 1024,
  holes: 1,
  async render(db, { today }) {
    const month = monthRangeOf(today);
    const open = summarizeOpenGroups(await countOpenGroups(db, today));
    const cycles = await countCyclesInMonth(db, month.start, month.end);
    const atLimit = await listIngresosAtLimit(db, mesFiltroRange(MES_CAPITA_MAX, today).to!, LIST_LIMIT);
    const staleMonitoring = await listStaleMonitoring(db, today, LIST_LIMIT);
    const data: DashboardData = {
      today,
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
    return {
      node: (
        <>
          <div class="dashboard-part">
            <DashboardSummary data={data} />
          </div>
          <ContentMarker />
          <div class="dashboard-part">
            <DashboardLists data={data} />
          </div>
        </>
      ),
      title: 'Dashboard',
      meta: { mes: month.mes },
    };
  },
});
