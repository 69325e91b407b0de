// The month's enrolment report of one insurer (GET /dashboard/novedades/, decision 0130): its form, its totals, the
// capitation list and the month's novedades, each row linking to the patient.

import { ENTIDADES_SALUD } from '../../patients/patient.rules.js';
import { Pagination } from '../../patients/views/pagination.js';
import { formatDateEs } from '../../shared/dates.js';
import { formatCop } from '../../shared/decimal.js';
import { ErrorSummary, SelectField, type FieldErrors } from '../../web/fields.js';
import { Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import type { CapitaTotals } from '../novedades.repository.js';
import { NOVEDAD_LABELS, NOVEDAD_ROW_LABELS, NOVEDAD_TIPOS, type NovedadesForm, type NovedadTipo } from '../novedades.rules.js';
import { monthNameEs } from './dashboard.page.js';

export interface InscritoView {
  pacienteId: number;
  documento: string;
  tipoDocumento: string;
  nombre: string;
  apellido: string;
  programa: string;
  fechaInicio: string;
  mesCapita: number;
  valorCapita: number;
}

export interface NovedadView {
  tipo: NovedadTipo;
  fecha: string;
  pacienteId: number;
  documento: string;
  nombre: string;
  apellido: string;
  motivo: string | null;
  entidadAnterior: string | null;
  entidadNueva: string | null;
}

export interface NovedadesReport {
  mes: string;
  entidad: string;
  /** this month: the list counts the patients ACTIVO today */
  current: boolean;
  totals: CapitaTotals;
  counts: Record<NovedadTipo, number>;
  inscritos: { page: number; pageCount: number; rows: InscritoView[] };
  novedades: { total: number; page: number; pageCount: number; rows: NovedadView[] };
}

const FIELD_LABELS = { mes: 'Mes', entidad_salud: 'Entidad de salud' } as const;

/** The report's form (GET): month and insurer, each error beside its field. */
export function NovedadesFormView({ form, errors, maxMes }: { form: NovedadesForm; errors: FieldErrors; maxMes: string }) {
  return (
    <section class="card" id="novedades-form">
      <form method="get" action="/dashboard/novedades/" class="filters" novalidate>
        <ErrorSummary errors={errors} labels={FIELD_LABELS} intro="Revise los datos del informe:" />
        <div class={errors.mes ? 'field field-invalid' : 'field'}>
          <label for="id_mes">Mes (AAAA-MM)</label>
          <input
            id="id_mes"
            name="mes"
            type="month"
            value={form.mes}
            max={maxMes}
            required
            aria-invalid={errors.mes ? 'true' : undefined}
            aria-describedby={errors.mes ? 'error_mes' : undefined}
          />
          {errors.mes && (
            <p class="field-error" id="error_mes">
              {errors.mes}
            </p>
          )}
        </div>
        <SelectField name="entidad_salud" label="Entidad de salud" values={{ entidad_salud: form.entidad_salud }} errors={errors} choices={ENTIDADES_SALUD} required />
        <button type="submit" class="button primary">
          Ver informe
        </button>
      </form>
    </section>
  );
}

function Figure({ name, label, value, dataValue }: { name: string; label: string; value: string; dataValue?: number }) {
  return (
    <div class="figure" data-figure={name} data-value={dataValue === undefined ? undefined : String(dataValue)}>
      <span class="figure-value">{value}</span>
      <span class="figure-label">{label}</span>
    </div>
  );
}

const patientLink = (id: number, nombre: string, apellido: string) => <a href={`/patients/${id}/`}>{`${nombre} ${apellido}`}</a>;

function ReportBody({ report }: { report: NovedadesReport }) {
  const { mes, entidad } = report;
  const params = { mes, entidad_salud: entidad };
  const monthName = monthNameEs(mes);
  return (
    <>
      <p>
        <a class="button" href={`/dashboard/novedades.csv?mes=${mes}&entidad_salud=${entidad}`} data-csv>
          Descargar CSV
        </a>
      </p>
      <section class="figures" aria-label="Totales del mes">
        <Figure name="inscritos" label={`Pacientes en la cápita de ${monthName}`} value={String(report.totals.pacientes)} />
        <Figure name="valor" label="Valor de la cápita" value={formatCop(report.totals.total)} dataValue={report.totals.total} />
        {NOVEDAD_TIPOS.map((t) => (
          <Figure name={t} label={NOVEDAD_LABELS[t]} value={String(report.counts[t])} />
        ))}
      </section>
      <p class="muted">
        {report.current
          ? 'Mes actual: pacientes con ingreso ACTIVO hoy, como en el reporte de cápita.'
          : 'Mes pasado: pacientes cuyo ingreso estuvo ACTIVO en algún momento del mes según el historial de estados, como en el reporte de cápita.'}
      </p>

      <section class="card" id="inscritos">
        <h2>Pacientes inscritos ({String(report.totals.pacientes)})</h2>
        <table class="table" data-table="inscritos">
          <thead>
            <tr>
              <th scope="col">Paciente</th>
              <th scope="col">Documento</th>
              <th scope="col">Programa</th>
              <th scope="col">Inicio del ciclo</th>
              <th scope="col">Mes de cápita</th>
              <th scope="col">Valor de cápita</th>
            </tr>
          </thead>
          <tbody>
            {report.inscritos.rows.map((r) => (
              <tr data-paciente-id={String(r.pacienteId)}>
                <td data-label="Paciente">{patientLink(r.pacienteId, r.nombre, r.apellido)}</td>
                <td data-label="Documento">{`${r.tipoDocumento} ${r.documento}`}</td>
                <td data-label="Programa">{r.programa}</td>
                <td data-label="Inicio del ciclo">{formatDateEs(r.fechaInicio)}</td>
                <td data-label="Mes de cápita">{String(r.mesCapita)}</td>
                <td data-label="Valor de cápita" data-value={String(r.valorCapita)}>
                  {formatCop(r.valorCapita)}
                </td>
              </tr>
            ))}
            {report.inscritos.rows.length === 0 && (
              <tr>
                <td colSpan={6} class="muted">
                  Ningún paciente en la cápita de este mes.
                </td>
              </tr>
            )}
          </tbody>
        </table>
        <Pagination base="/dashboard/novedades/" params={{ ...params, page_novedades: report.novedades.page > 1 ? report.novedades.page : null }} page={report.inscritos.page} pageCount={report.inscritos.pageCount} />
      </section>

      <section class="card" id="novedades">
        <h2>Novedades del mes ({String(report.novedades.total)})</h2>
        <table class="table" data-table="novedades">
          <thead>
            <tr>
              <th scope="col">Fecha</th>
              <th scope="col">Novedad</th>
              <th scope="col">Paciente</th>
              <th scope="col">Documento</th>
              <th scope="col">Detalle</th>
            </tr>
          </thead>
          <tbody>
            {report.novedades.rows.map((r) => (
              <tr data-tipo={r.tipo} data-paciente-id={String(r.pacienteId)}>
                <td data-label="Fecha">{formatDateEs(r.fecha)}</td>
                <td data-label="Novedad">{NOVEDAD_ROW_LABELS[r.tipo]}</td>
                <td data-label="Paciente">{patientLink(r.pacienteId, r.nombre, r.apellido)}</td>
                <td data-label="Documento">{r.documento}</td>
                <td data-label="Detalle">
                  {r.tipo === 'CAMBIO_ENTIDAD' ? `${r.entidadAnterior ?? '—'} → ${r.entidadNueva ?? '—'}` : (r.motivo ?? '')}
                </td>
              </tr>
            ))}
            {report.novedades.rows.length === 0 && (
              <tr>
                <td colSpan={5} class="muted">
                  Sin novedades en este mes.
                </td>
              </tr>
            )}
          </tbody>
        </table>
        <Pagination base="/dashboard/novedades/" params={{ ...params, page: report.inscritos.page > 1 ? report.inscritos.page : null }} page={report.novedades.page} pageCount={report.novedades.pageCount} pageParam="page_novedades" />
      </section>
    </>
  );
}

/** The whole page: the form, and the report when the form was valid. */
export function NovedadesPage({
  ctx,
  form,
  errors,
  maxMes,
  report,
}: {
  ctx: PageContext;
  form: NovedadesForm;
  errors: FieldErrors;
  maxMes: string;
  report: NovedadesReport | null;
}) {
  const title = report ? `Novedades de ${monthNameEs(report.mes)} · ${report.entidad}` : 'Informe de novedades';
  return (
    <Layout ctx={ctx} title={title}>
      <h1>{title}</h1>
      <p class="muted">
        Los pacientes de la cápita del mes para la entidad de salud y las novedades del mes: ciclos abiertos, suspendidos,
        reactivados y terminados, y cambios de entidad de salud.
      </p>
      <NovedadesFormView form={form} errors={errors} maxMes={maxMes} />
      {report && <ReportBody report={report} />}
    </Layout>
  );
}
