// Pure rules of the dashboard and the capitation report: month arithmetic, the billing month of
// GET /dashboard/capita.csv, the geometry of the mes_capita chart. No I/O; "today" is an argument.

import { addMonthsToMonthStart, daysInMonth, monthStartOf, parseIsoMonth, splitIsoDate, toIsoDate } from '../shared/dates.js';
import { MES_CAPITA_MAX } from '../ingresos/ingreso.rules.js';

export interface MonthRange {
  /** 'YYYY-MM' */
  mes: string;
  /** first day, inclusive */
  start: string;
  /** first day of the next month, exclusive */
  end: string;
  /** last day of the month */
  last: string;
}

/** The month containing `date` as a half-open range of dates. */
export function monthRangeOf(date: string): MonthRange {
  const start = monthStartOf(date);
  const { year, month } = splitIsoDate(start);
  return {
    mes: start.slice(0, 7),
    start,
    end: addMonthsToMonthStart(start, 1),
    last: toIsoDate({ year, month, day: daysInMonth(year, month) }),
  };
}

export type CapitaMonth =
  | ({ kind: 'current' } & MonthRange)
  | ({ kind: 'past' } & MonthRange)
  | { kind: 'missing' }
  | { kind: 'invalid'; raw: string }
  | { kind: 'future'; mes: string };

/** The `mes` of GET /dashboard/capita.csv: this month, a past month, or why it cannot be used. */
export function parseCapitaMonth(raw: string | undefined, today: string): CapitaMonth {
  if (raw === undefined || raw.trim() === '') return { kind: 'missing' };
  const mes = parseIsoMonth(raw);
  if (mes === null) return { kind: 'invalid', raw: raw.slice(0, 40) };
  const current = monthRangeOf(today);
  if (mes > current.mes) return { kind: 'future', mes };
  if (mes === current.mes) return { kind: 'current', ...current };
  return { kind: 'past', ...monthRangeOf(`${mes}-01`) };
}

/** The date on which mes_capita is counted for a billing month: today for this month, else its last day. */
export function capitaReferenceDate(month: { kind: 'current' | 'past'; last: string }, today: string): string {
  return month.kind === 'current' ? today : month.last;
}

export const CAPITA_MESSAGES = {
  missing: 'Indique el mes del reporte de cápita (AAAA-MM, por ejemplo 2026-11).',
  invalid: (raw: string): string => `«${raw}» no es un mes válido. Use el formato AAAA-MM, por ejemplo 2026-11.`,
  future: (mes: string): string => `El mes ${mes} todavía no ha comenzado: el reporte de cápita solo existe para el mes actual o meses pasados.`,
  entidad: 'La entidad de salud indicada no existe. Elija ENTITY_A, ENTITY_B o todas.',
} as const;

/**
 * The lower bound of fecha_inicio for each mes_capita 1..17 (index 0 is month 1): an ACTIVO Ingreso is in
 * month m when fecha_inicio >= bound[m-1] and < bound[m-2]; below bound[16] it is month 18. Same rule as
 * mesCapita, so SQL can bucket with one CASE.
 */
export function mesCapitaLowerBounds(today: string): string[] {
  const thisMonth = monthStartOf(today);
  return Array.from({ length: MES_CAPITA_MAX - 1 }, (_, i) => addMonthsToMonthStart(thisMonth, -i));
}

// ---------------------------------------------------------------------------------------------------------
// Chart geometry: one bar per mes_capita 1..18, drawn by the server as SVG.
//
// One drawing for every width of screen (decision 0055): the SVG has no viewBox, so its 13 px labels stay 13 px
// on a phone and on a desktop, and it is as wide as its card. Vertical positions are pixels. A horizontal position
// in the plot (which starts `left` px from the drawing's left edge and ends `right` px from its right edge) is
// `share` of the plot's width past its start: written as a percentage of the drawing's width plus a translation
// in pixels (SVG attributes cannot add the two), `left + share × (W − left − right)` = `share × W` plus
// `left − share × (left + right)`. A bar's width is a share of the whole drawing, a little more than the same
// share of the plot, so the gap between bars is what keeps them apart.

