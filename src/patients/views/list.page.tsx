import { MES_CAPITA_MAX } from '../../ingresos/ingreso.rules.js';
import { formatDateEs } from '../../shared/dates.js';
import { countOf } from '../../shared/text.js';
import { SelectField } from '../../web/fields.js';
import type { PatientSearchResult } from '../patient.capita-list.repository.js';
import { ENTIDADES_SALUD, labelOf, PROGRAMAS } from '../patient.rules.js';
import { listUrl, type ListQuery } from '../patient.schema.js';
import { NotActiveNote } from './not-active-note.js';
import { Pagination } from './pagination.js';

/** mes_filtro options: months 1 to 18 (the specification's rango_meses 1..19, end exclusive). */
const MESES = Array.from({ length: MES_CAPITA_MAX }, (_, i) => ({ value: String(i + 1), label: `Mes ${i + 1}` }));

/** GET /patients/: everything the list page shows inside the layout; it depends on the filters and the data alone. */
export function PatientListContent({ filters, result, notActive = 0 }: { filters: ListQuery; result: PatientSearchResult; notActive?: number }) {
  const filterValues = { query_search: filters.query, mes_filtro: filters.mesFiltro === null ? '' : String(filters.mesFiltro) };
  const filtered = filters.query !== '' || filters.mesFiltro !== null;
  return (
    <>
      <div class="page-head">
        <h1>Pacientes activos</h1>
        <a href="/patients/create/" class="button primary">
          Nuevo paciente
        </a>
        <a href="/patients/import/" class="button">
          Importar desde hoja de cálculo
        </a>
      </div>
      <form method="get" action="/patients/" class="filters" role="search">
        <div class="field">
          <label for="id_query_search">Buscar</label>
          <input id="id_query_search" type="search" name="query_search" value={filters.query} maxLength={200} placeholder="Nombre, apellido o documento" />
        </div>
        <SelectField
          name="mes_filtro"
          label="Mes del programa"
          values={filterValues}
          errors={filters.mesFiltroError === null ? {} : { mes_filtro: filters.mesFiltroError }}
          choices={MESES}
          placeholder="Todos los meses"
        />
        <button type="submit" class="button primary">
          Buscar
        </button>
        {filtered && (
          <a href="/patients/" class="button">
            Limpiar filtros
          </a>
        )}
      </form>
      <p class="result-count" data-total={String(result.total)}>
        {countOf(result.total, 'paciente encontrado', 'pacientes encontrados')}
      </p>
      {result.total > 0 && (
        <p class="export-link">
          <a href={listUrl('/patients/export.csv', { query_search: filters.query, mes_filtro: filters.mesFiltro })}>Exportar CSV</a>
        </p>
      )}
      {result.rows.length === 0 ? (
        <p class="empty-state">
          {filtered
            ? 'Ningún paciente activo coincide con la búsqueda. Revise el texto o quite los filtros.'
            : 'Aún no hay pacientes con un ingreso activo. Use «Nuevo paciente» para registrar el primero.'}
          <NotActiveNote count={notActive} query={filters.query} />
        </p>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Pacientes activos">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Documento</th>
                <th scope="col">Nombre completo</th>
                <th scope="col">Programa</th>
                <th scope="col">Entidad</th>
                <th scope="col">Ciudad</th>
                <th scope="col">Mes</th>
                <th scope="col">Inicio</th>
                <th scope="col">
                  <span class="sr-only">Acciones</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {result.rows.map((r) => (
                <tr data-patient-id={String(r.id)}>
                  <td data-label="Documento">
                    {r.tipo_documento} {r.documento}
                  </td>
                  <td data-label="Nombre completo">
                    <a href={`/patients/${r.id}/`}>
                      {r.nombre} {r.apellido}
                    </a>
                  </td>
                  <td data-label="Programa">{labelOf(PROGRAMAS, r.programa)}</td>
                  <td data-label="Entidad">{labelOf(ENTIDADES_SALUD, r.entidad_salud)}</td>
                  <td data-label="Ciudad">{r.ciudad}</td>
                  <td data-label="Mes" data-mes-capita={r.mes_capita === null ? undefined : String(r.mes_capita)}>{r.mes_capita ?? '—'}</td>
                  <td data-label="Inicio">{r.fecha_inicio ? formatDateEs(r.fecha_inicio) : '—'}</td>
                  <td data-label="Acciones" class="row-actions">
                    {/* One element: on a phone the cell is a grid of its label and its content (a bare «·» took a line). */}
                    <span class="links-inline">
                      <a href={`/patients/${r.id}/`}>Ficha</a> · <a href={`/exams/${r.id}/`}>Vista clínica</a>
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pagination
        base="/patients/"
        params={{ query_search: filters.query, mes_filtro: filters.mesFiltro }}
        page={result.page}
        pageCount={result.pageCount}
      />
    </>
  );
}
