// Clinical bands shown beside exam values (decisions §7). Each answers { code, label }: `code` is a stable
// ASCII slug for CSS classes and tests, `label` the Spanish text. Inputs are in natural units (events/hour,
// hours, %, points, kg/m²): values stored as integer hundredths are divided by 100 first (exact at the band
// edges, since e.g. 1500 / 100 === 15). Missing or out-of-range input gives null: no band is shown.

export interface Band<C extends string = string> {
  readonly code: C;
  readonly label: string;
}

function isNumber(x: number | null | undefined): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

export type AhiSeverityCode = 'normal' | 'leve' | 'moderada' | 'severa';

/** Apnea-hypopnea index (events/hour): normal < 5, leve 5–<15, moderada 15–<30, severa ≥ 30. */
export function ahiSeverity(iah: number | null | undefined): Band<AhiSeverityCode> | null {
  if (!isNumber(iah) || iah < 0) return null;
  if (iah < 5) return { code: 'normal', label: 'Normal' };
  if (iah < 15) return { code: 'leve', label: 'Leve' };
  if (iah < 30) return { code: 'moderada', label: 'Moderada' };
  return { code: 'severa', label: 'Severa' };
}

export type CpapAdherenceCode = 'adherente' | 'no_adherente';

/** CPAP adherence: ≥ 4 h average use on ≥ 70 % of nights. Null unless both values are known. */
export function cpapAdherence(
  horasUsoPromedio: number | null | undefined,
  porcentajeNoches4h: number | null | undefined,
): Band<CpapAdherenceCode> | null {
  if (!isNumber(horasUsoPromedio) || !isNumber(porcentajeNoches4h)) return null;
  if (horasUsoPromedio < 0 || horasUsoPromedio > 24 || porcentajeNoches4h < 0 || porcentajeNoches4h > 100) return null;
  return horasUsoPromedio >= 4 && porcentajeNoches4h >= 70
    ? { code: 'adherente', label: 'Adherente' }
    : { code: 'no_adherente', label: 'No adherente' };
}

export type EpworthBandCode = 'normal' | 'leve' | 'moderada' | 'severa';

/** Epworth Sleepiness Scale (0–24): 0–10 normal, 11–12 leve, 13–15 moderada, 16–24 severa. */
export function epworthBand(score: number | null | undefined): Band<EpworthBandCode> | null {
  if (!isNumber(score) || !Number.isInteger(score) || score < 0 || score > 24) return null;
  if (score <= 10) return { code: 'normal', label: 'Normal' };
  if (score <= 12) return { code: 'leve', label: 'Somnolencia leve' };
  if (score <= 15) return { code: 'moderada', label: 'Somnolencia moderada' };
  return { code: 'severa', label: 'Somnolencia severa' };
}

export type IsiBandCode = 'sin_insomnio' | 'subumbral' | 'moderado' | 'severo';

/** Insomnia Severity Index (0–28): 0–7 none, 8–14 subthreshold, 15–21 moderate, 22–28 severe. */
export function isiBand(score: number | null | undefined): Band<IsiBandCode> | null {
  if (!isNumber(score) || !Number.isInteger(score) || score < 0 || score > 28) return null;
  if (score <= 7) return { code: 'sin_insomnio', label: 'Sin insomnio clínicamente significativo' };
  if (score <= 14) return { code: 'subumbral', label: 'Insomnio subumbral' };
  if (score <= 21) return { code: 'moderado', label: 'Insomnio clínico moderado' };
  return { code: 'severo', label: 'Insomnio clínico severo' };
}

export type ImcBandCode = 'bajo_peso' | 'normal' | 'sobrepeso' | 'obesidad_1' | 'obesidad_2' | 'obesidad_3';

/**
 * IMC (kg/m², as given by patient.rules `imc`, one decimal): < 18.5 bajo peso, 18.5–24.9 normal,
 * 25–29.9 sobrepeso, 30–34.9 obesidad I, 35–39.9 obesidad II, ≥ 40 obesidad III. Edges are half-open
 * (< 25 is normal) so an unrounded value also lands in exactly one band.
 */
export function imcBand(imc: number | null | undefined): Band<ImcBandCode> | null {
  if (!isNumber(imc) || imc <= 0) return null;
  if (imc < 18.5) return { code: 'bajo_peso', label: 'Bajo peso' };
  if (imc < 25) return { code: 'normal', label: 'Normal' };
  if (imc < 30) return { code: 'sobrepeso', label: 'Sobrepeso' };
  if (imc < 35) return { code: 'obesidad_1', label: 'Obesidad grado I' };
  if (imc < 40) return { code: 'obesidad_2', label: 'Obesidad grado II' };
  return { code: 'obesidad_3', label: 'Obesidad grado III' };
}

