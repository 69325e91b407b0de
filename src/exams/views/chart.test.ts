import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_BOX, lineChartGeometry, niceCeil } from './chart.js';

describe('niceCeil', () => {
  const cases: Array<[number, number]> = [
    [0, 1],
    [0.4, 1],
    [1, 1],
    [1.1, 2],
    [2.2, 2.5],
    [3, 5],
    [7, 10],
    [24, 25],
    [28, 50],
    [30, 50],
    [35, 50],
    [100, 100],
    [101, 200],
    [Number.NaN, 1],
  ];
  for (const [n, nice] of cases) test(`${n} → ${nice}`, () => assert.equal(niceCeil(n), nice));
});

describe('lineChartGeometry', () => {
  const { left, right, top, bottom, width, height } = DEFAULT_BOX;
  const x0 = left;
  const x1 = width - right;
  const y0 = top;
  const y1 = height - bottom;

  test('points spread evenly from the left edge to the right edge; 0 at the bottom, the maximum at the top', () => {
    const g = lineChartGeometry([0, 25, 50], { minMax: 30, cap: 200 });
    assert.equal(g.yMax, 50);
    assert.deepEqual(
      g.points.map((p) => [p.x, p.y]),
      [
        [x0, y1],
        [(x0 + x1) / 2, (y0 + y1) / 2],
        [x1, y0],
      ],
    );
    assert.equal(g.polyline, g.points.map((p) => `${p.x},${p.y}`).join(' '));
    assert.deepEqual(g.ticks, [
      { y: y1, value: 0 },
      { y: (y0 + y1) / 2, value: 25 },
      { y: y0, value: 50 },
    ]);
  });

  test('the scale never shrinks below minMax nor grows above cap; values beyond are drawn at the edge', () => {
    assert.equal(lineChartGeometry([2, 3], { minMax: 30, cap: 200 }).yMax, 50);
    assert.equal(lineChartGeometry([2, 3], { minMax: 24, cap: 24 }).yMax, 24);
    const g = lineChartGeometry([180, 300], { minMax: 30, cap: 200 });
    assert.equal(g.yMax, 200);
    assert.equal(g.points[1]!.y, y0);
  });

  test('guides only inside the scale, at their height', () => {
    const g = lineChartGeometry([10, 20], { minMax: 30, cap: 200, guides: [0, 5, 15, 30, 60] });
    assert.deepEqual(
      g.guides.map((t) => t.value),
      [5, 15, 30],
    );
    for (const t of g.guides) assert.ok(t.y > y0 && t.y < y1);
  });

  test('every coordinate stays inside the box', () => {
    const g = lineChartGeometry([0, 199.99, 12.5, 30, 7], { minMax: 30, cap: 200 });
    for (const p of g.points) {
      assert.ok(p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1, JSON.stringify(p));
    }
  });

  test('one value sits in the middle', () => {
    const g = lineChartGeometry([5], { minMax: 8, cap: 24 });
    assert.equal(g.points[0]!.x, (x0 + x1) / 2);
  });
});
