// Exam records for the generator (table exam_records of migration 20261122_0003_exams: one table, a `kind`
// column, the other kinds' columns null; decimals in hundredths). Written only when that table exists.

import { intBetween, pick, type Random } from './synthetic.js';
import type { Value } from './writer.js';

export const EXAM_TABLE = 'exam_records';

export interface ExamInput {
  id: number;
  ingresoId: number;
  fecha: string;
  /** ISO timestamp of the registration */
  at: string;
  userId: number;
  programa: string;
  /** position of the record in its cycle, 0 first */
  index: number;
}

/** Column order of the rows examRecord returns. */
export const EXAM_COLUMNS = [
  'id', 'ingreso_id', 'kind', 'fecha', 'registrado_por', 'created_at', 'observaciones',
  'tipo', 'iah', 'saturacion_minima', 'horas_uso_promedio', 'porcentaje_noches_4h', 'presion_cmh2o', 'fuga_lpm',
  'tipo_sesion', 'numero_sesion', 'isi', 'epworth',
  'nombre_examen', 'resultado',
  'anulado_at', 'anulado_por', 'motivo_anulacion',
] as const;
const COLUMN = Object.fromEntries(EXAM_COLUMNS.map((c, i) => [c, i])) as Record<(typeof EXAM_COLUMNS)[number], number>;

const OTROS = [
  ['Espirometría', 'Patrón normal'],
  ['Gases arteriales', 'Sin hipercapnia'],
  ['Valoración por otorrinolaringología', 'Hipertrofia de cornetes'],
  ['Electrocardiograma', 'Ritmo sinusal'],
  ['Perfil lipídico', 'Colesterol total 212 mg/dL'],
] as const;

const OBSERVACIONES = [
  'Paciente refiere mejoría del ronquido.',
  'Se ajusta mascarilla nasal por fuga.',
  'Somnolencia diurna persistente.',
  'Buena tolerancia al equipo.',
  'Se refuerza higiene del sueño.',
  null,
  null,
];

/** One record: monitoring mostly in the apnea program, psychology sessions mostly in the insomnia one. */
export function examRecord(r: Random, e: ExamInput): Value[] {
  const row: Value[] = new Array<Value>(EXAM_COLUMNS.length).fill(null);
  const set = (column: (typeof EXAM_COLUMNS)[number], value: Value) => {
    row[COLUMN[column]] = value;
  };
  set('id', e.id);
  set('ingreso_id', e.ingresoId);
  set('fecha', e.fecha);
  set('registrado_por', e.userId);
  set('created_at', e.at);
  set('observaciones', pick(r, OBSERVACIONES));
  const x = r();
  const monitoreo = e.programa === 'PROGRAMA AOS' ? x < 0.8 : x < 0.15;
  if (monitoreo) {
    const tipo = e.index === 0 ? pick(r, ['POLISOMNOGRAFIA', 'POLIGRAFIA']) : pick(r, ['TITULACION_CPAP', 'DESCARGA_CPAP', 'DESCARGA_CPAP', 'OXIMETRIA']);
    const cpap = tipo === 'DESCARGA_CPAP' || tipo === 'TITULACION_CPAP';
    set('kind', 'MONITOREO');
    set('tipo', tipo);
    set('iah', intBetween(r, 100, 6500));
    set('saturacion_minima', intBetween(r, 7000, 9600));
    if (cpap) {
      set('horas_uso_promedio', intBetween(r, 100, 850));
      set('porcentaje_noches_4h', intBetween(r, 2000, 10000));
      set('presion_cmh2o', intBetween(r, 500, 1500));
      set('fuga_lpm', intBetween(r, 0, 4000));
    }
  } else if (x < 0.9) {
    set('kind', 'PSICOLOGIA');
    set('tipo_sesion', e.index === 0 ? 'EVALUACION_INICIAL' : pick(r, ['TCC_I', 'TCC_I', 'SEGUIMIENTO', 'CIERRE']));
    set('numero_sesion', e.index + 1);
    set('isi', intBetween(r, 0, 28));
    set('epworth', intBetween(r, 0, 24));
  } else {
    const [nombre, resultado] = pick(r, OTROS);
    set('kind', 'OTRO');
    set('nombre_examen', nombre);
    set('resultado', resultado);
  }
  return row;
}
