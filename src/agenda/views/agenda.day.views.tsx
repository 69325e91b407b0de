// The agenda's day and week (issue 28).
import { formatDateEs } from '../../shared/dates.js';
import { SelectField, TextField, type Choice, type FieldErrors, type FormValues } from '../../web/fields.js';
import type { ComponentChildren, VNode } from 'preact';
import { cutMarkup, escapedMarkup, joinMarkup, markupOf, markupTemplate, Prerendered, type Markup } from '../../web/render.js';
import { Pagination } from '../../web/pagination.js';
import { estadoLabel, longDateEs } from '../agenda.rules.js';
import { AGENDA_PAGE_SIZE, type BookedVisit } from '../agenda.day.repository.js';
import { endOf, sameChoices, selectMarkup } from './agenda.views.js';

// ---------------------------------------------------------------------------------------------------------

const PAGE_SIZE_TEXT = `${AGENDA_PAGE_SIZE} por página`;

export interface AgendaDayProps {
  fecha: string;
  desde: string;
  hasta: string;
  semana: boolean;
  profesional: number | null;
  recurso: number | null;
  visits: BookedVisit[];
  /** The whole clinic's days come a page at a time; one professional's or resource's, whole (null). */
  paging: { total: number; page: number; pageCount: number } | null;
  prev: string;
  next: string;
  today: string;
  /** After the heading's title: whose agenda it is (or a hole for it). */
  heading: ComponentChildren;
  /** The filter form (or a hole for it). */
  form: ComponentChildren;
}

/** What the day's query asks for, as the day's links and filter form need it. */
export interface DayQuery {
  fecha: string;
  semana: boolean;
  profesional: number | null;
  recurso: number | null;
}

/** The day's filter form for a query and the catalogues it offers: the clinic's kept page and someone's hole alike. */
export function dayFilterForm(q: DayQuery, profesionales: readonly Choice[], recursos: readonly Choice[]): VNode {
  const values = { fecha: q.fecha, profesional: q.profesional === null ? '' : String(q.profesional), recurso: q.recurso === null ? '' : String(q.recurso), vista: q.semana ? 'semana' : 'dia' };
  return <Prerendered markup={filterFormMarkup(profesionales, recursos, values)} />;
}

/**
 * The holes of a professional's or a resource's day filled from the professionals and the resources (kept apart,
 * decision 0310): « · <name> » when the agenda is of one among them (nothing otherwise), and the filter form.
 */
export function agendaDayFill(q: DayQuery, profesionales: readonly Choice[], recursos: readonly Choice[]): [string, VNode] {
  const who = q.profesional !== null ? profesionales.find((c) => c.value === String(q.profesional))?.label : q.recurso !== null ? recursos.find((c) => c.value === String(q.recurso))?.label : null;
  return [who ? ` · ${who}` : '', dayFilterForm(q, profesionales, recursos)];
}

/**
 * GET /agenda/: the clinic's day (or a professional's or a resource's day or week), printable. The content of a
 * kept page (agenda.pages.tsx): nothing of the request's own, the layout comes with sendKeptPage.
 */
export function AgendaDayContent(p: AgendaDayProps) {
  const title = p.semana ? `Agenda de la semana del ${formatDateEs(p.desde)}` : `Agenda del ${longDateEs(p.fecha)}`;
  const link = (fecha: string) => `/agenda/?fecha=${fecha}${p.profesional !== null ? `&profesional=${p.profesional}` : ''}${p.recurso !== null ? `&recurso=${p.recurso}` : ''}${p.semana ? '&vista=semana' : ''}`;
  return (
    <>
      <h1>
        {title}
        {p.heading}
      </h1>
      <nav class="actions no-print" aria-label="Días">
        <a class="button small" href={link(p.prev)}>
          ← Anterior
        </a>
        <a class="button small" href={link(p.today)}>
          Hoy
        </a>
        <a class="button small" href={link(p.next)}>
          Siguiente →
        </a>
        <a class="button small" href="/agenda/pendientes/">
          Pendientes
        </a>
        <a class="button small" href="/agenda/recordatorios/">
          Recordatorios de mañana
        </a>
      </nav>
      {p.form}
      {p.paging !== null && p.paging.total > 0 && (
        <p class="result-count" data-total={String(p.paging.total)}>
          {`${p.paging.total.toLocaleString('es-CO')} ${p.paging.total === 1 ? 'cita' : 'citas'}`}
          {p.paging.pageCount > 1 && ` · página ${p.paging.page} de ${p.paging.pageCount}, ${PAGE_SIZE_TEXT}`}
        </p>
      )}
      {p.visits.length === 0 ? (
        <p>No hay citas agendadas.</p>
      ) : (
        <table class="table agenda-table">
          <thead>
            <tr>
              {p.semana && <th scope="col">Día</th>}
              <th scope="col">Hora</th>
              <th scope="col">Paciente</th>
              <th scope="col">Cita</th>
              <th scope="col">Profesional</th>
              <th scope="col">Recurso</th>
              <th scope="col">Estado</th>
            </tr>
          </thead>
          <tbody>
            <Prerendered markup={visitRowsMarkup(p.visits, p.semana)} />
          </tbody>
        </table>
      )}
      {p.paging !== null && (
        <Pagination base="/agenda/" params={{ fecha: p.fecha, vista: p.semana ? 'semana' : null }} page={p.paging.page} pageCount={p.paging.pageCount} pageParam="pagina" />
      )}
    </>
  );
}