/** A bar; its PlotPosition is its centre, where the month label under it and the count above it stand. */
export interface ChartBar extends PlotPosition {
  mes: number;
  count: number;
  /** left edge and width of the bar, in % of the drawing's width (moved by `offset` too) */
  xPct: number;
  widthPct: number;
  y: number;
  height: number;
}

export interface ChartGeometry {
  height: number;
  /** the plot starts `left` px from the left edge and ends `right` px from the right; bars stand on baseY */
  left: number;
  right: number;
  baseY: number;
  plotHeight: number;
  max: number;
  bars: ChartBar[];
  /** horizontal guide lines with their value */
  ticks: { value: number; y: number }[];
  /** the centre of the plot, under which the axis is named */
  axisLabel: PlotPosition;
}

/** A horizontal position in the plot: `centerPct` % of the drawing's width, moved `offset` px. */
export interface PlotPosition {
  centerPct: number;
  offset: number;
}

export type ChartFrame = { readonly height: number; readonly left: number; readonly right: number; readonly top: number; readonly bottom: number; readonly barShare: number };

/** The chart's frame: pixels, and each bar's width as a share of its slot (the rest is the gap). */
export const CHART: ChartFrame = { height: 260, left: 30, right: 6, top: 24, bottom: 40, barShare: 0.7 };

/** The top of the scale: the count itself up to 5, else 1, 2, 5 or 10 times a power of ten at or above it. */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  if (max <= 5) return Math.ceil(max);
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) {
    if (step * magnitude >= max) return step * magnitude;
  }
  return 10 * magnitude;
}

/** Whole-number guide values from 0 to max: every unit up to 5, else quarters, halves or just the ends. */
export function tickValues(max: number): number[] {
  if (max <= 5) return Array.from({ length: max + 1 }, (_, i) => i);
  const parts = max % 4 === 0 ? 4 : max % 2 === 0 ? 2 : 1;
  return Array.from({ length: parts + 1 }, (_, i) => (max / parts) * i);
}

/** Geometry of the bar chart for counts by mes_capita (counts[0] is month 1), rounded to 0.01 % and 0.1 px. */
export function barChartGeometry(counts: readonly number[], frame: ChartFrame = CHART): ChartGeometry {
  const { height, right, top, bottom, barShare } = frame;
  const max = niceMax(Math.max(0, ...counts));
  // The scale's labels end 5 px left of the plot; at 13 px a digit is under 8 wide, so none is cut off.
  const left = Math.max(frame.left, 5 + 8 * String(max).length + 4);
  const plotHeight = height - top - bottom;
  const baseY = height - bottom;
  const slot = 1 / counts.length;
  const px = (n: number) => Math.round(n * 10) / 10;
  const pct = (share: number) => Math.round(share * 10000) / 100;
  const at = (share: number): PlotPosition => ({ centerPct: pct(share), offset: px(left - share * (left + right)) });
  const bars = counts.map((count, i) => {
    const h = count <= 0 ? 0 : Math.max(1, (count / max) * plotHeight);
    const center = (i + 0.5) * slot;
    return {
      mes: i + 1,
      count,
      ...at(center),
      xPct: pct(center - (barShare * slot) / 2),
      widthPct: pct(barShare * slot),
      y: px(baseY - h),
      height: px(h),
    };
  });
  const ticks = tickValues(max).map((value) => ({ value, y: px(baseY - (value / max) * plotHeight) }));
  return { height, left, right, baseY, plotHeight, max, bars, ticks, axisLabel: at(0.5) };
}

/** Where a position stands in a drawing `width` px wide (what a browser makes of the geometry). */
export const pixelOf = (p: PlotPosition, width: number): number => (p.centerPct / 100) * width + p.offset;

/** Where a bar and its labels stand in a drawing `width` px wide. */
export function barInPixels(bar: ChartBar, width: number): { x: number; width: number; cx: number } {
  return { x: (bar.xPct / 100) * width + bar.offset, width: (bar.widthPct / 100) * width, cx: pixelOf(bar, width) };
}

// ---------------------------------------------------------------------------------------------------------
// The figures derived from the open Ingresos grouped by programa, entidad, estado and mes_capita (countOpenGroups).

