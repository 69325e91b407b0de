import { barChartGeometry } from '../dashboard.rules.js';

/**
 * The distribution of ACTIVO Ingresos over mes_capita 1..18 as an SVG drawn on the server: visible without
 * scripts, styled only by presentation attributes and classes (the CSP forbids style attributes), with a
 * title, a description and a table for screen readers.
 */
export function MesCapitaChart({ counts }: { counts: readonly number[] }) {
  const g = barChartGeometry(counts);
  const total = counts.reduce((a, b) => a + b, 0);
  const described = counts.map((n, i) => `mes ${i + 1}: ${n}`).join('; ');
  return (
    <figure class="chart-figure">
      <svg
        class="chart"
        viewBox={`0 0 ${g.width} ${g.height}`}
        width={g.width}
        height={g.height}
        role="img"
        aria-labelledby="chart-mes-title chart-mes-desc"
        data-chart="mes-capita"
      >
        <title id="chart-mes-title">Ingresos activos por mes de cápita (1 a 18)</title>
        <desc id="chart-mes-desc">{`${total} ingresos activos. ${described}.`}</desc>
        {g.ticks.map((t) => (
          <g class="chart-tick">
            <line x1={g.left} x2={g.width - 10} y1={t.y} y2={t.y} stroke="#d9dee5" stroke-width="1" />
            <text x={g.left - 6} y={t.y + 4} text-anchor="end" font-size="11" fill="#5b6472">
              {String(t.value)}
            </text>
          </g>
        ))}
        {g.bars.map((b) => (
          <g class="chart-bar" data-mes={String(b.mes)} data-count={String(b.count)}>
            <rect x={b.x} y={b.y} width={b.width} height={b.height} fill={b.mes >= 18 ? '#b3261e' : '#1f5f8b'}>
              <title>{`Mes ${b.mes}: ${b.count}`}</title>
            </rect>
            {b.count > 0 && (
              <text x={b.cx} y={b.y - 4} text-anchor="middle" font-size="11" fill="#1d2430">
                {String(b.count)}
              </text>
            )}
            <text x={b.cx} y={g.baseY + 16} text-anchor="middle" font-size="11" fill="#5b6472">
              {String(b.mes)}
            </text>
          </g>
        ))}
        <line x1={g.left} x2={g.width - 10} y1={g.baseY} y2={g.baseY} stroke="#5b6472" stroke-width="1" />
        <text x={g.left + (g.width - g.left) / 2} y={g.height - 4} text-anchor="middle" font-size="12" fill="#5b6472">
          Mes de cápita
        </text>
      </svg>
      <figcaption class="muted">Ingresos ACTIVO según su mes de cápita; el mes 18 incluye los que lo superan.</figcaption>
      <table class="sr-only" data-table="mes-capita">
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
    </figure>
  );
}
