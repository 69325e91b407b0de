import type { CapitaByEntidad, GroupCount, LimitIngreso, StatusCounts } from '../dashboard.repository.js';
import { ENTIDADES_SALUD, PROGRAMAS, labelOf } from '../../patients/patient.rules.js';
import { formatDateEs } from '../../shared/dates.js';
import { formatCop } from '../../shared/decimal.js';
import { onePerKey } from '../../shared/collections.js';
import { countOf } from '../../shared/text.js';
import { FragmentSlot, renderFragment } from '../../web/render.js';
import { MesCapitaChart } from './chart.js';

const MESES = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];

/** 'YYYY-MM' → 'noviembre de 2026'. */
export function monthNameEs(mes: string): string {
  const [y, m] = mes.split('-');
  return `${MESES[Number(m) - 1] ?? m} de ${y}`;
}

export interface StaleMonitoring {
  pacienteId: number;
  nombre: string;
  apellido: string;
  documento: string;
  /** date of the latest monitoring record, or null when there is none */
  ultimo: string | null;
}

export interface DashboardData {
  today: string;
  mes: string;
  status: StatusCounts;
  cycles: { iniciados: number; finalizados: number };
  byPrograma: GroupCount[];
  byEntidad: GroupCount[];
  mesCapita: number[];
  capita: CapitaByEntidad[];
  atLimit: { total: number; rows: LimitIngreso[] };
  staleMonitoring: { total: number; rows: StaleMonitoring[] };
}

/** The capitation report form: values to show and the error to explain, if any. */
export interface CapitaForm {
  mes: string;
  entidad: string;
  error?: string;
}

/**
 * The page without its layout and report form, rendered (and escaped) by preact and encoded. It depends on the
 * figures alone, so it is rendered once per set of figures and kept with them (decisions 0012 and 0016).
 */
function Figure({ name, label, value }: { name: string; label: string; value: number }) {
  return (
    <div class="figure" data-figure={name}>
      <span class="figure-value">{String(value)}</span>
      <span class="figure-label">{label}</span>
    </div>
  );
}

function CountTable({ caption, name, rows, labels }: { caption: string; name: string; rows: GroupCount[]; labels: readonly { value: string; label: string }[] }) {
  const total = rows.reduce((a, r) => a + r.n, 0);
  return (
    <table class="table table-compact" data-table={name}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{name === 'programa' ? 'Programa' : 'Entidad de salud'}</th>
          <th scope="col">Pacientes</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr data-key={r.key}>
            <th scope="row">{labelOf(labels, r.key)}</th>
            <td data-count={String(r.n)}>{String(r.n)}</td>
          </tr>
        ))}
        {rows.length === 0 && (
          <tr>
            <td colSpan={2} class="muted">
              Sin pacientes.
            </td>
          </tr>
        )}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">Total</th>
          <td>{String(total)}</td>
        </tr>
      </tfoot>
    </table>
  );
}

