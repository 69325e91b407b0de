import { barChartGeometry } from '../dashboard.rules.js';

/**
 * The distribution of ACTIVO Ingresos over mes_capita 1..18 as SVG drawn on the server: visible without
 * scripts, styled by classes of the stylesheet (the CSP forbids style attributes; the chart's colours and its 13 px
 * labels are written once there rather than on each of its ~60 elements). One drawing as wide as its card on every
 * screen, its labels never scaled (dashboard.rules.ts, decision 0055); below 600 px the bars are too narrow for a
 * count above each, and the stylesheet hides them: the table and each bar's title give them. The same figures
 * follow as a table (for screen readers, and for anyone under "Ver los datos del gráfico").
 */
export function MesCapitaChart({ counts }: { counts: readonly number[] }) {
  const total = counts.reduce((a, b) => a + b, 0);
  const described = counts.map((n, i) => `mes ${i + 1}: ${n}`).join('; ');
  return (
    <figure class="chart-figure">
      <Bars counts={counts} description={`${total} ingresos activos. ${described}.`} />
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

function Bars({ counts, description }: { counts: readonly number[]; description: string }) {
  const g = barChartGeometry(counts);
  return (
    <svg class="chart chart-mes" height={String(g.height)} role="img" aria-labelledby="chart-mes-title chart-mes-desc" data-chart="mes-capita">
      <title id="chart-mes-title">Ingresos activos por mes de cápita (1 a 18)</title>
      <desc id="chart-mes-desc">{description}</desc>
      {/* Guide lines and the axis run from the plot's start (left px) to its end (100 % less right px): drawn from
          left + right to 100 %, then moved right px to the left. */}
      {g.ticks.map((t) => (
        <g class="chart-tick">
          <line x1={g.left + g.right} x2="100%" y1={t.y} y2={t.y} transform={`translate(-${g.right} 0)`} />
          <text x={g.left - 5} y={t.y + 4}>
            {String(t.value)}
          </text>
        </g>
      ))}
      {g.bars.map((b) => (
        <g class="chart-bar" data-mes={String(b.mes)} data-count={String(b.count)} transform={`translate(${b.offset} 0)`}>
          <rect x={`${b.xPct}%`} y={b.y} width={`${b.widthPct}%`} height={b.height} class={b.mes >= 18 ? 'chart-bar-last' : undefined}>
            <title>{`Mes ${b.mes}: ${b.count}`}</title>
          </rect>
          {b.count > 0 && (
            <text x={`${b.centerPct}%`} y={b.y - 4} class="chart-count">
              {String(b.count)}
            </text>
          )}
          <text x={`${b.centerPct}%`} y={g.baseY + 16}>
            {String(b.mes)}
          </text>
        </g>
      ))}
      <line class="chart-axis" x1={g.left + g.right} x2="100%" y1={g.baseY} y2={g.baseY} transform={`translate(-${g.right} 0)`} />
      <text class="chart-axis-label" x={`${g.axisLabel.centerPct}%`} y={g.height - 6} transform={`translate(${g.axisLabel.offset} 0)`}>
        Mes de cápita
      </text>
    </svg>
  );
}
