import type { IngresoRow } from '../../ingresos/ingreso.table.js';
import { mesCapita } from '../../ingresos/ingreso.rules.js';
import { cycleName } from '../../ingresos/cycle-number.js';
import type { PatientRow } from '../../patients/patient.table.js';
import { labelOf } from '../../patients/patient.rules.js';
import { formatDateEs } from '../../shared/dates.js';
import { EXAM_KINDS } from '../exam.rules.js';
import type { CycleSummary, ExamRecordView } from '../exam.repository.js';
import type { SeriesRow } from '../exam.rules.js';
import { CycleList, EstadoBadge, fullName, PatientSummary, RecordTimeline } from './components.js';
import { examFormLabels, ExamForms, KIND_PATHS, type PostedForm } from './forms.js';
import { ErrorSummary } from '../../web/fields.js';
import { openCycleOf } from './components.js';
import { ReferralHeader } from '../../patients/views/referral.js';
import { Trends } from './trends.js';
import type { BookedVisitOfDay } from '../../agenda/agenda.visits.repository.js';

export interface ClinicalViewData {
  patient: PatientRow;
  today: string;
  timeZone: string;
  /** The ACTIVO Ingreso, or null. */
  active: IngresoRow | null;
  records: ExamRecordView[];
  series: SeriesRow[];
  cycles: CycleSummary[];
  /** The patient's visits booked on the exam's date, which a record may mark attended. */
  visits: BookedVisitOfDay[];
  posted?: PostedForm;
}

export const clinicalTitle = (patient: PatientRow) => `Vista clínica · ${fullName(patient)}`;

/**
 * GET /exams/<patient_id>/ inside the layout: the patient, the ACTIVO cycle's records newest first, trends and
 * the forms. Without a posted form it depends on the data alone, and is rendered once per version (decision 0016).
 */
export function ClinicalContent({ data }: { data: ClinicalViewData }) {
  const { patient, today, active, cycles } = data;
  const suspended = cycles.find((c) => c.estado === 'SUSPENDIDO');
  const activeNumero = active ? cycles.find((c) => c.id === active.id)?.numero : undefined;
  return (
    <>
      <p class="no-print">
        <a href="/exams/">← Exámenes</a>
      </p>
      <ReferralHeader title="Vista clínica" patient={patient} cycle={openCycleOf(cycles)} today={today} />
      <h1>Vista clínica: {fullName(patient)}</h1>
      {data.posted && (
        <ErrorSummary
          errors={data.posted.errors}
          labels={examFormLabels(data.posted.kind)}
          idPrefix={`${KIND_PATHS[data.posted.kind]}_`}
          intro={`No se guardó el registro de ${labelOf(EXAM_KINDS, data.posted.kind).toLowerCase()}: revise los campos marcados.`}
        />
      )}
      <section class="card" aria-label="Resumen del paciente">
        <PatientSummary patient={patient} today={today} />
        {active && (
          <p class="active-ingreso" data-ingreso-id={String(active.id)} data-estado="ACTIVO">
            {activeNumero !== undefined ? cycleName(activeNumero) : 'Ciclo actual'} <EstadoBadge estado="ACTIVO" /> desde {formatDateEs(active.fecha_inicio)} · mes de cápita{' '}
            <strong data-mes-capita={String(mesCapita(active.fecha_inicio, today))}>{mesCapita(active.fecha_inicio, today)}</strong>
          </p>
        )}
      </section>
      {active ? (
        <>
          <Trends series={data.series} />
          <section aria-labelledby="timeline_h">
            <h2 id="timeline_h">Registros del ingreso actual</h2>
            <p class="actions no-print">
              Agregar: <a href="#form-monitoreo">Monitoreo</a> · <a href="#form-psicologia">Psicología</a> ·{' '}
              <a href="#form-otros">Otro examen</a>
            </p>
            <RecordTimeline patientId={patient.id} records={data.records} voidable timeZone={data.timeZone} />
          </section>
          <ExamForms patientId={patient.id} today={today} visits={data.visits} posted={data.posted} />
        </>
      ) : (
        <div class="message message-info no-activo" data-no-activo="true">
          <p>
            <strong>El paciente no tiene un ingreso ACTIVO.</strong> No se muestran registros ni se pueden agregar nuevos
            exámenes.
          </p>
          {suspended && (
            <p>
              El {cycleName(suspended.numero).toLowerCase()} está SUSPENDIDO. Para registrar exámenes, reactívelo en{' '}
              <a href="/patients/follow">Seguimiento</a>.
            </p>
          )}
          {cycles.length > 0 && <p>Los registros de ciclos anteriores se consultan en la lista de ingresos de abajo.</p>}
        </div>
      )}
      <section aria-labelledby="cycles_h">
        <h2 id="cycles_h">Ciclos del paciente</h2>
        <CycleList patientId={patient.id} cycles={cycles} />
      </section>
    </>
  );
}
