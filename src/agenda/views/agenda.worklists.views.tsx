// The worklists of /agenda/pendientes/ and their counts on the dashboard (issue 28).
import { patientLink, sameChoices, selectMarkup } from './agenda.views.js';
import { formatDateEs } from '../../shared/dates.js';
import { SelectField, type Choice, type FormValues } from '../../web/fields.js';
import { ContentMarker, Prerendered, type Markup } from '../../web/render.js';
import { Pagination } from '../../web/pagination.js';
import { listUrl } from '../../web/form.js';
import { WORKLIST_LIMIT, type WorklistFilters, type WorklistKind, type WorklistRow } from '../agenda.worklists.repository.js';

// ---------------------------------------------------------------------------------------------------------

export const WORKLISTS: { kind: WorklistKind; label: string }[] = [
  { kind: 'semana', label: 'Vencen esta semana, sin agendar' },
  { kind: 'vencidas', label: 'Vencidas' },
  { kind: 'inasistencias', label: 'Inasistencias sin reagendar' },
  { kind: 'sin_proxima', label: 'Activos sin próxima cita' },
  { kind: 'cpap', label: 'CPAP no adherentes' },
];

const cpapDetail = (d: string | null) => {
  if (d === null) return '';
  if (d === 'sin_control') return 'Sin control de CPAP en los primeros 90 días';
  const [h, n] = d.split('/');
  const fmt = (x: string | undefined) => (x === undefined || x === '' ? '—' : (Number(x) / 100).toLocaleString('es-CO'));
  return `Uso promedio ${fmt(h)} h, ${fmt(n)} % de noches ≥ 4 h`;
};

/** Which page of a worklist: its number, how many there are (null past the counts' limit) and whether one follows. */
export interface WorklistPaging {
  page: number;
  pageCount: number | null;
  hasNext: boolean;
}

/** A worklist's filters as a query: the parsed ones, or the filter form's values ('' for none). */
type FilterParams = { programa?: string | null; entidad?: string | null; profesional?: string | number | null };

/** The query of a worklist's links, its tabs and its pages: the list and its filters (empty ones left out by listUrl). */
const worklistParams = (kind: WorklistKind, f: FilterParams) => ({ lista: kind, programa: f.programa, entidad: f.entidad, profesional: f.profesional });

/**
 * GET /agenda/pendientes/, the kept part: the list's heading and a page of its rows. The lists' links with their counts
 * and the filter form go in its hole (WorklistControls, kept apart per version of users): the counts are kept apart,
 * per filters and day, shared by the five lists and the dashboard.
 */
