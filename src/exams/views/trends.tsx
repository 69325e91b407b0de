// "Últimos valores y tendencia": the latest value of AHI, hours of CPAP use, Epworth and ISI in the cycle, its
// change since the first one, and a small SVG line chart when there are two or more values, with the same
// data as a table (the chart's text equivalent).

import { formatDateEs } from '../../shared/dates.js';
import type { SeriesRow } from '../exam.rules.js';
import { ahiSeverity, epworthBand, formatMeasure, isiBand, trendOf, type Band } from '../exam.rules.js';
import { lineChartGeometry } from './chart.js';
import { BandBadge } from './components.js';

interface Metric {
  key: 'iah' | 'horas_uso_promedio' | 'epworth' | 'isi';
  label: string;
  unit: string;
  /** Stored in hundredths (decimal) or as a whole number (score). */
  hundredths: boolean;
  /** The scale's least maximum and hard cap, in natural units. */
  minMax: number;
  cap: number;
  /** Band edges drawn as reference lines. */
  guides: number[];
  band: ((natural: number) => Band | null) | null;
}

export const METRICS: readonly Metric[] = [
  { key: 'iah', label: 'IAH', unit: 'eventos/h', hundredths: true, minMax: 30, cap: 200, guides: [5, 15, 30], band: ahiSeverity },
  { key: 'horas_uso_promedio', label: 'Horas de uso del CPAP', unit: 'h', hundredths: true, minMax: 8, cap: 24, guides: [4], band: null },
  { key: 'epworth', label: 'Epworth', unit: 'puntos', hundredths: false, minMax: 24, cap: 24, guides: [11, 13, 16], band: epworthBand },
  { key: 'isi', label: 'ISI', unit: 'puntos', hundredths: false, minMax: 28, cap: 28, guides: [8, 15, 22], band: isiBand },
];

const TREND_WORDS = { sube: 'aumentó', baja: 'disminuyó', estable: 'sin cambio' } as const;

function MetricTrend({ metric, points }: { metric: Metric; points: { fecha: string; value: number }[] }) {
  const natural = (v: number) => (metric.hundredths ? v / 100 : v);
  const show = (v: number) => (metric.hundredths ? formatMeasure(v) : String(v));
  const last = points[points.length - 1]!;
  const trend = trendOf(points.map((p) => p.value));
  const id = `trend_${metric.key}`;
  const summary =
    `${metric.label}: último ${show(last.value)} ${metric.unit} (${formatDateEs(last.fecha)})` +
    (trend
      ? `; primero ${show(trend.first)} ${metric.unit} (${formatDateEs(points[0]!.fecha)}); ${TREND_WORDS[trend.direction]}` +
        (trend.delta === 0 ? '' : ` ${show(Math.abs(trend.delta))} ${metric.unit}`) +
        ` en ${points.length} registros.`
      : '.');
  return (
    <section class="trend card" data-trend={metric.key} data-trend-direction={trend?.direction} aria-labelledby={`${id}_h`}>
      <h3 id={`${id}_h`}>{metric.label}</h3>
      <p class="trend-latest">
        Último: <strong>{show(last.value)}</strong> {metric.unit} <BandBadge band={metric.band?.(natural(last.value)) ?? null} kind={metric.key} />{' '}
        <span class="muted">({formatDateEs(last.fecha)})</span>
      </p>
      {trend && (
        <p class={`trend-change trend-${trend.direction}`}>
          {trend.direction === 'sube' ? '↑' : trend.direction === 'baja' ? '↓' : '→'} {TREND_WORDS[trend.direction]}
          {trend.delta === 0 ? '' : ` ${show(Math.abs(trend.delta))} ${metric.unit}`} desde el primer registro del ciclo (
          {show(trend.first)} {metric.unit})
        </p>
      )}
      {trend && <Chart id={id} metric={metric} points={points.map((p) => ({ ...p, natural: natural(p.value), shown: show(p.value) }))} summary={summary} />}
    </section>
  );
}

function Chart({
  id,
  metric,
  points,
  summary,
}: {
  id: string;
  metric: Metric;
  points: { fecha: string; natural: number; shown: string }[];
  summary: string;
}) {
  const g = lineChartGeometry(
    points.map((p) => p.natural),
    { minMax: metric.minMax, cap: metric.cap, guides: metric.guides },
  );
  const first = points[0]!;
  const last = points[points.length - 1]!;
  return (
    <figure class="chart-figure">
      <svg class="chart" viewBox={`0 0 ${g.box.width} ${g.box.height}`} role="img" aria-labelledby={`${id}_desc`} data-chart={metric.key}>
        <desc id={`${id}_desc`}>{summary}</desc>
        {g.ticks.map((t) => (
          <>
            <line class="exam-chart-grid" x1={g.plot.x0} x2={g.plot.x1} y1={t.y} y2={t.y} />
            <text class="exam-chart-tick" x={g.plot.x0 - 4} y={t.y + 4}>
              {String(t.value).replace('.', ',')}
            </text>
          </>
        ))}
        {g.guides.map((t) => (
          <line class="exam-chart-guide" x1={g.plot.x0} x2={g.plot.x1} y1={t.y} y2={t.y} />
        ))}
        <polyline class="exam-chart-line" points={g.polyline} />
        {g.points.map((p, i) => (
          <circle class="exam-chart-point" cx={p.x} cy={p.y} r={3}>
            <title>{`${formatDateEs(points[i]!.fecha)}: ${points[i]!.shown} ${metric.unit}`}</title>
          </circle>
        ))}
        <text class="exam-chart-date exam-chart-date-start" x={g.plot.x0} y={g.box.height - 6}>
          {formatDateEs(first.fecha)}
        </text>
        <text class="exam-chart-date exam-chart-date-end" x={g.plot.x1} y={g.box.height - 6}>
          {formatDateEs(last.fecha)}
        </text>
      </svg>
      <details>
        <summary>Ver los datos del gráfico</summary>
        <table class="table table-compact">
          <caption class="sr-only">{`${metric.label} en el ciclo`}</caption>
          <thead>
            <tr>
              <th scope="col">Fecha</th>
              <th scope="col">{`${metric.label} (${metric.unit})`}</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr>
                <td>{formatDateEs(p.fecha)}</td>
                <td>{p.shown}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** One block per value that has at least one record in the cycle; nothing when none has. */
export function Trends({ series }: { series: SeriesRow[] }) {
  const blocks = METRICS.map((metric) => ({
    metric,
    points: series.flatMap((row) => {
      const value = row[metric.key];
      return value === null ? [] : [{ fecha: row.fecha, value }];
    }),
  })).filter((b) => b.points.length > 0);
  if (blocks.length === 0) return null;
  return (
    <section class="trends" aria-labelledby="trends_h">
      <h2 id="trends_h">Últimos valores y tendencia del ciclo</h2>
      <div class="grid-2">
        {blocks.map((b) => (
          <MetricTrend metric={b.metric} points={b.points} />
        ))}
      </div>
    </section>
  );
}
