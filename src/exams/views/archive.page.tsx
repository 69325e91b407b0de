import type { IngresoRow } from '../../ingresos/ingreso.table.js';
import type { PatientRow } from '../../patients/patient.table.js';
import { formatDateEs } from '../../shared/dates.js';
import { Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import type { CycleSummary, ExamRecordView } from '../exam.repository.js';
import { cycleName } from '../../ingresos/cycle-number.js';
import { ReferralHeader } from '../../patients/views/referral.js';
import { CycleList, openCycleOf, EstadoBadge, fullName, PatientSummary, RecordTimeline } from './components.js';

/** GET /exams/<patient_id>/ingreso/<id>/: one cycle's records, voided ones included, read-only. */
export function ArchivePage({
  ctx,
  patient,
  ingreso,
  records,
  cycles,
  today,
  timeZone,
}: {
  ctx: PageContext;
  patient: PatientRow;
  ingreso: IngresoRow & { numero: number };
  records: ExamRecordView[];
  cycles: CycleSummary[];
  today: string;
  timeZone: string;
}) {
  const archived = ingreso.estado === 'TERMINADO';
  return (
    <Layout ctx={ctx} title={`${cycleName(ingreso.numero)} · ${fullName(patient)}`}>
      <p class="no-print">
        <a href={`/exams/${patient.id}/`}>← Vista clínica de {fullName(patient)}</a>
      </p>
      <ReferralHeader
        title={`${cycleName(ingreso.numero)}${archived ? ' (archivado)' : ''}`}
        patient={patient}
        cycle={openCycleOf(cycles)}
        today={today}
      />
      <h1>
        {cycleName(ingreso.numero)} de {fullName(patient)}
        {archived && (
          <>
            {' '}
            <span class="badge badge-TERMINADO archived-mark" data-archivado="true">
              Archivado
            </span>
          </>
        )}
      </h1>
      <section class="card" aria-label="Resumen del ingreso" data-ingreso-id={String(ingreso.id)} data-estado={ingreso.estado}>
        <dl class="summary">
          <dt>Estado</dt>
          <dd>
            <EstadoBadge estado={ingreso.estado} />
          </dd>
          <dt>Inicio</dt>
          <dd>{formatDateEs(ingreso.fecha_inicio)}</dd>
          <dt>Fin</dt>
          <dd>{ingreso.fecha_fin ? formatDateEs(ingreso.fecha_fin) : '—'}</dd>
          {ingreso.motivo && (
            <>
              <dt>Motivo</dt>
              <dd>{ingreso.motivo}</dd>
            </>
          )}
        </dl>
        <p class="muted">
          {archived
            ? 'Ciclo terminado y archivado: sus registros se conservan y solo se pueden consultar.'
            : 'Consulta de solo lectura del ciclo, con los registros anulados. Para agregar o anular registros use la vista clínica.'}
        </p>
      </section>
      <section class="card" aria-label="Resumen del paciente">
        <PatientSummary patient={patient} today={today} />
      </section>
      <section aria-labelledby="timeline_h">
        <h2 id="timeline_h">Registros del ciclo (del más reciente al más antiguo)</h2>
        <RecordTimeline patientId={patient.id} records={records} voidable={false} timeZone={timeZone} />
      </section>
      <section aria-labelledby="cycles_h">
        <h2 id="cycles_h">Ciclos del paciente</h2>
        <CycleList patientId={patient.id} cycles={cycles} current={ingreso.id} />
      </section>
    </Layout>
  );
}