export function WorklistContent({ kind, filters, rows, paging }: { kind: WorklistKind; filters: WorklistFilters; rows: WorklistRow[]; paging: WorklistPaging }) {
  const current = WORKLISTS.find((w) => w.kind === kind)!;
  const pages = <Pagination base="/agenda/pendientes/" params={worklistParams(kind, filters)} page={paging.page} pageCount={paging.pageCount} hasNext={paging.hasNext} pageParam="pagina" />;
  return (
    <>
      <h1>Pendientes: {current.label}</h1>
      <ContentMarker />
      {rows.length === 0 ? (
        paging.page > 1 ? (
          <>
            <p>Esta lista termina antes de la página {paging.page}.</p>
            {pages}
          </>
        ) : (
          <p>Nada pendiente en esta lista.</p>
        )
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Paciente</th>
              <th scope="col">Programa</th>
              <th scope="col">Entidad</th>
              <th scope="col">{kind === 'cpap' ? 'Último control' : kind === 'sin_proxima' ? 'Inicio del ciclo' : 'Fecha'}</th>
              <th scope="col">Detalle</th>
              <th scope="col">Acción</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr data-paciente={String(r.paciente_id)}>
                <td data-label="Paciente">{patientLink(r)}</td>
                <td data-label="Programa">{r.programa}</td>
                <td data-label="Entidad">{r.entidad_salud}</td>
                <td data-label="Fecha">{r.fecha ? formatDateEs(r.fecha) : ''}</td>
                <td data-label="Detalle">{kind === 'cpap' ? cpapDetail(r.detalle) : (r.tipo_nombre ?? '')}</td>
                <td data-label="Acción">
                  <a class="button small" href={`/agenda/citas/nueva/?patient_id=${r.paciente_id}`}>
                    Agendar
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rows.length > 0 && pages}
    </>
  );
}

export interface WorklistControlsProps {
  kind: WorklistKind;
  counts: Record<WorklistKind, number>;
  values: FormValues;
  programas: Choice[];
  entidades: Choice[];
  profesionales: Choice[];
  limit: number;
  /** Filters asked for that are not among their choices: the list is shown without them. */
  dropped?: readonly UnknownFilter[];
}

export type UnknownFilter = 'programa' | 'entidad' | 'profesional';
const UNKNOWN_FILTER_LABEL: Record<UnknownFilter, string> = {
  programa: 'El programa pedido',
  entidad: 'La entidad pedida',
  profesional: 'El profesional pedido (o ya no está activo)',
};

/** The five lists' links with their counts, and the filters: a kept part of its own, in the kept list's hole (decision 0265). */
export function WorklistControls(p: WorklistControlsProps) {
  const query = (kind: WorklistKind) => listUrl('/agenda/pendientes/', worklistParams(kind, p.values));
  return (
    <>
      <nav class="actions" aria-label="Listas">
        {WORKLISTS.map((w) => (
          <a class={w.kind === p.kind ? 'button small primary' : 'button small'} href={query(w.kind)} aria-current={w.kind === p.kind ? 'page' : undefined} data-count={String(p.counts[w.kind])}>
            {w.label} ({p.counts[w.kind] > p.limit ? `más de ${p.limit}` : p.counts[w.kind]})
          </a>
        ))}
      </nav>
      {(p.dropped ?? []).map((name) => (
        <p class="message message-warning" role="status" data-filtro-desconocido={name}>
          {UNKNOWN_FILTER_LABEL[name]} no está entre las opciones: la lista se muestra sin ese filtro.
        </p>
      ))}
      <form method="get" action="/agenda/pendientes/" class="card inline-form" novalidate>
        <input type="hidden" name="lista" value={p.kind} />
        <SelectField name="programa" label="Programa" choices={p.programas} values={p.values} errors={{}} placeholder="Todos" />
        <SelectField name="entidad" label="Entidad" choices={p.entidades} values={p.values} errors={{}} placeholder="Todas" />
        <Prerendered markup={profesionalSelectMarkup(p.profesionales, p.values.profesional ?? '')} />
        <button type="submit" class="button">
          Filtrar
        </button>
      </form>
    </>
  );
}

/** The professionals' select as the component renders it: what profesionalSelectMarkup's bytes must equal (tests). */
export const ProfesionalSelect = ({ choices, value }: { choices: readonly Choice[]; value: string }) => (
  <SelectField name="profesional" label="Profesional" choices={choices} values={{ profesional: value }} errors={{}} placeholder="Todos" />
);

/** The latest catalogue's select, rendered once per chosen value (a clinic has one; another when it changes). */
let profesionalSelect: { choices: readonly Choice[]; markup: (value: string) => Markup } | null = null;

/**
 * The professionals' select of the worklists' filter form, rendered once per catalogue and value, as the day's form is
 * (decision 0205): its ~125 options were most of a kept hit's render, before the links and form were kept (0265).
 */
export function profesionalSelectMarkup(choices: readonly Choice[], value: string): Markup {
  if (profesionalSelect === null || !sameChoices(profesionalSelect.choices, choices)) {
    // A copy: the markup stands for these choices, whatever the caller does with its array afterwards.
    const copy = choices.map((c) => ({ ...c }));
    profesionalSelect = { choices: copy, markup: selectMarkup((v) => <ProfesionalSelect choices={copy} value={v} />, copy) };
  }
  return profesionalSelect.markup(value);
}

/** The worklists' counts, on the dashboard: each a link to its list. */
export function AgendaCounts({ counts }: { counts: Record<WorklistKind, number> }) {
  return (
    <section class="card agenda-counts" aria-labelledby="agenda-counts-title">
      <h2 id="agenda-counts-title">Agenda: pendientes</h2>
      <ul>
        {WORKLISTS.map((w) => (
          <li data-worklist={w.kind} data-count={String(counts[w.kind])}>
            <a href={`/agenda/pendientes/?lista=${w.kind}`}>{w.label}</a>: {counts[w.kind] > WORKLIST_LIMIT ? `más de ${WORKLIST_LIMIT}` : counts[w.kind]}
          </li>
        ))}
      </ul>
    </section>
  );
}
