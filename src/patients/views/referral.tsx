// The referral sheet (issue 29, decision 0116): what a physician receiving the patient needs on one page. Printing
// the patient's record gives it (the record's screen sections, its form and its history are left off paper); the
// clinical view and a cycle's view print under the same header.

import { cycleName } from '../../ingresos/cycle-number.js';
import { MES_CAPITA_MAX, mesCapita } from '../../ingresos/ingreso.rules.js';
import { formatDateEs } from '../../shared/dates.js';
import { formatMeasure } from '../../shared/decimal.js';
import { DIAGNOSTICOS, edad, ENTIDADES_SALUD, labelOf, PROGRAMAS, TIPOS_DOCUMENTO } from '../patient.rules.js';
import type { PatientRow } from '../patient.table.js';
import type { ReferralCycle, ReferralMeasures } from '../referral.repository.js';

const ESTADO_TEXT = { ACTIVO: 'activo', SUSPENDIDO: 'suspendido', TERMINADO: 'terminado' } as const;

/** The current cycle as one line: 'Ciclo 2 · activo desde el 01/03/2026 · mes 9 de 18'. */
export function cycleLine(cycle: ReferralCycle | null, today: string): string {
  if (cycle === null) return 'Sin ciclo abierto';
  const mes = mesCapita(cycle.fecha_inicio, today);
  return `${cycleName(cycle.numero)} · ${ESTADO_TEXT[cycle.estado]} desde el ${formatDateEs(cycle.fecha_inicio)} · mes ${mes} de ${MES_CAPITA_MAX}`;
}

/**
 * The header of every paper copy of a patient: what it is, who (name, document, birth and age), the program and
 * insurer, the diagnosis, the current cycle and its month, the referring physician, and the day it was printed.
 * Hidden on screen.
 */
export function ReferralHeader({ title, patient, cycle, today }: { title: string; patient: PatientRow; cycle: ReferralCycle | null; today: string }) {
  const p = patient;
  const rows: [string, string][] = [
    ['Documento', `${labelOf(TIPOS_DOCUMENTO, p.tipo_documento)} ${p.documento}`],
    ['Nacimiento', `${formatDateEs(p.fecha_nacimiento)} (${edad(p.fecha_nacimiento, today)} años)`],
    ['Programa', labelOf(PROGRAMAS, p.programa)],
    ['Entidad de salud', labelOf(ENTIDADES_SALUD, p.entidad_salud)],
    ['Diagnóstico', `${p.diagnostico_clinico} · ${labelOf(DIAGNOSTICOS, p.diagnostico_clinico)}`],
    ['Ciclo actual', cycleLine(cycle, today)],
    ['Médico remitente', p.especialidad ? `${p.medico_remitente} (${p.especialidad})` : p.medico_remitente],
  ];
  return (
    <header class="print-only print-header referral-header" data-referral-header>
      <p class="print-header-title">Somno · {title}</p>
      <p class="referral-name">
        <strong>
          {p.nombre} {p.apellido}
        </strong>
      </p>
      <dl class="summary referral-data">
        {rows.map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </>
        ))}
      </dl>
      <p class="referral-printed">Impreso el {formatDateEs(today)}</p>
    </header>
  );
}

const measure = (n: number | null, unit: string) => (n === null ? '—' : `${formatMeasure(n)} ${unit}`);

/** The latest value of each measure with the date of its record; '—' where none was registered. */
export function ReferralResults({ measures }: { measures: ReferralMeasures }) {
  const { polisomnografia: psg, cpap, isi, epworth } = measures;
  const rows: [string, string, string | null][] = [
    ['IAH (última polisomnografía)', psg ? measure(psg.iah, 'eventos/h') : '—', psg?.fecha ?? null],
    ['Saturación mínima (última polisomnografía)', psg ? measure(psg.saturacion_minima, '%') : '—', psg?.fecha ?? null],
    ['Horas de uso del CPAP (promedio)', cpap ? measure(cpap.horas_uso_promedio, 'h') : '—', cpap?.fecha ?? null],
    ['Noches con uso ≥ 4 h', cpap ? measure(cpap.porcentaje_noches_4h, '%') : '—', cpap?.fecha ?? null],
    ['ISI (severidad del insomnio)', isi ? String(isi.valor) : '—', isi?.fecha ?? null],
    ['Epworth (somnolencia)', epworth ? String(epworth.valor) : '—', epworth?.fecha ?? null],
  ];
  return (
    <section class="referral-results" aria-labelledby="referral-results-title">
      <h2 id="referral-results-title">Últimos resultados</h2>
      <table class="table table-compact" data-table="referral-results">
        <thead>
          <tr>
            <th scope="col">Medida</th>
            <th scope="col">Valor</th>
            <th scope="col">Fecha</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([label, value, fecha]) => (
            <tr>
              <th scope="row">{label}</th>
              <td data-label="Valor">{value}</td>
              <td data-label="Fecha">{fecha ? formatDateEs(fecha) : 'Sin registro'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The sheet as printed from the patient's record: the header, then the results. Hidden on screen. */
export function ReferralSheet({ patient, cycle, measures, today }: { patient: PatientRow; cycle: ReferralCycle | null; measures: ReferralMeasures; today: string }) {
  return (
    <div class="print-only referral-sheet" data-referral-sheet>
      <ReferralHeader title="Hoja de remisión" patient={patient} cycle={cycle} today={today} />
      <ReferralResults measures={measures} />
    </div>
  );
}