// ---------------------------------------------------------------------------------------------------------
// Kinds, choice lists and limits of the exam forms (decisions §7). Values on the wire are exactly the spec's.

export const EXAM_KINDS = [
  { value: 'MONITOREO', label: 'Monitoreo' },
  { value: 'PSICOLOGIA', label: 'Psicología' },
  { value: 'OTRO', label: 'Otro examen' },
] as const;
export type ExamKindValue = (typeof EXAM_KINDS)[number]['value'];

export const TIPOS_MONITOREO = [
  { value: 'POLISOMNOGRAFIA', label: 'Polisomnografía' },
  { value: 'POLIGRAFIA', label: 'Poligrafía respiratoria' },
  { value: 'TITULACION_CPAP', label: 'Titulación de CPAP' },
  { value: 'DESCARGA_CPAP', label: 'Descarga de datos del CPAP' },
  { value: 'OXIMETRIA', label: 'Oximetría' },
] as const;

export const TIPOS_SESION = [
  { value: 'EVALUACION_INICIAL', label: 'Evaluación inicial' },
  { value: 'TCC_I', label: 'TCC-I (terapia cognitivo-conductual para insomnio)' },
  { value: 'SEGUIMIENTO', label: 'Seguimiento' },
  { value: 'CIERRE', label: 'Cierre' },
] as const;

export const EXAM_TEXT_MAX = {
  observaciones: 2000,
  nombre_examen: 200,
  resultado: 2000,
  motivo_anulacion: 2000,
} as const;

/** Upper bounds of the decimal monitoring values, in hundredths (iah 0–200 → 20000). */
export const MONITOREO_MAX_HUNDREDTHS = {
  iah: 20000,
  saturacion_minima: 10000,
  horas_uso_promedio: 2400,
  porcentaje_noches_4h: 10000,
  presion_cmh2o: 3000,
  fuga_lpm: 20000,
} as const;

/** Ranges of the whole-number psychology values. */
export const PSICOLOGIA_RANGES = {
  numero_sesion: [1, 50],
  isi: [0, 28],
  epworth: [0, 24],
} as const;

// ---------------------------------------------------------------------------------------------------------
// Trend of one value across a cycle.

export type TrendDirection = 'sube' | 'baja' | 'estable';

export interface Trend {
  first: number;
  last: number;
  /** last − first, in the series' unit. */
  delta: number;
  direction: TrendDirection;
}

/**
 * Trend of a series in chronological order: first and last value and the change between them. Null with fewer
 * than two values. Works on integers (hundredths or scores), so the delta is exact.
 */
export function trendOf(values: readonly number[]): Trend | null {
  if (values.length < 2) return null;
  const first = values[0]!;
  const last = values[values.length - 1]!;
  const delta = last - first;
  return { first, last, delta, direction: delta > 0 ? 'sube' : delta < 0 ? 'baja' : 'estable' };
}

// A measurement in hundredths for reading (12,5): in shared/decimal.ts, for the audit trail too.
export { formatMeasure } from '../shared/decimal.js';

/** One value of a cycle's trends: a record's measures the trend charts draw. */
export interface SeriesRow {
  id: number;
  fecha: string;
  iah: number | null;
  horas_uso_promedio: number | null;
  epworth: number | null;
  isi: number | null;
}

/**
 * The trend values of one cycle from its standing records (not voided): the monitoring and psychology records that
 * hold any of the charted measures, by fecha, then by id. Taken from the records the clinical view already read (a
 * statement of its own before, decision 0233).
 */
export function cycleSeries(
  standing: readonly (SeriesRow & { kind: string; anulado_at: string | null })[],
): SeriesRow[] {
  return standing
    .filter(
      (r) =>
        r.anulado_at === null &&
        (r.kind === 'MONITOREO' || r.kind === 'PSICOLOGIA') &&
        (r.iah !== null || r.horas_uso_promedio !== null || r.epworth !== null || r.isi !== null),
    )
    .map((r) => ({ id: r.id, fecha: r.fecha, iah: r.iah, horas_uso_promedio: r.horas_uso_promedio, epworth: r.epworth, isi: r.isi }))
    .sort((a, b) => (a.fecha < b.fecha ? -1 : a.fecha > b.fecha ? 1 : a.id - b.id));
}
