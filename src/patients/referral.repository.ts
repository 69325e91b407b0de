// What the referral sheet reads of one patient (issue 29, decision 0116): the open cycle with its number and the
// latest value of each measure the clinic reports, with its date. The patient's own rows only (the record page
// is kept per patient, decision 0049); voided records never count.

import type { Executor } from '../db/database.js';
import { cycleNumberOf } from '../ingresos/cycle-number.js';

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

/** The patient's open cycle (ACTIVO or SUSPENDIDO; one at most) with its number, or null. */
export async function findOpenCycle(db: Executor, pacienteId: number): Promise<ReferralCycle | null> {
  const row = await db
    .selectFrom('ingresos')
    .select(['estado', 'fecha_inicio', cycleNumberOf('ingresos').as('numero')])
    .where('paciente_id', '=', pacienteId)
    .where('estado', 'in', ['ACTIVO', 'SUSPENDIDO'])
    .executeTakeFirst();
  return row ? { numero: Number(row.numero), estado: row.estado, fecha_inicio: row.fecha_inicio } : null;
}

/** The patient's records that count (not voided), newest first by date then by id: the start of each query. */
const records = (db: Executor, pacienteId: number) =>
  db
    .selectFrom('exam_records as e')
    .innerJoin('ingresos as i', 'i.id', 'e.ingreso_id')
    .where('i.paciente_id', '=', pacienteId)
    .where('e.anulado_at', 'is', null)
    .orderBy('e.fecha', 'desc')
    .orderBy('e.id', 'desc')
    .limit(1);

/** The latest value of each measure across all the patient's cycles, each with the date of its record. */
export async function findReferralMeasures(db: Executor, pacienteId: number): Promise<ReferralMeasures> {
  const psg = await records(db, pacienteId)
    .select(['e.fecha', 'e.iah', 'e.saturacion_minima'])
    .where('e.kind', '=', 'MONITOREO')
    .where('e.tipo', '=', 'POLISOMNOGRAFIA')
    .where((eb) => eb.or([eb('e.iah', 'is not', null), eb('e.saturacion_minima', 'is not', null)]))
    .executeTakeFirst();
  const cpap = await records(db, pacienteId)
    .select(['e.fecha', 'e.horas_uso_promedio', 'e.porcentaje_noches_4h'])
    .where('e.kind', '=', 'MONITOREO')
    .where((eb) => eb.or([eb('e.horas_uso_promedio', 'is not', null), eb('e.porcentaje_noches_4h', 'is not', null)]))
    .executeTakeFirst();
  const isi = await records(db, pacienteId).select(['e.fecha', 'e.isi']).where('e.isi', 'is not', null).executeTakeFirst();
  const epworth = await records(db, pacienteId).select(['e.fecha', 'e.epworth']).where('e.epworth', 'is not', null).executeTakeFirst();
  return {
    polisomnografia: psg ?? null,
    cpap: cpap ?? null,
    isi: isi ? { fecha: isi.fecha, valor: isi.isi! } : null,
    epworth: epworth ? { fecha: epworth.fecha, valor: epworth.epworth! } : null,
  };
}
