import { formatDateEs, formatDateTimeEs } from '../../shared/dates.js';
import { ErrorSummary, SelectField, TextField, type Choice, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import { CAN, estadoLabel, hhmm, longDateEs, minutesOfDay } from '../agenda.rules.js';
import type { BookedVisit } from '../agenda.day.repository.js';
import type { WorklistKind, WorklistRow } from '../agenda.worklists.repository.js';
import type { CitaEstado } from '../agenda.table.js';

export const BOOKING_LABELS = {
  patient_id: 'Paciente',
  tipo: 'Tipo de cita',
  fecha: 'Fecha',
  hora: 'Hora',
  duracion_min: 'Duración (minutos)',
  profesional: 'Profesional',
  recurso: 'Recurso (sala o equipo)',
  motivo: 'Motivo de la cancelación',
  exam_record_id: 'Registro clínico',
} as const;

const endOf = (hora: string | null, min: number | null) => {
  const start = hora === null ? null : minutesOfDay(hora);
  return start === null || min === null ? '' : hhmm(start + min);
};

const patientLink = (v: { paciente_id: number; nombre: string; apellido: string }) => <a href={`/patients/${v.paciente_id}/`}>{`${v.nombre} ${v.apellido}`}</a>;

function SlotFields({ values, errors, profesionales, recursos }: { values: FormValues; errors: FieldErrors; profesionales: Choice[]; recursos: Choice[] }) {
  return (
    <>
      <TextField name="fecha" label={BOOKING_LABELS.fecha} type="date" values={values} errors={errors} required hint="AAAA-MM-DD" />
      <TextField name="hora" label={BOOKING_LABELS.hora} values={values} errors={errors} required hint="HH:MM, por ejemplo 08:30" maxLength={5} />
      <TextField name="duracion_min" label={BOOKING_LABELS.duracion_min} values={values} errors={errors} required inputMode="numeric" maxLength={3} hint="De 1 a 480" />
      <SelectField name="profesional" label={BOOKING_LABELS.profesional} choices={profesionales} values={values} errors={errors} required />
      <SelectField name="recurso" label={BOOKING_LABELS.recurso} choices={recursos} values={values} errors={errors} placeholder="Ninguno" />
    </>
  );
}

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

// ---------------------------------------------------------------------------------------------------------

export interface BookingPageProps {
  ctx: PageContext;
  patient: { id: number; nombre: string; apellido: string; programa: string; cycle: { id: number; estado: string; fecha_inicio: string } | null };
  cycleVisits: { id: number; tipo: string; estado: CitaEstado; vence_el: string | null; fecha: string | null; hora: string | null; tipo_nombre: string }[];
  tipos: Choice[];
  profesionales: Choice[];
  recursos: Choice[];
  values: FormValues;
  errors: FieldErrors;
}

/** GET /agenda/citas/nueva/?patient_id=N: book a visit for a patient; the cycle's due visits listed beside. */
export function BookingPage(p: BookingPageProps) {
  const due = p.cycleVisits.filter((v) => v.estado === 'PENDIENTE' || v.estado === 'AGENDADA');
  return (
    <Layout ctx={p.ctx} title="Agendar cita">
      <p>
        <a href={`/patients/${p.patient.id}/`}>← {`${p.patient.nombre} ${p.patient.apellido}`}</a>
      </p>
      <h1>Agendar cita: {`${p.patient.nombre} ${p.patient.apellido}`}</h1>
      <p>
        {p.patient.programa}
        {p.patient.cycle ? ` · ciclo ${p.patient.cycle.estado.toLowerCase()} desde el ${formatDateEs(p.patient.cycle.fecha_inicio)}` : ' · sin ciclo'}
      </p>
      <form method="post" action="/agenda/citas/nueva/" class="card narrow-form" novalidate>
        <CsrfField />
        <input type="hidden" name="patient_id" value={String(p.patient.id)} />
        <ErrorSummary errors={p.errors} labels={BOOKING_LABELS} intro="No se agendó la cita: revise los campos marcados." />
        {p.errors.patient_id && (
          <p class="field-error" id="error_patient_id">
            {p.errors.patient_id}
          </p>
        )}
        <SelectField name="tipo" label={BOOKING_LABELS.tipo} choices={p.tipos} values={p.values} errors={p.errors} required />
        <SlotFields values={p.values} errors={p.errors} profesionales={p.profesionales} recursos={p.recursos} />
        <div class="actions">
          <button type="submit" class="button primary">
            Agendar
          </button>
        </div>
      </form>
      <h2>Citas del ciclo</h2>
      {due.length === 0 ? (
        <p>No tiene citas pendientes ni agendadas.</p>
      ) : (
        <table class="table table-compact">
          <thead>
            <tr>
              <th scope="col">Cita</th>
              <th scope="col">Vence</th>
              <th scope="col">Agendada</th>
            </tr>
          </thead>
          <tbody>
            {due.slice(0, 20).map((v) => (
              <tr>
                <td data-label="Cita">
                  <a href={`/agenda/citas/${v.id}/`}>{v.tipo_nombre}</a>
                </td>
                <td data-label="Vence">{v.vence_el ? formatDateEs(v.vence_el) : '—'}</td>
                <td data-label="Agendada">{v.fecha ? `${formatDateEs(v.fecha)} ${v.hora}` : 'No'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------------------

export interface VisitPageProps {
  ctx: PageContext;
  visit: {
    id: number;
    paciente_id: number;
    nombre: string;
    apellido: string;
    estado: CitaEstado;
    tipo_nombre: string;
    vence_el: string | null;
    fecha: string | null;
    hora: string | null;
    duracion_min: number | null;
    profesional: string | null;
    recurso: string | null;
    motivo: string | null;
    exam_record_id: number | null;
  };
  history: { at: string; desde: string | null; hacia: string; username: string | null }[];
  exams: Choice[];
  profesionales: Choice[];
  recursos: Choice[];
  values: FormValues;
  errors: FieldErrors;
  timeZone: string;
}

/** GET /agenda/citas/<id>/: a visit, its history and what can be done with it. */
export function VisitPage(p: VisitPageProps) {
  const v = p.visit;
  return (
    <Layout ctx={p.ctx} title={`Cita: ${v.tipo_nombre}`}>
      <p class="no-print">
        <a href={v.fecha ? `/agenda/?fecha=${v.fecha}` : '/agenda/'}>← Agenda</a>
      </p>
      <h1>
        {v.tipo_nombre}: {patientLink(v)}
      </h1>
      <ErrorSummary errors={p.errors} labels={BOOKING_LABELS} intro="No se hizo el cambio: revise los campos marcados." />
      <dl class="card">
        <dt>Estado</dt>
        <dd data-estado={v.estado}>{estadoLabel(v.estado)}</dd>
        {v.vence_el && (
          <>
            <dt>Vence</dt>
            <dd>{formatDateEs(v.vence_el)}</dd>
          </>
        )}
        {v.fecha && (
          <>
            <dt>Fecha y hora</dt>
            <dd>
              {longDateEs(v.fecha)}, {v.hora}–{endOf(v.hora, v.duracion_min)}
            </dd>
            <dt>Profesional</dt>
            <dd>{v.profesional ?? ''}</dd>
            <dt>Recurso</dt>
            <dd>{v.recurso ?? 'Ninguno'}</dd>
          </>
        )}
        {v.motivo && (
          <>
            <dt>Motivo</dt>
            <dd>{v.motivo}</dd>
          </>
        )}
        {v.exam_record_id !== null && (
          <>
            <dt>Registro clínico</dt>
            <dd>n.º {v.exam_record_id}</dd>
          </>
        )}
      </dl>
      {CAN.attend(v.estado) && (
        <div class="actions no-print">
          <form method="post" action={`/agenda/citas/${v.id}/atendida/`} class="inline-form" novalidate>
            <CsrfField />
            <SelectField name="exam_record_id" label={BOOKING_LABELS.exam_record_id} choices={p.exams} values={p.values} errors={p.errors} placeholder="Sin registro" />
            <button type="submit" class="button primary">
              Marcar atendida
            </button>
          </form>
          <form method="post" action={`/agenda/citas/${v.id}/no-asistio/`} class="inline-form" novalidate>
            <CsrfField />
            <button type="submit" class="button">
              No asistió
            </button>
          </form>
        </div>
      )}
      {CAN.reschedule(v.estado) && (
        <form method="post" action={`/agenda/citas/${v.id}/reprogramar/`} class="card narrow-form no-print" novalidate>
          <h2>Reprogramar</h2>
          <CsrfField />
          <SlotFields values={p.values} errors={p.errors} profesionales={p.profesionales} recursos={p.recursos} />
          <button type="submit" class="button">
            Reprogramar
          </button>
        </form>
      )}
      {CAN.cancel(v.estado) && (
        <form method="post" action={`/agenda/citas/${v.id}/cancelar/`} class="card narrow-form no-print" novalidate>
          <h2>Cancelar</h2>
          <CsrfField />
          <TextField name="motivo" label={BOOKING_LABELS.motivo} values={p.values} errors={p.errors} required maxLength={500} />
          <button type="submit" class="button danger">
            Cancelar la cita
          </button>
        </form>
      )}
      {v.estado === 'PENDIENTE' && (
        <p class="no-print">
          <a class="button" href={`/agenda/citas/nueva/?patient_id=${v.paciente_id}`}>
            Agendar
          </a>
        </p>
      )}
      <h2>Historial</h2>
      <table class="table table-compact">
        <thead>
          <tr>
            <th scope="col">Cuándo</th>
            <th scope="col">Cambio</th>
            <th scope="col">Quién</th>
          </tr>
        </thead>
        <tbody>
          {p.history.map((h) => (
            <tr>
              <td data-label="Cuándo">{formatDateTimeEs(h.at, p.timeZone)}</td>
              <td data-label="Cambio">{h.desde ? `${estadoLabel(h.desde)} → ${estadoLabel(h.hacia)}` : estadoLabel(h.hacia)}</td>
              <td data-label="Quién">{h.username ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------------------

export const WORKLISTS: { kind: WorklistKind; label: string }[] = [
  { kind: 'semana', label: 'Vencen esta semana, sin agendar' },
  { kind: 'vencidas', label: 'Vencidas' },
  { kind: 'inasistencias', label: 'Inasistencias sin reagendar' },
  { kind: 'sin_proxima', label: 'Activos sin próxima cita' },
  { kind: 'cpap', label: 'CPAP no adherentes' },
];

export interface WorklistPageProps {
  ctx: PageContext;
  kind: WorklistKind;
  rows: WorklistRow[];
  counts: Record<WorklistKind, number>;
  values: FormValues;
  programas: Choice[];
  entidades: Choice[];
  profesionales: Choice[];
  limit: number;
}

const cpapDetail = (d: string | null) => {
  if (d === null) return '';
  if (d === 'sin_control') return 'Sin control de CPAP en los primeros 90 días';
  const [h, n] = d.split('/');
  const fmt = (x: string | undefined) => (x === undefined || x === '' ? '—' : (Number(x) / 100).toLocaleString('es-CO'));
  return `Uso promedio ${fmt(h)} h, ${fmt(n)} % de noches ≥ 4 h`;
};

/** GET /agenda/pendientes/: the worklists, filterable by program, insurer and professional. */
export function WorklistPage(p: WorklistPageProps) {
  const query = (kind: WorklistKind) =>
    `/agenda/pendientes/?lista=${kind}${p.values.programa ? `&programa=${encodeURIComponent(p.values.programa)}` : ''}${p.values.entidad ? `&entidad=${encodeURIComponent(p.values.entidad)}` : ''}${p.values.profesional ? `&profesional=${p.values.profesional}` : ''}`;
  const current = WORKLISTS.find((w) => w.kind === p.kind)!;
  return (
    <Layout ctx={p.ctx} title="Pendientes de la agenda">
      <h1>Pendientes: {current.label}</h1>
      <nav class="actions" aria-label="Listas">
        {WORKLISTS.map((w) => (
          <a class={w.kind === p.kind ? 'button small primary' : 'button small'} href={query(w.kind)} aria-current={w.kind === p.kind ? 'page' : undefined} data-count={String(p.counts[w.kind])}>
            {w.label} ({p.counts[w.kind] > p.limit ? `más de ${p.limit}` : p.counts[w.kind]})
          </a>
        ))}
      </nav>
      <form method="get" action="/agenda/pendientes/" class="card inline-form" novalidate>
        <input type="hidden" name="lista" value={p.kind} />
        <SelectField name="programa" label="Programa" choices={p.programas} values={p.values} errors={{}} placeholder="Todos" />
        <SelectField name="entidad" label="Entidad" choices={p.entidades} values={p.values} errors={{}} placeholder="Todas" />
        <SelectField name="profesional" label="Profesional" choices={p.profesionales} values={p.values} errors={{}} placeholder="Todos" />
        <button type="submit" class="button">
          Filtrar
        </button>
      </form>
      {p.rows.length === 0 ? (
        <p>Nada pendiente en esta lista.</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Paciente</th>
              <th scope="col">Programa</th>
              <th scope="col">Entidad</th>
              <th scope="col">{p.kind === 'cpap' ? 'Último control' : p.kind === 'sin_proxima' ? 'Inicio del ciclo' : 'Fecha'}</th>
              <th scope="col">Detalle</th>
              <th scope="col">Acción</th>
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr data-paciente={String(r.paciente_id)}>
                <td data-label="Paciente">{patientLink(r)}</td>
                <td data-label="Programa">{r.programa}</td>
                <td data-label="Entidad">{r.entidad_salud}</td>
                <td data-label="Fecha">{r.fecha ? formatDateEs(r.fecha) : ''}</td>
                <td data-label="Detalle">{p.kind === 'cpap' ? cpapDetail(r.detalle) : (r.tipo_nombre ?? '')}</td>
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
    </Layout>
  );
}

/** The worklists' counts, on the dashboard: each a link to its list. */
export function AgendaCounts({ counts }: { counts: Record<WorklistKind, number> }) {
  return (
    <section class="card agenda-counts" aria-labelledby="agenda-counts-title">
      <h2 id="agenda-counts-title">Agenda: pendientes</h2>
      <ul>
        {WORKLISTS.map((w) => (
          <li data-worklist={w.kind} data-count={String(counts[w.kind])}>
            <a href={`/agenda/pendientes/?lista=${w.kind}`}>{w.label}</a>: {counts[w.kind] > 200 ? 'más de 200' : counts[w.kind]}
          </li>
        ))}
      </ul>
    </section>
  );
}
