// What the referral sheet reads of one patient (issue 29, decision 0116) besides the open cycle with its number (read
// with the patient: findPatientWithOpenCycle): the latest value of each measure the clinic reports, with its date.
// The patient's own rows only (the record page is kept per patient, decision 0049); voided records never count.

import type { Executor } from '../db/database.js';
import { precompiled } from '../platform/writes/prepared.js';

export interface ReferralCycle {
  numero: number;
  estado: 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO';
  fecha_inicio: string;
}

export interface ReferralMeasures {
  /** the last polysomnography: IAH and minimum saturation (hundredths) */
  polisomnografia: { fecha: string; iah: number | null; saturacion_minima: number | null } | null;
  /** the last CPAP download: average hours of use and nights with ≥ 4 h (hundredths) */
  cpap: { fecha: string; horas_uso_promedio: number | null; porcentaje_noches_4h: number | null } | null;
  isi: { fecha: string; valor: number } | null;
  epworth: { fecha: string; valor: number } | null;
}

/**
 * The latest value of each measure across all the patient's cycles, each with the date of its record: one read of
 * the patient's records that hold any of them (not voided), newest first by date then by id, and the first of each
 * measure taken from it (a patient's records are tens; four statements cost a record page more than this).
 */
export async function findReferralMeasures(db: Executor, pacienteId: number): Promise<ReferralMeasures> {
  const rows = await selectMeasures(db, pacienteId);
  const psg = rows.find((r) => r.kind === 'MONITOREO' && r.tipo === 'POLISOMNOGRAFIA' && (r.iah !== null || r.saturacion_minima !== null));
  const cpap = rows.find((r) => r.kind === 'MONITOREO' && (r.horas_uso_promedio !== null || r.porcentaje_noches_4h !== null));
  const isi = rows.find((r) => r.isi !== null);
  const epworth = rows.find((r) => r.epworth !== null);
  return {
    polisomnografia: psg ? { fecha: psg.fecha, iah: psg.iah, saturacion_minima: psg.saturacion_minima } : null,
    cpap: cpap ? { fecha: cpap.fecha, horas_uso_promedio: cpap.horas_uso_promedio, porcentaje_noches_4h: cpap.porcentaje_noches_4h } : null,
    isi: isi ? { fecha: isi.fecha, valor: isi.isi! } : null,
    epworth: epworth ? { fecha: epworth.fecha, valor: epworth.epworth! } : null,
  };
}

const selectMeasures = precompiled((db: Executor, pacienteId: number) =>
  db
    .selectFrom('exam_records as e')
    .innerJoin('ingresos as i', 'i.id', 'e.ingreso_id')
    .select(['e.fecha', 'e.kind', 'e.tipo', 'e.iah', 'e.saturacion_minima', 'e.horas_uso_promedio', 'e.porcentaje_noches_4h', 'e.isi', 'e.epworth'])
    .where('i.paciente_id', '=', pacienteId)
    .where('e.anulado_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('e.iah', 'is not', null),
        eb('e.saturacion_minima', 'is not', null),
        eb('e.horas_uso_promedio', 'is not', null),
        eb('e.porcentaje_noches_4h', 'is not', null),
        eb('e.isi', 'is not', null),
        eb('e.epworth', 'is not', null),
      ]),
    )
    .orderBy('e.fecha', 'desc')
    .orderBy('e.id', 'desc'),
);