// ---------------------------------------------------------------------------------------------------------
// The filter form, rendered once per catalogue (decision 0205): a professional's or a resource's day is a kept page
// that mostly misses, and the ~125 professionals' options were rendered on every miss. Its markup depends on the
// catalogues and the four values only; the values are placed as preact renders them (decision 0160).

const VISTAS: readonly Choice[] = [
  { value: 'dia', label: 'Día' },
  { value: 'semana', label: 'Semana' },
];

const NO_ERRORS: FieldErrors = Object.freeze({});

/** The filter form as the components render it: what filterFormMarkup's bytes must equal (its tests compare them). */
export function AgendaFilterForm({ profesionales, recursos, values }: { profesionales: readonly Choice[]; recursos: readonly Choice[]; values: FormValues }) {
  return (
    <form method="get" action="/agenda/" class="card inline-form no-print" novalidate>
      <TextField name="fecha" label="Día" type="date" values={values} errors={NO_ERRORS} />
      <SelectField name="profesional" label="Profesional" choices={profesionales} values={values} errors={NO_ERRORS} placeholder="Toda la clínica" />
      <SelectField name="recurso" label="Recurso" choices={recursos} values={values} errors={NO_ERRORS} placeholder="Todos" />
      <SelectField name="vista" label="Vista" choices={VISTAS} values={values} errors={NO_ERRORS} placeholder="Día" />
      <button type="submit" class="button">
        Ver
      </button>
    </form>
  );
}

/** Stands for the fields in the form rendered once: private-use characters, which nothing escapes or types. */
const HOLE = '\uF8FF\uF8FEcampos\uF8FE\uF8FF';

interface FilterFormMarkup {
  profesionales: readonly Choice[];
  recursos: readonly Choice[];
  around: [Markup, Markup];
  fields: { name: 'fecha' | 'profesional' | 'recurso' | 'vista'; markup: (value: string) => Markup }[];
}

/** The latest catalogues' form (a clinic has one of each; another only when they change). */
let filterForm: FilterFormMarkup | null = null;


/** The filter form's markup: the same bytes as AgendaFilterForm with these catalogues and values. */
export function filterFormMarkup(profesionales: readonly Choice[], recursos: readonly Choice[], values: FormValues): Markup {
  if (filterForm === null || !sameChoices(filterForm.profesionales, profesionales) || !sameChoices(filterForm.recursos, recursos)) {
    // Copies: the form stands for these catalogues, whatever the caller does with its arrays afterwards.
    const ps = profesionales.map((c) => ({ ...c }));
    const rs = recursos.map((c) => ({ ...c }));
    filterForm = {
      profesionales: ps,
      recursos: rs,
      around: cutMarkup(
        <form method="get" action="/agenda/" class="card inline-form no-print" novalidate>
          {HOLE}
          <button type="submit" class="button">
            Ver
          </button>
        </form>,
        HOLE,
      ),
      fields: [
        { name: 'fecha', markup: markupTemplate((v) => <TextField name="fecha" label="Día" type="date" values={{ fecha: v }} errors={NO_ERRORS} />, HOLE) },
        {
          name: 'profesional',
          markup: selectMarkup((v) => <SelectField name="profesional" label="Profesional" choices={ps} values={{ profesional: v }} errors={NO_ERRORS} placeholder="Toda la clínica" />, ps),
        },
        { name: 'recurso', markup: selectMarkup((v) => <SelectField name="recurso" label="Recurso" choices={rs} values={{ recurso: v }} errors={NO_ERRORS} placeholder="Todos" />, rs) },
        { name: 'vista', markup: selectMarkup((v) => <SelectField name="vista" label="Vista" choices={VISTAS} values={{ vista: v }} errors={NO_ERRORS} placeholder="Día" />, VISTAS) },
      ],
    };
  }
  const form = filterForm;
  return joinMarkup([form.around[0], ...form.fields.map((f) => f.markup(values[f.name] ?? '')), form.around[1]]);
}

