// The agenda's day and week (issue 28).
import { formatDateEs } from '../../shared/dates.js';
import { SelectField, TextField, type Choice } from '../../web/fields.js';
import { Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import { estadoLabel, longDateEs } from '../agenda.rules.js';
import type { BookedVisit } from '../agenda.day.repository.js';
import { endOf, patientLink } from './agenda.views.js';

// ---------------------------------------------------------------------------------------------------------

export interface AgendaDayProps {
  ctx: PageContext;
  fecha: string;
  desde: string;
  hasta: string;
  semana: boolean;
  profesional: number | null;
  recurso: number | null;
  visits: BookedVisit[];
  profesionales: Choice[];
  recursos: Choice[];
  prev: string;
  next: string;
  today: string;
}

/** GET /agenda/: the clinic's day (or a professional's or a resource's day or week), printable. */
export function AgendaDayPage(p: AgendaDayProps) {
  const who = p.profesional !== null ? p.profesionales.find((c) => c.value === String(p.profesional))?.label : p.recurso !== null ? p.recursos.find((c) => c.value === String(p.recurso))?.label : null;
  const title = p.semana ? `Agenda de la semana del ${formatDateEs(p.desde)}` : `Agenda del ${longDateEs(p.fecha)}`;
  const values = { fecha: p.fecha, profesional: p.profesional === null ? '' : String(p.profesional), recurso: p.recurso === null ? '' : String(p.recurso), vista: p.semana ? 'semana' : 'dia' };
  const link = (fecha: string) => `/agenda/?fecha=${fecha}${p.profesional !== null ? `&profesional=${p.profesional}` : ''}${p.recurso !== null ? `&recurso=${p.recurso}` : ''}${p.semana ? '&vista=semana' : ''}`;
  return (
    <Layout ctx={p.ctx} title="Agenda">
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
    </Layout>
  );
}
