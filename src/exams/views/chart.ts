// Geometry of the small server-drawn line charts of the clinical view (pure: numbers in, coordinates out).
// Points are spaced evenly in the order given (one step per record, labelled with its date below the chart);
// the y axis runs from 0 to a "nice" maximum so charts of the same value read alike from one patient to the next.

export interface ChartBox {
  width: number;
  height: number;
  top: number;
  right: number;
  bottom: number;
  left: number;
}

export const DEFAULT_BOX: ChartBox = { width: 320, height: 140, top: 12, right: 12, bottom: 24, left: 36 };

export interface ChartGeometry {
  box: ChartBox;
  /** Plot area edges in SVG units. */
  plot: { x0: number; x1: number; y0: number; y1: number };
  points: { x: number; y: number; value: number }[];
  /** The `points` attribute of the polyline. */
  polyline: string;
  /** Horizontal grid lines with their value: 0, half and the maximum. */
  ticks: { y: number; value: number }[];
  /** Reference lines (band edges) inside the scale. */
  guides: { y: number; value: number }[];
  yMax: number;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

/** The smallest of 1, 2, 2.5, 5 × 10^k that is ≥ n (and ≥ 1). */
export function niceCeil(n: number): number {
  if (!Number.isFinite(n) || n <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

/**
 * Lays out a series (natural units, chronological order) in the box. The scale tops at niceCeil of the largest
 * of the values and `minMax` (e.g. 30 for AHI, so the severe band is always in view), but never above `cap`
 * (the field's own maximum). Values outside 0..yMax are drawn at the edge.
 */
export function lineChartGeometry(
  values: readonly number[],
  options: { minMax: number; cap: number; guides?: readonly number[]; box?: ChartBox },
): ChartGeometry {
  const box = options.box ?? DEFAULT_BOX;
  const x0 = box.left;
  const x1 = box.width - box.right;
  const y0 = box.top;
  const y1 = box.height - box.bottom;
  const largest = values.reduce((m, v) => (v > m ? v : m), options.minMax);
  const yMax = Math.min(options.cap, niceCeil(largest));
  const yOf = (v: number) => round1(y1 - (Math.min(Math.max(v, 0), yMax) / yMax) * (y1 - y0));
  const n = values.length;
  const xOf = (i: number) => round1(n === 1 ? (x0 + x1) / 2 : x0 + (i * (x1 - x0)) / (n - 1));
  const points = values.map((value, i) => ({ x: xOf(i), y: yOf(value), value }));
  return {
    box,
    plot: { x0, x1, y0, y1 },
    points,
    polyline: points.map((p) => `${p.x},${p.y}`).join(' '),
    ticks: [0, yMax / 2, yMax].map((value) => ({ y: yOf(value), value })),
    guides: (options.guides ?? []).filter((g) => g > 0 && g < yMax).map((value) => ({ y: yOf(value), value })),
    yMax,
  };
}