// ---------------------------------------------------------------------------------------------------------
// The visits' rows from one template (decision 0205): preact rendered each row's nine elements on every miss, the
// most of a week's render. The template is the row component rendered once with a hole for each text; each row
// places its texts escaped as preact escapes them, so the bytes are the component's.

/** A row's texts, as the row shows them. */
export interface VisitCells {
  cita: string;
  dia: string;
  hora: string;
  fin: string;
  paciente: string;
  nombre: string;
  tipo: string;
  profesional: string;
  recurso: string;
  estado: string;
}
const CELLS = ['cita', 'dia', 'hora', 'fin', 'paciente', 'nombre', 'tipo', 'profesional', 'recurso', 'estado'] as const satisfies readonly (keyof VisitCells)[];

export const cellsOf = (v: BookedVisit): VisitCells => ({
  cita: String(v.id),
  dia: formatDateEs(v.fecha ?? ''),
  hora: v.hora ?? '',
  fin: endOf(v.hora, v.duracion_min),
  paciente: String(v.paciente_id),
  nombre: `${v.nombre} ${v.apellido}`,
  tipo: v.tipo_nombre,
  profesional: v.profesional ?? '',
  recurso: v.recurso ?? '',
  estado: estadoLabel(v.estado),
});

/** A visit's row as the components render it: what visitRowsMarkup's bytes must equal (its tests compare them). */
export function VisitRow({ semana, c }: { semana: boolean; c: VisitCells }) {
  return (
    <tr data-cita={c.cita}>
      {semana && <td data-label="Día">{c.dia}</td>}
      <td data-label="Hora">
        {c.hora}–{c.fin}
      </td>
      <td data-label="Paciente">
        <a href={`/patients/${c.paciente}/`}>{c.nombre}</a>
      </td>
      <td data-label="Cita">
        <a href={`/agenda/citas/${c.cita}/`}>{c.tipo}</a>
      </td>
      <td data-label="Profesional">{c.profesional}</td>
      <td data-label="Recurso">{c.recurso}</td>
      <td data-label="Estado">{c.estado}</td>
    </tr>
  );
}

/** A row's markup cut at its texts: pieces[i], then the text of cells[i], …, then the last piece. */
interface RowTemplate {
  pieces: Markup[];
  cells: (keyof VisitCells)[];
}

const holeOf = (i: number) => `\uF8FF${i}\uF8FE`;
const HOLES = /\uF8FF(\d+)\uF8FE/;

function rowTemplate(semana: boolean): RowTemplate {
  const holes = Object.fromEntries(CELLS.map((name, i) => [name, holeOf(i)])) as unknown as VisitCells;
  // Split at each hole: the pieces between and, at odd places, the holes' numbers.
  const parts = markupOf(<VisitRow semana={semana} c={holes} />).split(new RegExp(HOLES.source, 'g'));
  const pieces: Markup[] = [];
  const cells: (keyof VisitCells)[] = [];
  parts.forEach((part, i) => (i % 2 === 0 ? pieces.push(part as Markup) : cells.push(CELLS[Number(part)]!)));
  return { pieces, cells };
}

const rowTemplates = new Map<boolean, RowTemplate>();

/** The rows' markup: the same bytes as a VisitRow for each visit. */
export function visitRowsMarkup(visits: readonly BookedVisit[], semana: boolean): Markup {
  let t = rowTemplates.get(semana);
  if (t === undefined) rowTemplates.set(semana, (t = rowTemplate(semana)));
  const { pieces, cells } = t;
  const out: Markup[] = [];
  for (const v of visits) {
    const c = cellsOf(v);
    out.push(pieces[0]!);
    for (let i = 0; i < cells.length; i++) out.push(escapedMarkup(c[cells[i]!]), pieces[i + 1]!);
  }
  return joinMarkup(out);
}