export interface OpenGroupRow {
  programa: string;
  entidad_salud: string;
  estado: 'ACTIVO' | 'SUSPENDIDO';
  /** mes_capita 1..MES_CAPITA_MAX */
  mes: number;
  n: number;
  /** sum of valor_capita, hundredths */
  total: number;
}

export interface OpenSummary {
  status: { activos: number; suspendidos: number };
  /** open (ACTIVO or SUSPENDIDO) patients per programa / entidad_salud, only the keys present, in key order */
  byPrograma: { key: string; n: number }[];
  byEntidad: { key: string; n: number }[];
  /** ACTIVO per mes_capita (index 0 is month 1) */
  mesCapita: number[];
  /** ACTIVO patients and the sum of their valor_capita per entidad_salud, in key order */
  capita: { entidad: string; pacientes: number; total: number }[];
}

/** Code-point order, as the database's binary collation (the keys are the ASCII values the schema allows). */
const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function sumBy<T>(rows: readonly T[], key: (r: T) => string, value: (r: T) => number): [string, number][] {
  const sums = new Map<string, number>();
  for (const r of rows) sums.set(key(r), (sums.get(key(r)) ?? 0) + value(r));
  return [...sums].sort(([a], [b]) => byKey(a, b));
}

/** Open Ingresos of one (programa, entidad_salud, estado) started in the month `mes` ('YYYY-MM'), as counted by the database. */
export interface OpenMonthRow {
  programa: string;
  entidad_salud: string;
  estado: 'ACTIVO' | 'SUSPENDIDO';
  mes: string;
  n: number;
  total: number;
}

/**
 * The open Ingresos counted per month of their start, grouped by mes_capita as of `today`. Every bound of
 * mesCapitaLowerBounds is a month's first day, so all the Ingresos started in one month share their mes_capita:
 * the same buckets as grouping the Ingresos themselves. Groups that add up to nothing are left out, as a grouped
 * query over the Ingresos would.
 */
export function bucketOpenMonths(rows: readonly OpenMonthRow[], today: string): OpenGroupRow[] {
  const bounds = mesCapitaLowerBounds(today);
  const groups = new Map<string, OpenGroupRow>();
  for (const r of rows) {
    const start = `${r.mes}-01`;
    const index = bounds.findIndex((b) => start >= b);
    const mes = index === -1 ? bounds.length + 1 : index + 1;
    const key = `${r.programa}\u0000${r.entidad_salud}\u0000${r.estado}\u0000${mes}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { programa: r.programa, entidad_salud: r.entidad_salud, estado: r.estado, mes, n: r.n, total: r.total });
    else {
      group.n += r.n;
      group.total += r.total;
    }
  }
  return [...groups.values()].filter((g) => g.n !== 0);
}

/**
 * The dashboard's counts from the grouped open Ingresos: one open Ingreso per patient, so each count of
 * Ingresos is a count of patients.
 */
export function summarizeOpenGroups(rows: readonly OpenGroupRow[]): OpenSummary {
  const activos = rows.filter((r) => r.estado === 'ACTIVO');
  const mesCapita = Array.from({ length: MES_CAPITA_MAX }, () => 0);
  for (const r of activos) mesCapita[r.mes - 1]! += r.n;
  const totals = new Map(sumBy(activos, (r) => r.entidad_salud, (r) => r.total));
  return {
    status: {
      activos: activos.reduce((s, r) => s + r.n, 0),
      suspendidos: rows.filter((r) => r.estado === 'SUSPENDIDO').reduce((s, r) => s + r.n, 0),
    },
    byPrograma: sumBy(rows, (r) => r.programa, (r) => r.n).map(([key, n]) => ({ key, n })),
    byEntidad: sumBy(rows, (r) => r.entidad_salud, (r) => r.n).map(([key, n]) => ({ key, n })),
    mesCapita,
    capita: sumBy(activos, (r) => r.entidad_salud, (r) => r.n).map(([entidad, pacientes]) => ({ entidad, pacientes, total: totals.get(entidad)! })),
  };
}
