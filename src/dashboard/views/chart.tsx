import { barChartGeometry, CHART_FRAMES, type ChartFrame } from '../dashboard.rules.js';

/**
 * The distribution of ACTIVO Ingresos over mes_capita 1..18 as SVG drawn on the server: visible without
 * scripts, styled by classes of the stylesheet (the CSP forbids style attributes; the chart's colours and its 13-unit
 * labels are written once there rather than on each of the ~60 elements of each of its three drawings). It is drawn
 * once per width of screen (CHART_FRAMES), the stylesheet showing the one that fits, so its labels read at 11 px
 * or more on a phone and on a desktop; the hidden ones are display: none, out of the accessibility tree. The
 * same figures follow as a table (for screen readers, and for anyone under "Ver los datos del gráfico").
 */
export function MesCapitaChart({ counts }: { counts: readonly number[] }) {
  const total = counts.reduce((a, b) => a + b, 0);
  const described = counts.map((n, i) => `mes ${i + 1}: ${n}`).join('; ');
  return (
    <figure class="chart-figure">
      {(Object.keys(CHART_FRAMES) as (keyof typeof CHART_FRAMES)[]).map((name) => (
        <Bars counts={counts} frame={CHART_FRAMES[name]} name={name} description={`${total} ingresos activos. ${described}.`} />
      ))}
      <figcaption class="muted">Ingresos ACTIVO según su mes de cápita; el mes 18 incluye los que lo superan.</figcaption>
      <details class="chart-data">
        <summary>Ver los datos del gráfico</summary>
        <table class="table table-compact" data-table="mes-capita">
          <caption>Ingresos activos por mes de cápita</caption>
          <thead>
            <tr>
              <th scope="col">Mes de cápita</th>
              <th scope="col">Ingresos activos</th>
            </tr>
          </thead>
          <tbody>
            {counts.map((n, i) => (
              <tr>
                <th scope="row">{String(i + 1)}</th>
                <td>{String(n)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

function Bars({ counts, frame, name, description }: { counts: readonly number[]; frame: ChartFrame; name: string; description: string }) {
  const g = barChartGeometry(counts, frame);
  const titleId = `chart-mes-title-${name}`;
  const descId = `chart-mes-desc-${name}`;
  // On a phone the bars are too narrow for a count above each: the table and each bar's title give them.
  const countsAbove = name !== 'compact';
  return (
    <svg
      class={`chart chart-mes chart-${name}`}
      viewBox={`0 0 ${g.width} ${g.height}`}
      preserveAspectRatio="xMidYMid meet"
      role="img"
      aria-labelledby={`${titleId} ${descId}`}
      data-chart="mes-capita"
      data-frame={name}
    >
      <title id={titleId}>Ingresos activos por mes de cápita (1 a 18)</title>
      <desc id={descId}>{description}</desc>
      {g.ticks.map((t) => (
        <g class="chart-tick">
          <line x1={g.left} x2={g.width - 4} y1={t.y} y2={t.y} />
          <text x={g.left - 5} y={t.y + 4}>
            {String(t.value)}
          </text>
        </g>
      ))}
      {g.bars.map((b) => (
        <g class="chart-bar" data-mes={String(b.mes)} data-count={String(b.count)}>
          <rect x={b.x} y={b.y} width={b.width} height={b.height} class={b.mes >= 18 ? 'chart-bar-last' : undefined}>
            <title>{`Mes ${b.mes}: ${b.count}`}</title>
          </rect>
          {countsAbove && b.count > 0 && (
            <text x={b.cx} y={b.y - 4} class="chart-count">
              {String(b.count)}
            </text>
          )}
          <text x={b.cx} y={g.baseY + 16}>
            {String(b.mes)}
          </text>
        </g>
      ))}
      <line class="chart-axis" x1={g.left} x2={g.width - 4} y1={g.baseY} y2={g.baseY} />
      <text class="chart-axis-label" x={g.left + (g.width - g.left) / 2} y={g.height - 6}>
        Mes de cápita
      </text>
    </svg>
  );
}