export function DashboardSummary({ data }: { data: DashboardData }) {
  const capitaTotal = data.capita.reduce((a, r) => a + r.total, 0);
  const capitaPacientes = data.capita.reduce((a, r) => a + r.pacientes, 0);
  const monthName = monthNameEs(data.mes);
  return (
    <>
      <h1>Resumen del programa</h1>
      <p class="muted">
        Hoy es {formatDateEs(data.today)}. Cifras de {monthName}.
      </p>

      <section class="figures" aria-label="Cifras principales">
        <Figure name="activos" label="Pacientes con ingreso ACTIVO" value={data.status.activos} />
        <Figure name="suspendidos" label="Pacientes con ingreso SUSPENDIDO" value={data.status.suspendidos} />
        <Figure name="iniciados" label={`Ciclos iniciados en ${monthName}`} value={data.cycles.iniciados} />
        <Figure name="finalizados" label={`Ciclos finalizados en ${monthName}`} value={data.cycles.finalizados} />
      </section>

      <section class="card">
        <h2>Pacientes con un ciclo abierto</h2>
        <p class="muted">Cuentan los pacientes con un ingreso ACTIVO o SUSPENDIDO.</p>
        <div class="grid-2">
          <CountTable caption="Por programa" name="programa" rows={data.byPrograma} labels={PROGRAMAS} />
          <CountTable caption="Por entidad de salud" name="entidad" rows={data.byEntidad} labels={ENTIDADES_SALUD} />
        </div>
      </section>

      <section class="card">
        <h2>Distribución por mes de cápita</h2>
        <MesCapitaChart counts={data.mesCapita} />
      </section>

      <section class="card" id="capita">
        <h2>Cápita de {monthName}</h2>
        <p class="muted">Suma del valor de cápita de los pacientes con un ingreso ACTIVO, por entidad de salud.</p>
        <table class="table table-compact" data-table="capita">
          <thead>
            <tr>
              <th scope="col">Entidad de salud</th>
              <th scope="col">Pacientes</th>
              <th scope="col">Valor</th>
            </tr>
          </thead>
          <tbody>
            {data.capita.map((r) => (
              <tr data-key={r.entidad}>
                <th scope="row">{labelOf(ENTIDADES_SALUD, r.entidad)}</th>
                <td>{String(r.pacientes)}</td>
                <td class="money" data-value={String(r.total)}>{formatCop(r.total)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td>{String(capitaPacientes)}</td>
              <td class="money" data-value={String(capitaTotal)}>{formatCop(capitaTotal)}</td>
            </tr>
          </tfoot>
        </table>
      </section>
    </>
  );
}

/**
 * The capitation form in the dashboard: as sent (its values, its error) through the component, or, when nothing was
 * sent (every GET of the dashboard), this month's empty form, rendered once a month and placed as bytes (decision
 * 0275; the same bytes as the component, src/dashboard/views/dashboard.page.test.tsx).
 */
export function CapitaReport({ form, mes }: { form: CapitaForm | null; mes: string }) {
  if (form !== null) return <CapitaReportForm form={form} mes={mes} />;
  return <FragmentSlot fragment={emptyFormOf(mes)} />;
}

const emptyFormOf = onePerKey((mes: string) => renderFragment(<CapitaReportForm form={{ mes, entidad: '' }} mes={mes} />));

export function CapitaReportForm({ form, mes }: { form: CapitaForm; mes: string }) {
  return (
    <section class="card" id="capita-reporte">
      <h2>Descargar el reporte de cápita (CSV)</h2>
      <form method="get" action="/dashboard/capita.csv" class="filters" novalidate>
        {form.error && (
          <p class="message message-error" role="alert" data-message-level="error">
            {form.error}
          </p>
        )}
        <div class="field">
          <label for="id_mes">Mes (AAAA-MM)</label>
          <input
            id="id_mes"
            name="mes"
            type="month"
            value={form.mes}
            max={mes}
            required
            aria-invalid={form.error ? 'true' : undefined}
          />
        </div>
        <div class="field">
          <label for="id_entidad">Entidad de salud</label>
          <select id="id_entidad" name="entidad">
            <option value="">Todas</option>
            {ENTIDADES_SALUD.map((e) => (
              <option value={e.value} selected={e.value === form.entidad}>
                {e.label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="button primary">
          Descargar CSV
        </button>
      </form>
      <p class="hint">
        Mes actual: pacientes con ingreso ACTIVO hoy. Meses pasados: pacientes cuyo ingreso estuvo ACTIVO en algún momento de
        ese mes, según el historial de estados.
      </p>
      <p>
        <a href="/dashboard/novedades/">Informe de novedades del mes por entidad de salud</a>: los pacientes de la cápita y los
        ciclos abiertos, suspendidos, reactivados y terminados, y los cambios de entidad.
      </p>
      <p>
        <a href="/dashboard/rips/">RIPS del mes por entidad (JSON para la factura)</a>
      </p>
    </section>
  );
}

export function DashboardLists({ data }: { data: DashboardData }) {
  return (
    <>
      <section class="card" id="limite">
        <h2>Ingresos en el mes 18 o más</h2>
        <p class="muted">
          {data.atLimit.total === 0
            ? 'Ningún ingreso abierto ha llegado al mes 18.'
            : `${data.atLimit.total === 1 ? '1 ingreso abierto ha llegado' : `${countOf(data.atLimit.total, 'ingreso abierto', 'ingresos abiertos')} han llegado`} al límite de 18 meses y requieren revisión.`}
        </p>
        {data.atLimit.rows.length > 0 && (
          <table class="table" data-table="limite">
            <thead>
              <tr>
                <th scope="col">Paciente</th>
                <th scope="col">Documento</th>
                <th scope="col">Estado</th>
                <th scope="col">Inicio</th>
              </tr>
            </thead>
            <tbody>
              {data.atLimit.rows.map((r) => (
                <tr data-ingreso-id={String(r.ingresoId)}>
                  <td data-label="Paciente">
                    <a href={`/patients/follow?query_search=${encodeURIComponent(r.documento)}`}>
                      {r.nombre} {r.apellido}
                    </a>
                  </td>
                  <td data-label="Documento">{r.documento}</td>
                  <td data-label="Estado">
                    <span class={`badge badge-${r.estado}`}>{r.estado}</span>
                  </td>
                  <td data-label="Inicio">{formatDateEs(r.fechaInicio)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {data.atLimit.total > data.atLimit.rows.length && (
          <p class="muted">Se muestran los {data.atLimit.rows.length} más antiguos.</p>
        )}
      </section>

      <section class="card" id="sin-monitoreo">
          <h2>Pacientes activos sin monitoreo en los últimos 90 días</h2>
          <p class="muted">
            {data.staleMonitoring.total === 0
              ? 'Todos los pacientes activos tienen un monitoreo reciente.'
              : `${countOf(data.staleMonitoring.total, 'paciente', 'pacientes')} con ingreso ACTIVO sin registro de monitoreo en los últimos 90 días.`}
          </p>
          {data.staleMonitoring.rows.length > 0 && (
            <table class="table" data-table="sin-monitoreo">
              <thead>
                <tr>
                  <th scope="col">Paciente</th>
                  <th scope="col">Documento</th>
                  <th scope="col">Último monitoreo</th>
                </tr>
              </thead>
              <tbody>
                {data.staleMonitoring.rows.map((r) => (
                  <tr data-patient-id={String(r.pacienteId)}>
                    <td data-label="Paciente">
                      <a href={`/exams/${r.pacienteId}/`}>
                        {r.nombre} {r.apellido}
                      </a>
                    </td>
                    <td data-label="Documento">{r.documento}</td>
                    <td data-label="Último monitoreo">{r.ultimo ? formatDateEs(r.ultimo) : 'Nunca'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {data.staleMonitoring.total > data.staleMonitoring.rows.length && (
            <p class="muted">Se muestran los primeros {data.staleMonitoring.rows.length}.</p>
          )}
      </section>
    </>
  );
}
