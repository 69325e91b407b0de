// The agenda's kept pages (issue 28, decision 0210): a worklist's rows, kept per list, filters and day, and the five
// worklists' counts, kept per filters and day, which the lists' links and the dashboard share. Both are kept per
// version of the tables they read. The agenda's other pages are rendered on each request (decision 0100).
import { addDays } from '../shared/dates.js';
import { declarePage } from '../platform/pages/page-cache.js';
import { countWorklists, listWorklist, type WorklistFilters, type WorklistKind } from './agenda.worklists.repository.js';
import { weekStart } from './agenda.rules.js';
import { AgendaCounts, WorklistContent } from './views/agenda.worklists.views.js';

/** What the worklists read: every change to these moves a patient between the lists. */
const WORKLIST_TABLES = ['citas', 'ingresos', 'patients', 'exam_records', 'agenda_tipos'] as const;

export const NO_FILTERS: WorklistFilters = { programa: null, entidad: null, profesional: null };

/**
 * The inputs, built here only: the key is the input as text, so the dashboard and the unfiltered lists share one
 * entry of the counts only when their inputs are written in the same order.
 */
export const countsInput = (filters: WorklistFilters, today: string) => ({
  filters: { programa: filters.programa, entidad: filters.entidad, profesional: filters.profesional },
  today,
});
export const worklistInput = (kind: WorklistKind, filters: WorklistFilters, today: string) => ({ kind, ...countsInput(filters, today) });

const weekOf = (today: string) => {
  const desde = weekStart(today);
  return { desde, hasta: addDays(desde, 6) };
};

/** The five worklists' counts: the dashboard's section as content, the counts themselves as meta (the lists' links). */
export const agendaCountsPage = declarePage<ReturnType<typeof countsInput>, Record<WorklistKind, number>>({
  name: 'agenda.counts',
  tables: WORKLIST_TABLES,
  maxBytes: 256 * 1024,
  async render(db, { filters, today }) {
    const counts = await countWorklists(db, filters, today, weekOf(today));
    return { node: <AgendaCounts counts={counts} />, title: 'Agenda', meta: counts };
  },
});

/** /agenda/pendientes/: one list's heading and rows; its hole takes the lists' links and the filter form. */
export const worklistPage = declarePage<ReturnType<typeof worklistInput>>({
  name: 'agenda.worklist',
  tables: WORKLIST_TABLES,
  // A page of 200 rows is about 75 KB: some 200 lists, filters and days (what coordinators request, decision 0210).
  maxBytes: 16 * 1024 * 1024,
  holes: 1,
  async render(db, { kind, filters, today }) {
    const rows = await listWorklist(db, kind, filters, today, weekOf(today));
    return { node: <WorklistContent kind={kind} rows={rows} />, title: 'Pendientes de la agenda', meta: null };
  },
});
