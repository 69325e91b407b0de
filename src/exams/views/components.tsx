// Pieces shared by the clinical view and the archive view of a cycle.

import { edad, ENTIDADES_SALUD, imc, labelOf, PROGRAMAS, TIPOS_DOCUMENTO } from '../../patients/patient.rules.js';
import type { PatientRow } from '../../patients/patient.table.js';
import { formatDateEs, formatDateTimeEs } from '../../shared/dates.js';
import { cycleName } from '../../ingresos/cycle-number.js';
import { CsrfField } from '../../web/layout.js';
import type { CycleSummary, ExamRecordView } from '../exam.repository.js';
import {
  ahiSeverity,
  cpapAdherence,
  EXAM_KINDS,
  EXAM_TEXT_MAX,
  epworthBand,
  formatMeasure,
  imcBand,
  isiBand,
  TIPOS_MONITOREO,
  TIPOS_SESION,
  type Band,
} from '../exam.rules.js';

export const fullName = (p: { nombre: string; apellido: string }) => `${p.nombre} ${p.apellido}`;

/** A clinical band as a badge; nothing when there is no band. */
export function BandBadge({ band, kind }: { band: Band | null; kind: string }) {
  if (!band) return null;
  return (
    <span class={`badge band band-${kind}-${band.code}`} data-band={`${kind}:${band.code}`}>
      {band.label}
    </span>
  );
}

export function EstadoBadge({ estado }: { estado: string }) {
  return <span class={`badge badge-${estado}`}>{estado}</span>;
}

export const formatImc = (value: number): string => String(value).replace('.', ',');

/** Name, documento, edad, IMC and its band, programa, entidad. */
export function PatientSummary({ patient, today }: { patient: PatientRow; today: string }) {
  const bmi = imc(patient.peso, patient.altura);
  return (
    <dl class="summary" data-patient-id={String(patient.id)}>
      <dt>Paciente</dt>
      <dd>
        <a href={`/patients/${patient.id}/`}>{fullName(patient)}</a>
      </dd>
      <dt>Documento</dt>
      <dd>
        <abbr title={labelOf(TIPOS_DOCUMENTO, patient.tipo_documento)}>{patient.tipo_documento}</abbr> {patient.documento}
      </dd>
      <dt>Edad</dt>
      <dd>{edad(patient.fecha_nacimiento, today)} años</dd>
      <dt>IMC</dt>
      <dd data-imc={bmi === null ? undefined : String(bmi)}>
        {bmi === null ? (
          <span class="muted">Sin peso y talla registrados</span>
        ) : (
          <>
            {formatImc(bmi)} kg/m² <BandBadge band={imcBand(bmi)} kind="imc" />
          </>
        )}
      </dd>
      <dt>Programa</dt>
      <dd>{labelOf(PROGRAMAS, patient.programa)}</dd>
      <dt>Entidad de salud</dt>
      <dd>{labelOf(ENTIDADES_SALUD, patient.entidad_salud)}</dd>
    </dl>
  );
}

/** The open cycle (ACTIVO or SUSPENDIDO) of a patient's cycles, for the paper header; null when none. */
export function openCycleOf(cycles: CycleSummary[]): { numero: number; estado: 'ACTIVO' | 'SUSPENDIDO'; fecha_inicio: string } | null {
  const open = cycles.find((c) => c.estado === 'ACTIVO' || c.estado === 'SUSPENDIDO');
  return open ? { numero: open.numero, estado: open.estado as 'ACTIVO' | 'SUSPENDIDO', fecha_inicio: open.fecha_inicio } : null;
}

