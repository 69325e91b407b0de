// The follow page's content (decisions §5 and §6). The patients come from the list pages' search and are shown with
// their record's labels: modules of patients/ that import nothing of ingresos/ (test/import-graph.test.ts).
import type { ListedPatient, ListPage } from '../../patients/patient.list.repository.js';
import { ENTIDADES_SALUD, labelOf, PROGRAMAS } from '../../patients/patient.rules.js';
import { formatDateEs, formatDateTimeEs } from '../../shared/dates.js';
import { countOf } from '../../shared/text.js';
import { listUrl } from '../../web/form.js';
import { CsrfField } from '../../web/layout.js';
import { Pagination } from '../../web/pagination.js';
import { cycleName } from '../cycle-number.js';
import type { HistoryEntry } from '../ingreso.repository.js';
import { isAtProgramLimit, MES_CAPITA_MAX, mesCapita, MOTIVO_MAX_LENGTH, OPEN_ESTADOS, type Estado } from '../ingreso.rules.js';
import type { IngresoRow } from '../ingreso.table.js';
import { FOLLOW_PATH } from './follow.links.js';

export interface FollowPatient {
  patient: ListedPatient;
  /** latest start first, each with its cycle number */
  ingresos: (IngresoRow & { numero: number })[];
}

export interface FollowPageProps {
  query: string;
  result: ListPage;
  patients: FollowPatient[];
  /** status history by Ingreso id, oldest first */
  history: Map<number, HistoryEntry[]>;
  today: string;
  timeZone: string;
}

const ESTADO_LABELS: Record<Estado, string> = { ACTIVO: 'Activo', SUSPENDIDO: 'Suspendido', TERMINADO: 'Terminado' };

const estadoUrl = (ingresoId: number, estado: Estado) => `/patients/ingreso/estado/${ingresoId}/${estado}/`;
/** The page that asks before terminating, keeping the search and page to come back to. */
const terminateUrl = (ingresoId: number, ret: Return) =>
  listUrl(`/patients/ingreso/terminar/${ingresoId}/`, { query_search: ret.query, page: ret.page > 1 ? ret.page : null });

/** Where each action form brings the person back to: the same search and page. */
interface Return {
  query: string;
  page: number;
}

function ReturnFields({ ret }: { ret: Return }) {
  return (
    <>
      {ret.query !== '' && <input type="hidden" name="query_search" value={ret.query} />}
      {ret.page > 1 && <input type="hidden" name="page" value={String(ret.page)} />}
    </>
  );
}

/** GET /patients/follow: every matching patient with all of its Ingresos and the actions each one allows. */
/** Everything the follow page shows inside the layout: rendered once per data version (decision 0016). */
export function FollowContent({ query, result, patients, history, today, timeZone }: FollowPageProps) {
  const ret: Return = { query, page: result.page };
  return (
    <>
      <div class="page-head">
        <h1>Seguimiento de ingresos</h1>
      </div>
      <form method="get" action={FOLLOW_PATH} class="filters" role="search">
        <div class="field">
          <label for="id_query_search">Buscar paciente</label>
          <input id="id_query_search" type="search" name="query_search" value={query} maxLength={200} placeholder="Nombre, apellido o documento" />
        </div>
        <button type="submit" class="button primary">
          Buscar
        </button>
        {query !== '' && (
          <a href={FOLLOW_PATH} class="button">
            Limpiar búsqueda
          </a>
        )}
      </form>
      <p class="result-count" data-total-count={String(result.total)}>
        {countOf(result.total, 'paciente encontrado', 'pacientes encontrados')}
      </p>
      {result.total > 0 && (
        <p class="export-link">
          <a href={listUrl('/patients/follow.csv', { query_search: query })}>Exportar CSV</a>
        </p>
      )}
      {patients.length === 0 ? (
        <p class="empty-state">
          {query !== ''
            ? 'Ningún paciente coincide con la búsqueda. Revise el texto o límpiela.'
            : 'Aún no hay pacientes registrados.'}
        </p>
      ) : (
        <div class="follow-list">
          {patients.map((p) => (
            <PatientCard item={p} history={history} today={today} timeZone={timeZone} ret={ret} />
          ))}
        </div>
      )}
      <Pagination base={FOLLOW_PATH} params={{ query_search: query }} page={result.page} pageCount={result.pageCount} />
    </>
  );
}

function PatientCard({
  item,
  history,
  today,
  timeZone,
  ret,
}: {
  item: FollowPatient;
  history: Map<number, HistoryEntry[]>;
  today: string;
  timeZone: string;
  ret: Return;
}) {
  const { patient, ingresos } = item;
  const hasOpen = ingresos.some((i) => OPEN_ESTADOS.includes(i.estado));
  const latestEnd = ingresos.reduce<string | null>(
    (max, i) => (i.estado === 'TERMINADO' && i.fecha_fin !== null && (max === null || i.fecha_fin > max) ? i.fecha_fin : max),
    null,
  );
  const headingId = `paciente_${patient.id}`;
  return (
    <section class="card follow-patient" data-patient-id={String(patient.id)} aria-labelledby={headingId}>
      <h2 id={headingId}>
        <a href={`/patients/${patient.id}/`}>
          {patient.nombre} {patient.apellido}
        </a>
      </h2>
      <p class="muted">
        {patient.tipo_documento} {patient.documento} · {labelOf(PROGRAMAS, patient.programa)} · {labelOf(ENTIDADES_SALUD, patient.entidad_salud)} ·{' '}
        {patient.ciudad}
      </p>
      {!hasOpen && <NewCycleForm patientId={patient.id} today={today} latestEnd={latestEnd} ret={ret} />}
      {ingresos.length === 0 ? (
        <p class="muted">Este paciente no tiene ingresos registrados.</p>
      ) : (
        <div class="ingresos">
          {ingresos.map((ingreso) => (
            <IngresoItem
              ingreso={ingreso}
              number={ingreso.numero}
              nombre={patient.nombre}
              history={history.get(ingreso.id) ?? []}
              today={today}
              timeZone={timeZone}
              ret={ret}
            />
          ))}
        </div>
      )}
    </section>
  );
}

