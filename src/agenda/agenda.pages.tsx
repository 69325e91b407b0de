// The agenda's kept pages (issue 28): a worklist's rows, kept per list, filters and day, and the five worklists'
// counts, kept per filters and day, which the lists' links and the dashboard share (decision 0210); the lists' links
// and filter form, and the professionals the filter is checked against, kept per version of users (decision 0265);
// the day and week agenda (decision 0200). Each is kept per input and per version of the tables it reads.
import { addDays } from '../shared/dates.js';
import { pageOf } from '../shared/paging.js';
import type { Executor } from '../db/database.js';
import type { Choice } from '../web/fields.js';
import { declarePage } from '../platform/pages/page-cache.js';
import { countLimit, countWorklists, listWorklist, WORKLIST_PAGE_SIZE, type WorklistFilters, type WorklistKind } from './agenda.worklists.repository.js';
import { listProfesionales, listRecursos } from './agenda.repository.js';
import { AGENDA_PAGE_SIZE, countBookedVisits, listBookedVisits } from './agenda.day.repository.js';
import type { AgendaQuery } from './agenda.schema.js';
import { weekStart } from './agenda.rules.js';
import { AgendaCounts, WorklistContent, WorklistControls, type UnknownFilter } from './views/agenda.worklists.views.js';
import { AgendaDayContent, dayFilterForm } from './views/agenda.day.views.js';
import type { ComponentChildren } from 'preact';
import { ContentMarker } from '../web/render.js';

/** The professionals (active users) and the active resources as a form's choices: the agenda's filters and booking. */
export const profesionalChoices = async (db: Executor): Promise<Choice[]> => (await listProfesionales(db)).map((u) => ({ value: String(u.id), label: u.username }));
export const recursoChoices = async (db: Executor): Promise<Choice[]> => (await listRecursos(db)).map((r) => ({ value: String(r.id), label: r.nombre }));

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
/**
 * A page of a list: its number as asked for, clamped to the last page when the list's count says how many there are
 * (a count past its limit does not: the page is then as asked, and may lie past the list's end).
 */
export const worklistInput = (kind: WorklistKind, filters: WorklistFilters, today: string, requestedPage: number, count: number) => {
  const known = count <= countLimit(filters);
  const window = pageOf(requestedPage, known ? count : Number.MAX_SAFE_INTEGER, WORKLIST_PAGE_SIZE);
  return { kind, ...countsInput(filters, today), page: window.page, pageCount: known ? window.pageCount : null };
};

