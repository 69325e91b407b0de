// The agenda's day and week (issue 28).
import { formatDateEs } from '../../shared/dates.js';
import { SelectField, TextField, type Choice } from '../../web/fields.js';
import { Pagination } from '../../web/pagination.js';
import { estadoLabel, longDateEs } from '../agenda.rules.js';
import { AGENDA_PAGE_SIZE, type BookedVisit } from '../agenda.day.repository.js';
import { endOf, patientLink } from './agenda.views.js';

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
  profesionales: Choice[];
  recursos: Choice[];
  prev: string;
  next: string;
  today: string;
}

/**
 * GET /agenda/: the clinic's day (or a professional's or a resource's day or week), printable. The content of a
 * kept page (agenda.pages.tsx): nothing of the request's own, the layout comes with sendKeptPage.
 */
export function AgendaDayContent(p: AgendaDayProps) {
  const who = p.profesional !== null ? p.profesionales.find((c) => c.value === String(p.profesional))?.label : p.recurso !== null ? p.recursos.find((c) => c.value === String(p.recurso))?.label : null;
  const title = p.semana ? `Agenda de la semana del ${formatDateEs(p.desde)}` : `Agenda del ${longDateEs(p.fecha)}`;
  const values = { fecha: p.fecha, profesional: p.profesional === null ? '' : String(p.profesional), recurso: p.recurso === null ? '' : String(p.recurso), vista: p.semana ? 'semana' : 'dia' };
  const link = (fecha: string) => `/agenda/?fecha=${fecha}${p.profesional !== null ? `&profesional=${p.profesional}` : ''}${p.recurso !== null ? `&recurso=${p.recurso}` : ''}${p.semana ? '&vista=semana' : ''}`;
  return (
    <>
      <h1>
        {title}
        {who ? ` · ${who}` : ''}
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
      <form method="get" action="/agenda/" class="card inline-form no-print" novalidate>
        <TextField name="fecha" label="Día" type="date" values={values} errors={{}} />
        <SelectField name="profesional" label="Profesional" choices={p.profesionales} values={values} errors={{}} placeholder="Toda la clínica" />
        <SelectField name="recurso" label="Recurso" choices={p.recursos} values={values} errors={{}} placeholder="Todos" />
        <SelectField name="vista" label="Vista" choices={[{ value: 'dia', label: 'Día' }, { value: 'semana', label: 'Semana' }]} values={values} errors={{}} placeholder="Día" />
        <button type="submit" class="button">
          Ver
        </button>
      </form>
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
            {p.visits.map((v) => (
              <tr data-cita={String(v.id)}>
                {p.semana && <td data-label="Día">{formatDateEs(v.fecha ?? '')}</td>}
                <td data-label="Hora">
                  {v.hora}–{endOf(v.hora, v.duracion_min)}
                </td>
                <td data-label="Paciente">{patientLink(v)}</td>
                <td data-label="Cita">
                  <a href={`/agenda/citas/${v.id}/`}>{v.tipo_nombre}</a>
                </td>
                <td data-label="Profesional">{v.profesional ?? ''}</td>
                <td data-label="Recurso">{v.recurso ?? ''}</td>
                <td data-label="Estado">{estadoLabel(v.estado)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {p.paging !== null && (
        <Pagination base="/agenda/" params={{ fecha: p.fecha, vista: p.semana ? 'semana' : null }} page={p.paging.page} pageCount={p.paging.pageCount} pageParam="pagina" />
      )}
    </>
  );
}