/** All of the patient's cycles, each linking to its read-only view. */
export function CycleList({ patientId, cycles, current }: { patientId: number; cycles: CycleSummary[]; current?: number }) {
  if (cycles.length === 0) return <p class="muted">El paciente no tiene ingresos registrados.</p>;
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Ciclos del paciente">
      <table class="table cycles">
        <thead>
          <tr>
            <th scope="col">Ciclo</th>
            <th scope="col">Estado</th>
            <th scope="col">Inicio</th>
            <th scope="col">Fin</th>
            <th scope="col">Registros</th>
          </tr>
        </thead>
        <tbody>
          {cycles.map((c) => (
            <tr data-ingreso-id={String(c.id)} data-estado={c.estado}>
              <td data-label="Ciclo">
                {c.id === current ? (
                  <span aria-current="page">{cycleName(c.numero)}</span>
                ) : (
                  <a href={`/exams/${patientId}/ingreso/${c.id}/`}>
                    {cycleName(c.numero)}
                    {c.estado === 'TERMINADO' ? ' (archivado)' : ''}
                  </a>
                )}
              </td>
              <td data-label="Estado">
                <EstadoBadge estado={c.estado} />
              </td>
              <td data-label="Inicio">{formatDateEs(c.fecha_inicio)}</td>
              <td data-label="Fin">{c.fecha_fin ? formatDateEs(c.fecha_fin) : '—'}</td>
              <td data-label="Registros">{c.registros}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Value({ label, children }: { label: string; children: preact.ComponentChildren }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

const measure = (h: number | null, unit: string) => (h === null ? null : `${formatMeasure(h)} ${unit}`);

/** The values of one record with their clinical meaning beside them. */
function RecordValues({ r }: { r: ExamRecordView }) {
  if (r.kind === 'MONITOREO') {
    const adherence = cpapAdherence(
      r.horas_uso_promedio === null ? null : r.horas_uso_promedio / 100,
      r.porcentaje_noches_4h === null ? null : r.porcentaje_noches_4h / 100,
    );
    return (
      <dl class="exam-values">
        <Value label="Tipo">{labelOf(TIPOS_MONITOREO, r.tipo ?? '')}</Value>
        {r.iah !== null && (
          <Value label="IAH">
            {measure(r.iah, 'eventos/h')} <BandBadge band={ahiSeverity(r.iah / 100)} kind="iah" />
          </Value>
        )}
        {r.saturacion_minima !== null && <Value label="Saturación mínima">{measure(r.saturacion_minima, '%')}</Value>}
        {r.horas_uso_promedio !== null && <Value label="Horas de uso promedio">{measure(r.horas_uso_promedio, 'h')}</Value>}
        {r.porcentaje_noches_4h !== null && <Value label="Noches con uso ≥ 4 h">{measure(r.porcentaje_noches_4h, '%')}</Value>}
        {adherence && (
          <Value label="Adherencia al CPAP">
            <BandBadge band={adherence} kind="cpap" />
          </Value>
        )}
        {r.presion_cmh2o !== null && <Value label="Presión">{measure(r.presion_cmh2o, 'cmH₂O')}</Value>}
        {r.fuga_lpm !== null && <Value label="Fuga">{measure(r.fuga_lpm, 'L/min')}</Value>}
        {r.observaciones && <Value label="Observaciones">{r.observaciones}</Value>}
      </dl>
    );
  }
  if (r.kind === 'PSICOLOGIA') {
    return (
      <dl class="exam-values">
        <Value label="Tipo de sesión">{labelOf(TIPOS_SESION, r.tipo_sesion ?? '')}</Value>
        {r.numero_sesion !== null && <Value label="Sesión n.º">{r.numero_sesion}</Value>}
        {r.isi !== null && (
          <Value label="ISI">
            {r.isi} puntos <BandBadge band={isiBand(r.isi)} kind="isi" />
          </Value>
        )}
        {r.epworth !== null && (
          <Value label="Epworth">
            {r.epworth} puntos <BandBadge band={epworthBand(r.epworth)} kind="epworth" />
          </Value>
        )}
        {r.observaciones && <Value label="Observaciones">{r.observaciones}</Value>}
      </dl>
    );
  }
  return (
    <dl class="exam-values">
      <Value label="Examen">{r.nombre_examen}</Value>
      {r.resultado && <Value label="Resultado">{r.resultado}</Value>}
      {r.observaciones && <Value label="Observaciones">{r.observaciones}</Value>}
    </dl>
  );
}

function VoidForm({ patientId, record }: { patientId: number; record: ExamRecordView }) {
  const inputId = `motivo_anulacion_${record.id}`;
  return (
    <details class="void">
      <summary>Anular registro</summary>
      <form
        method="post"
        action={`/exams/${patientId}/registro/${record.id}/anular/`}
        class="inline-form"
        novalidate
        data-confirm="¿Anular este registro? Dejará de verse en la vista clínica y quedará en el historial del ingreso."
      >
        <CsrfField />
        <div class="field">
          <label for={inputId}>Motivo de la anulación</label>
          <input id={inputId} name="motivo_anulacion" type="text" required maxLength={EXAM_TEXT_MAX.motivo_anulacion} />
        </div>
        <button type="submit" class="button small danger">
          Anular
        </button>
      </form>
    </details>
  );
}

/**
 * Records newest first, each marked with its kind. In the clinical view each has a void form; in the archive
 * view voided records are shown marked, with who voided them and why.
 */
export function RecordTimeline({
  patientId,
  records,
  voidable,
  timeZone,
}: {
  patientId: number;
  records: ExamRecordView[];
  voidable: boolean;
  timeZone: string;
}) {
  if (records.length === 0) return <p class="muted">No hay registros en este ingreso.</p>;
  return (
    <ol class="exam-timeline">
      {records.map((r) => (
        <li>
          <article
            class={`exam-record exam-${r.kind.toLowerCase()}${r.anulado_at ? ' exam-anulado' : ''}`}
            data-exam-kind={r.kind}
            data-exam-id={String(r.id)}
            data-anulado={r.anulado_at ? 'true' : undefined}
          >
            <header class="exam-record-head">
              <span class={`badge kind kind-${r.kind}`}>{labelOf(EXAM_KINDS, r.kind)}</span>{' '}
              <time datetime={r.hora ? `${r.fecha}T${r.hora}` : r.fecha}>{formatDateEs(r.fecha)}{r.hora ? ` ${r.hora}` : ''}</time>
              {r.anulado_at && (
                <>
                  {' '}
                  <span class="badge badge-bad">Anulado</span>
                </>
              )}
              <span class="muted exam-meta">
                {' '}
                Registrado por <span data-registrado-por={r.registrado_por_username}>{r.registrado_por_username}</span> el{' '}
                {formatDateTimeEs(r.created_at, timeZone)} · n.º {r.id}
              </span>
            </header>
            <RecordValues r={r} />
            {r.anulado_at && (
              <p class="exam-void-note">
                Anulado por {r.anulado_por_username ?? '—'} el {formatDateTimeEs(r.anulado_at, timeZone)}. Motivo:{' '}
                {r.motivo_anulacion}
              </p>
            )}
            {voidable && !r.anulado_at && <VoidForm patientId={patientId} record={r} />}
          </article>
        </li>
      ))}
    </ol>
  );
}