/** The week (Monday to Sunday) that holds a day. */
const weekOf = (day: string) => {
  const desde = weekStart(day);
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

/** /agenda/pendientes/: one list's heading and rows; its hole takes the lists' links and the filter form (kept apart). */
export const worklistPage = declarePage<ReturnType<typeof worklistInput>>({
  name: 'agenda.worklist',
  tables: WORKLIST_TABLES,
  // A page of 50 rows is about 19 KB: some 800 lists, filters, pages and days (what coordinators request, decisions
  // 0210 and 0330).
  maxBytes: 16 * 1024 * 1024,
  holes: 1,
  async render(db, { kind, filters, today, page, pageCount }) {
    // One row more than a page: whether another follows, where the count does not say.
    const read = await listWorklist(db, kind, filters, today, weekOf(today), { offset: (page - 1) * WORKLIST_PAGE_SIZE, limit: WORKLIST_PAGE_SIZE + 1 });
    const rows = read.slice(0, WORKLIST_PAGE_SIZE);
    const paging = { page, pageCount, hasNext: read.length > WORKLIST_PAGE_SIZE };
    return { node: <WorklistContent kind={kind} filters={filters} rows={rows} paging={paging} />, title: 'Pendientes de la agenda', meta: null };
  },
});

/** A catalogue as a form's choices (the meta; no content), kept per version of its table. */
const cataloguePage = (name: string, table: 'users' | 'agenda_recursos', title: string, choices: (db: Executor) => Promise<Choice[]>) =>
  declarePage<null, Choice[]>({
    name,
    tables: [table],
    maxBytes: 1024,
    async render(db) {
      return { node: <></>, title, meta: await choices(db) };
    },
  });

/**
 * The professionals the worklists' filter may name and a professional's or a resource's day offers: kept per version
 * of users, so that such a request has them without reading them (decisions 0265, 0310).
 */
export const profesionalesPage = cataloguePage('agenda.profesionales', 'users', 'Profesionales', profesionalChoices);

/** The active resources a professional's or a resource's day offers, kept per version of the resources (decision 0310). */
export const recursosPage = cataloguePage('agenda.recursos', 'agenda_recursos', 'Recursos', recursoChoices);

/** The input of the worklists' controls, built here only (the key is the input as text). */
export const controlsInput = (
  kind: WorklistKind,
  filters: WorklistFilters,
  counts: Record<WorklistKind, number>,
  choices: { programas: readonly Choice[]; entidades: readonly Choice[] },
  dropped: readonly UnknownFilter[] = [],
) => ({
  kind,
  filters: { programa: filters.programa, entidad: filters.entidad, profesional: filters.profesional },
  counts: { semana: counts.semana, vencidas: counts.vencidas, inasistencias: counts.inasistencias, sin_proxima: counts.sin_proxima, cpap: counts.cpap },
  programas: choices.programas,
  entidades: choices.entidades,
  dropped: [...dropped],
});

/**
 * The worklists' hole: the five lists' links with their counts and the filter form (its ~125 professionals). What it
 * shows depends only on its input (the list, the filters, the counts kept apart, the record's choices) and the
 * professionals: kept per input and version of users, so that a kept list's request only stitches (decision 0265).
 */
export const worklistControlsPage = declarePage<ReturnType<typeof controlsInput>>({
  name: 'agenda.worklist.controls',
  tables: ['users'],
  // About 10 KB each (the professionals' select): some 400 lists, filters and counts, more than the lists kept.
  maxBytes: 4 * 1024 * 1024,
  async render(db, { kind, filters, counts, programas, entidades, dropped }) {
    const values = { programa: filters.programa ?? '', entidad: filters.entidad ?? '', profesional: filters.profesional === null ? '' : String(filters.profesional) };
    return {
      node: (
        <WorklistControls
          kind={kind}
          counts={counts}
          values={values}
          programas={[...programas]}
          entidades={[...entidades]}
          profesionales={await profesionalChoices(db)}
          limit={countLimit(filters)}
          dropped={dropped}
        />
      ),
      title: 'Pendientes de la agenda',
      meta: null,
    };
  },
});

/** What both day pages read: the visits, their patients, kinds, professionals and resources. */
const DAY_TABLES = ['citas', 'patients', 'agenda_tipos', 'users', 'agenda_recursos'] as const;

/**
 * A day page's input: the parsed query and today (the page links to today); for a later page of the whole clinic's
 * days, how many visits they hold (kept apart, agendaDaysCountPage), by which they are paged (counted by the render
 * when not given).
 */
type DayInput = { query: AgendaQuery; today: string; total?: number };

/** The days a query shows: one, or the week that holds it. */
export const daysOf = (q: AgendaQuery) => (q.semana ? weekOf(q.fecha) : { desde: q.fecha, hasta: q.fecha });

/**
 * How many visits the whole clinic's day or week holds: kept per days and version of the visits, so that each of a
 * week's 70 pages read anew counts them once, not once a page (decision 0340).
 */
export const agendaDaysCountPage = declarePage<{ desde: string; hasta: string }, number>({
  name: 'agenda.days.count',
  tables: ['citas'],
  maxBytes: 64 * 1024,
  async render(db, { desde, hasta }) {
    return { node: <></>, title: 'Agenda', meta: await countBookedVisits(db, { desde, hasta, profesional: null, recurso: null }) };
  },
});

/** What the day and week show, read and laid out once for both pages below; `heading` and `form` say where those go. */
async function renderDays(db: Executor, { query: q, today, total }: DayInput, place: { heading: ComponentChildren; form: ComponentChildren }) {
  const { desde, hasta } = daysOf(q);
  const step = q.semana ? 7 : 1;
  const filters = { desde, hasta, profesional: q.profesional, recurso: q.recurso };
  // The whole clinic's days a hundred visits at a time (a page past the last shows the last); anyone's, whole.
  let paging: { total: number; page: number; pageCount: number } | null = null;
  let visits;
  if (q.profesional === null && q.recurso === null) {
    const counted = total ?? (await countBookedVisits(db, filters));
    const { page, pageCount, offset } = pageOf(q.pagina, counted, AGENDA_PAGE_SIZE);
    paging = { total: counted, page, pageCount };
    visits = await listBookedVisits(db, filters, { offset, limit: AGENDA_PAGE_SIZE });
  } else {
    visits = await listBookedVisits(db, filters);
  }
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
        prev={addDays(q.fecha, -step)}
        next={addDays(q.fecha, step)}
        today={today}
        heading={place.heading}
        form={place.form}
      />
    ),
    title: 'Agenda',
    meta: null,
  };
}

/**
 * GET /agenda/ of the whole clinic: a day or a week, kept whole (its form too: a kept page's request only stitches).
 * Its content has no part of the request's own (its one form is a GET).
 */
export const agendaDayPage = declarePage<DayInput>({
  name: 'agenda.day',
  tables: DAY_TABLES,
  maxBytes: 8 * 1024 * 1024,
  async render(db, input) {
    return renderDays(db, input, { heading: null, form: dayFilterForm(input.query, await profesionalChoices(db), await recursoChoices(db)) });
  },
});

/**
 * GET /agenda/ of a professional or a resource: a day or a week, rendered each time: 125 professionals' days and
 * weeks around today are ~80 MB of pages, asked at random they were 7-24 % hits in 8 MB, and keeping them cost more
 * than it saved (decision 0266). Its two holes take whose agenda it is, in the heading, and the filter form
 * (agendaDayFill), both from the professionals and the resources kept apart: a day read anew reads neither
 * catalogue (decision 0310).
 */
export const agendaDayOfPage = declarePage<DayInput>({
  name: 'agenda.day.of',
  tables: DAY_TABLES,
  // Nothing is kept (keeps): the bound is never filled.
  maxBytes: 1,
  holes: 2,
  keeps: () => false,
  render: (db, input) => renderDays(db, input, { heading: <ContentMarker />, form: <ContentMarker /> }),
});