function IngresoItem({
  ingreso,
  number,
  nombre,
  history,
  today,
  timeZone,
  ret,
}: {
  ingreso: IngresoRow;
  number: number;
  nombre: string;
  history: HistoryEntry[];
  today: string;
  timeZone: string;
  ret: Return;
}) {
  const open = OPEN_ESTADOS.includes(ingreso.estado);
  const mes = open ? mesCapita(ingreso.fecha_inicio, today) : null;
  const atLimit = open && isAtProgramLimit(ingreso.fecha_inicio, today);
  const prefix = `ingreso_${ingreso.id}_`;
  return (
    <article class="ingreso card" data-ingreso-id={String(ingreso.id)} data-estado={ingreso.estado}>
      <div class="ingreso-head">
        <strong>{cycleName(number)}</strong>{' '}
        <span class={`badge badge-${ingreso.estado}`}>{ESTADO_LABELS[ingreso.estado]}</span>
        {atLimit && (
          <>
            {' '}
            <span class="badge badge-bad" data-program-limit="true">
              Revisar: llegó al mes {MES_CAPITA_MAX}
            </span>
          </>
        )}
      </div>
      <dl class="summary">
        <dt>Fecha de inicio</dt>
        <dd>{formatDateEs(ingreso.fecha_inicio)}</dd>
        <dt>Fecha de fin</dt>
        <dd>{ingreso.fecha_fin ? formatDateEs(ingreso.fecha_fin) : '—'}</dd>
        {mes !== null && (
          <>
            <dt>Mes del programa</dt>
            <dd data-mes-capita={String(mes)}>
              {mes} de {MES_CAPITA_MAX}
            </dd>
          </>
        )}
        {ingreso.motivo && (
          <>
            <dt>Motivo</dt>
            <dd class="motivo">{ingreso.motivo}</dd>
          </>
        )}
      </dl>
      {open && (
        <div class="actions">
          {ingreso.estado === 'ACTIVO' && (
            <form method="post" action={estadoUrl(ingreso.id, 'SUSPENDIDO')} class="inline-form" data-action="suspender" novalidate>
              <CsrfField />
              <ReturnFields ret={ret} />
              <div class="field">
                <label for={`id_${prefix}suspender_motivo`}>Motivo de la suspensión (opcional)</label>
                <input id={`id_${prefix}suspender_motivo`} name="motivo_estado" type="text" maxLength={MOTIVO_MAX_LENGTH} />
              </div>
              <button type="submit" class="button small">
                Suspender
              </button>
            </form>
          )}
          {ingreso.estado === 'SUSPENDIDO' && (
            <form method="post" action={estadoUrl(ingreso.id, 'ACTIVO')} class="inline-form" data-action="reactivar">
              <CsrfField />
              <ReturnFields ret={ret} />
              <button type="submit" class="button small primary">
                Reactivar
              </button>
            </form>
          )}
          <a class="button small danger" href={terminateUrl(ingreso.id, ret)} data-action="terminar">
            Terminar…
          </a>
        </div>
      )}
      <HistoryDetails entries={history} timeZone={timeZone} ingresoId={ingreso.id} />
    </article>
  );
}

function HistoryDetails({ entries, timeZone, ingresoId }: { entries: HistoryEntry[]; timeZone: string; ingresoId: number }) {
  return (
    <details class="ingreso-history" id={`historial_${ingresoId}`}>
      <summary>Historial de estados ({entries.length})</summary>
      {entries.length === 0 ? (
        <p class="muted">Sin cambios registrados.</p>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={`Historial de estados del ingreso ${ingresoId}`}>
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Cuándo</th>
                <th scope="col">Quién</th>
                <th scope="col">Desde</th>
                <th scope="col">Hacia</th>
                <th scope="col">Fecha efectiva</th>
                <th scope="col">Motivo</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((h) => (
                <tr data-history-id={String(h.id)}>
                  <td data-label="Cuándo">{formatDateTimeEs(h.at, timeZone)}</td>
                  <td data-label="Quién">{h.username ?? '—'}</td>
                  <td data-label="Desde">{h.desde ?? 'Apertura'}</td>
                  <td data-label="Hacia">{h.hacia}</td>
                  <td data-label="Fecha efectiva">{h.fecha ? formatDateEs(h.fecha) : '—'}</td>
                  <td data-label="Motivo">{h.motivo ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}

function NewCycleForm({
  patientId,
  today,
  latestEnd,
  ret,
}: {
  patientId: number;
  today: string;
  latestEnd: string | null;
  ret: Return;
}) {
  const id = `id_paciente_${patientId}_fecha_inicio`;
  const suggested = latestEnd !== null && latestEnd > today ? latestEnd : today;
  return (
    <form method="post" action={`/patients/ingreso/nuevo/${patientId}/`} class="inline-form new-cycle" data-action="nuevo-ingreso" novalidate>
      <CsrfField />
      <ReturnFields ret={ret} />
      <div class="field">
        <label for={id}>Fecha de inicio del nuevo ingreso</label>
        <input id={id} name="fecha_inicio" type="date" value={suggested} min={latestEnd ?? undefined} required />
      </div>
      <button type="submit" class="button small primary">
        Nuevo ingreso
      </button>
    </form>
  );
}
