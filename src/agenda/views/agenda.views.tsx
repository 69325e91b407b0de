// The agenda's booking and visit pages, and what the day and worklist views share (issue 28).
import { formatDateEs, formatDateTimeEs } from '../../shared/dates.js';
import { ErrorSummary, SelectField, TextField, type Choice, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import { markupByChoice, type Markup, type PageContext } from '../../web/render.js';
import { CAN, estadoLabel, hhmm, longDateEs, minutesOfDay } from '../agenda.rules.js';
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

export const endOf = (hora: string | null, min: number | null) => {
  const start = hora === null ? null : minutesOfDay(hora);
  return start === null || min === null ? '' : hhmm(start + min);
};

/** Two catalogues with the same choices in the same order (a form rendered once stands for one). */
export const sameChoices = (a: readonly Choice[], b: readonly Choice[]) => a.length === b.length && a.every((c, i) => c.value === b[i]!.value && c.label === b[i]!.label);
export /** A select's markup per chosen value; a value outside its choices is rendered each time (markupByChoice). */
function selectMarkup(renderWith: (value: string) => ReturnType<typeof SelectField>, choices: readonly Choice[]): (value: string) => Markup {
  const known = new Set(choices.map((c) => c.value));
  return markupByChoice(renderWith, (v) => v === '' || known.has(v));
}

export const patientLink = (v: { paciente_id: number; nombre: string; apellido: string }) => <a href={`/patients/${v.paciente_id}/`}>{`${v.nombre} ${v.apellido}`}</a>;

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
