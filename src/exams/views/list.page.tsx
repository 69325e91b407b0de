import type { PatientSearchResult } from '../../patients/patient.capita-list.repository.js';
import { ENTIDADES_SALUD, labelOf, PROGRAMAS } from '../../patients/patient.rules.js';
import { listUrl } from '../../patients/patient.schema.js';
import { QUERY_SEARCH_MAX } from '../../patients/patient.search.schema.js';
import { NotActiveNote } from '../../patients/views/not-active-note.js';
import { Pagination } from '../../patients/views/pagination.js';
import { formatDateEs } from '../../shared/dates.js';

/** GET /exams/: patients with an ACTIVO Ingreso, searchable, each linking to its clinical view (inside the layout). */
export function ExamListContent({ query, result, notActive = 0 }: { query: string; result: PatientSearchResult; notActive?: number }) {
  return (
    <>
      <h1>Exámenes</h1>
      <p class="muted">Pacientes con un ingreso ACTIVO. Abra la vista clínica para ver y registrar exámenes.</p>
      <form method="get" action="/exams/" class="filters" role="search">
        <div class="field">
          <label for="id_query_search">Buscar por nombre, apellido o documento</label>
          <input id="id_query_search" name="query_search" type="search" value={query} maxLength={QUERY_SEARCH_MAX} />
        </div>
        <button type="submit" class="button">
          Buscar
        </button>
        {query && (
          <a href="/exams/" class="button">
            Limpiar
          </a>
        )}
      </form>
      <p data-total={String(result.total)}>
        {result.total === 1 ? '1 paciente' : `${result.total} pacientes`}
        {query ? ' coinciden con la búsqueda.' : ' con ingreso activo.'}{' '}
        {result.total > 0 && <a href={listUrl('/exams/export.csv', { query_search: query })}>Descargar la lista (CSV)</a>}
        <NotActiveNote count={notActive} query={query} />
      </p>
      {result.rows.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Pacientes con ingreso activo">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Paciente</th>
                <th scope="col">Documento</th>
                <th scope="col">Programa</th>
                <th scope="col">Entidad</th>
                <th scope="col">Ingreso desde</th>
                <th scope="col">Mes de cápita</th>
              </tr>
            </thead>
            <tbody>
              {result.rows.map((r) => (
                <tr data-patient-id={String(r.id)}>
                  <td data-label="Paciente">
                    <a href={`/exams/${r.id}/`}>
                      {r.apellido}, {r.nombre}
                    </a>
                  </td>
                  <td data-label="Documento">
                    {r.tipo_documento} {r.documento}
                  </td>
                  <td data-label="Programa">{labelOf(PROGRAMAS, r.programa)}</td>
                  <td data-label="Entidad">{labelOf(ENTIDADES_SALUD, r.entidad_salud)}</td>
                  <td data-label="Ingreso desde">{r.fecha_inicio ? formatDateEs(r.fecha_inicio) : '—'}</td>
                  <td data-label="Mes de cápita">{r.mes_capita ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pagination base="/exams/" params={{ query_search: query }} page={result.page} pageCount={result.pageCount} />
    </>
  );
}
