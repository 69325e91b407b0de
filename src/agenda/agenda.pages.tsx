// The agenda's one kept part: the worklists' counts shown on the dashboard (issue 28), kept per day and per version
// of the tables they read. The agenda's own pages are rendered on each request (decision 0100).
import { addDays } from '../shared/dates.js';
import { declarePage } from '../platform/pages/page-cache.js';
import { countWorklists } from './agenda.worklists.repository.js';
import { weekStart } from './agenda.rules.js';
import { AgendaCounts } from './views/agenda.worklists.views.js';

export const agendaCountsPage = declarePage<{ today: string }>({
  name: 'agenda.counts',
  tables: ['citas', 'ingresos', 'patients', 'exam_records', 'agenda_tipos'],
  maxBytes: 64 * 1024,
  async render(db, { today }) {
    const desde = weekStart(today);
    const counts = await countWorklists(db, { programa: null, entidad: null, profesional: null }, today, { desde, hasta: addDays(desde, 6) });
    return { node: <AgendaCounts counts={counts} />, title: 'Agenda', meta: null };
  },
});
