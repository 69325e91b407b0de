// The agenda's kept pages (issue 28): the worklists' counts shown on the dashboard, and the day and week agenda
// (decision 0200), each kept per input and per version of the tables it reads.
import { addDays } from '../shared/dates.js';
import { declarePage } from '../platform/pages/page-cache.js';
import { countWorklists } from './agenda.worklists.repository.js';
import { listProfesionales, listRecursos } from './agenda.repository.js';
import { AGENDA_PAGE_SIZE, countBookedVisits, listBookedVisits } from './agenda.day.repository.js';
import type { AgendaQuery } from './agenda.schema.js';
import { weekStart } from './agenda.rules.js';
import { AgendaCounts } from './views/agenda.worklists.views.js';
import { AgendaDayContent } from './views/agenda.day.views.js';

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

/**
 * GET /agenda/: a day or a week, of the whole clinic, a professional or a resource. Its input is the parsed query
 * and today (the page links to today); its content has no part of the request's own (its one form is a GET).
 */
export const agendaDayPage = declarePage<{ query: AgendaQuery; today: string }>({
  name: 'agenda.day',
  tables: ['citas', 'patients', 'agenda_tipos', 'users', 'agenda_recursos'],
  maxBytes: 8 * 1024 * 1024,
  async render(db, { query: q, today }) {
    const desde = q.semana ? weekStart(q.fecha) : q.fecha;
    const hasta = q.semana ? addDays(desde, 6) : q.fecha;
    const step = q.semana ? 7 : 1;
    const filters = { desde, hasta, profesional: q.profesional, recurso: q.recurso };
    // The whole clinic's days a hundred visits at a time (a page past the last shows the last); anyone's, whole.
    let paging: { total: number; page: number; pageCount: number } | null = null;
    let visits;
    if (q.profesional === null && q.recurso === null) {
      const total = await countBookedVisits(db, filters);
      const pageCount = Math.max(1, Math.ceil(total / AGENDA_PAGE_SIZE));
      const page = Math.min(q.pagina, pageCount);
      paging = { total, page, pageCount };
      visits = await listBookedVisits(db, filters, { offset: (page - 1) * AGENDA_PAGE_SIZE, limit: AGENDA_PAGE_SIZE });
    } else {
      visits = await listBookedVisits(db, filters);
    }
    const profesionales = (await listProfesionales(db)).map((u) => ({ value: String(u.id), label: u.username }));
    const recursos = (await listRecursos(db)).map((r) => ({ value: String(r.id), label: r.nombre }));
    return {
      node: (
        <AgendaDayContent
          fecha={q.fecha}
          desde={desde}
          hasta={hasta}
          semana={q.semana}
          profesional={q.profesional}
          recurso={q.recurso}
          visits={visits}
          paging={paging}
          profesionales={profesionales}
          recursos={recursos}
          prev={addDays(q.fecha, -step)}
          next={addDays(q.fecha, step)}
          today={today}
        />
      ),
      title: 'Agenda',
      meta: null,
    };
  },
});
