import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { mesCapita } from '../ingresos/ingreso.rules.js';
import { addDays, startOfDayUtc } from '../shared/dates.js';
import { barChartGeometry, barInPixels, bucketOpenMonths, capitaReferenceDate, mesCapitaLowerBounds, monthRangeOf, niceMax, parseCapitaMonth, pixelOf, summarizeOpenGroups, tickValues } from './dashboard.rules.js';

describe('month helpers', () => {
  test('monthRangeOf gives the half-open range and the last day', () => {
    assert.deepEqual(monthRangeOf('2026-11-22'), { mes: '2026-11', start: '2026-11-01', end: '2026-12-01', last: '2026-11-30' });
    assert.deepEqual(monthRangeOf('2028-02-10'), { mes: '2028-02', start: '2028-02-01', end: '2028-03-01', last: '2028-02-29' });
    assert.deepEqual(monthRangeOf('2026-12-31'), { mes: '2026-12', start: '2026-12-01', end: '2027-01-01', last: '2026-12-31' });
  });

  test('parseCapitaMonth: current, past, future, invalid, missing', () => {
    const today = '2026-11-22';
    assert.equal(parseCapitaMonth('2026-11', today).kind, 'current');
    assert.deepEqual(parseCapitaMonth(' 2026-02 ', today), { kind: 'past', mes: '2026-02', start: '2026-02-01', end: '2026-03-01', last: '2026-02-28' });
    assert.deepEqual(parseCapitaMonth('2026-12', today), { kind: 'future', mes: '2026-12' });
    for (const bad of ['2026-13', '2026-1', '26-11', 'noviembre', '2026-11-01', '1899-12']) {
      assert.equal(parseCapitaMonth(bad, today).kind, 'invalid', bad);
    }
    assert.equal(parseCapitaMonth(undefined, today).kind, 'missing');
    assert.equal(parseCapitaMonth('  ', today).kind, 'missing');
  });

  test('the reference date of mes_capita: today this month, else the last day of the month', () => {
    assert.equal(capitaReferenceDate({ kind: 'current', last: '2026-11-30' }, '2026-11-22'), '2026-11-22');
    assert.equal(capitaReferenceDate({ kind: 'past', last: '2026-10-31' }, '2026-11-22'), '2026-10-31');
  });

  test('the SQL buckets agree with mesCapita for any start date', () => {
    fc.assert(
      fc.property(fc.integer({ min: -900, max: 900 }), fc.integer({ min: 0, max: 3000 }), (offset, base) => {
        const today = addDays('2024-01-01', base);
        const start = addDays(today, offset);
        const bounds = mesCapitaLowerBounds(today);
        const index = bounds.findIndex((b) => start >= b);
        const bucket = index === -1 ? bounds.length + 1 : index + 1;
        assert.equal(bucket, mesCapita(start, today));
      }),
    );
  });

  test('startOfDayUtc: midnight in the zone as a UTC instant', () => {
    assert.equal(startOfDayUtc('2026-11-01', 'America/Bogota'), '2026-11-01T05:00:00.000Z');
    assert.equal(startOfDayUtc('2026-11-01', 'UTC'), '2026-11-01T00:00:00.000Z');
    assert.equal(startOfDayUtc('2026-07-01', 'Europe/Madrid'), '2026-06-30T22:00:00.000Z');
    assert.equal(startOfDayUtc('2026-03-29', 'Europe/Madrid'), '2026-03-28T23:00:00.000Z');
  });
});

describe('chart geometry', () => {
  test('niceMax keeps small counts and rounds larger ones up to 1, 2 or 5 times a power of ten', () => {
    assert.deepEqual([0, 1, 3, 5, 7, 11, 26, 180, 1001].map(niceMax), [1, 1, 3, 5, 10, 20, 50, 200, 2000]);
  });

  test('guide values are whole numbers from 0 to the top', () => {
    assert.deepEqual(tickValues(3), [0, 1, 2, 3]);
    assert.deepEqual(tickValues(10), [0, 5, 10]);
    assert.deepEqual(tickValues(20), [0, 5, 10, 15, 20]);
    assert.deepEqual(tickValues(200), [0, 50, 100, 150, 200]);
    for (const max of [1, 2, 5, 10, 20, 50, 100, 500, 1000]) assert.ok(tickValues(max).every(Number.isInteger));
  });

  test('bars stand on the baseline, proportional to their count, inside the plot at a phone\'s and a desktop\'s width', () => {
    const counts = [4, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    const g = barChartGeometry(counts);
    assert.equal(g.bars.length, 18);
    assert.equal(g.max, 4);
    for (const b of g.bars) {
      assert.ok(Math.abs(b.y + b.height - g.baseY) < 0.11, `bar ${b.mes} stands on the baseline`);
      assert.ok(b.y >= 0);
    }
    assert.equal(g.bars[1]!.height, 0);
    assert.ok(Math.abs(g.bars[0]!.height - 2 * g.bars[2]!.height) < 0.2);
    assert.ok(g.bars[17]!.height >= 1);
    assert.deepEqual(g.bars.map((b) => b.mes), Array.from({ length: 18 }, (_, i) => i + 1));
    for (const width of [300, 330, 620, 1080]) {
      const at = g.bars.map((b) => barInPixels(b, width));
      assert.ok(at[0]!.x >= g.left, `${width}: the first bar starts in the plot`);
      assert.ok(at[17]!.x + at[17]!.width <= width - g.right + 0.2, `${width}: the last bar ends in the plot`);
      for (let i = 1; i < 18; i++) assert.ok(at[i]!.x > at[i - 1]!.x + at[i - 1]!.width + 1, `${width}: a gap before bar ${i + 1}`);
      // Month labels (13 px: two digits are under 15 px wide) centred under their bars, none over its neighbour,
      // from the card of a 390 px phone (about 330 px) up.
      if (width >= 330) for (let i = 1; i < 18; i++) assert.ok(at[i]!.cx - at[i - 1]!.cx >= 15, `${width}: month labels ${i} and ${i + 1} apart`);
      // The plot's centre, where the axis label goes.
      assert.ok(Math.abs(pixelOf(g.axisLabel, width) - (g.left + (width - g.left - g.right) / 2)) < 0.01);
    }
    assert.equal(g.ticks[0]!.value, 0);
    assert.deepEqual(g.ticks.map((t) => t.value), [0, 1, 2, 3, 4]);
    assert.equal(g.bars[0]!.y, g.ticks.at(-1)!.y);
  });

  test('the scale of a large program leaves room for its longest label', () => {
    const counts = [8062, ...Array(16).fill(2700), 35172];
    const g = barChartGeometry(counts);
    assert.equal(g.max, 50000);
    // Labels end 5 px left of the plot, right-aligned, 13 px high: five digits need about 36 px.
    assert.ok(g.left - 5 >= 5 * 7.5, `left ${g.left}`);
    for (const width of [300, 1080]) {
      const first = barInPixels(g.bars[0]!, width);
      const last = barInPixels(g.bars[17]!, width);
      assert.ok(first.x >= g.left && last.x + last.width <= width - g.right + 0.2, `${width}`);
    }
  });

  test('an empty chart still has a scale and no bar', () => {
    const g = barChartGeometry(Array(18).fill(0));
    assert.equal(g.max, 1);
    assert.ok(g.bars.every((b) => b.height === 0));
  });
});

describe('summarizeOpenGroups', () => {
  test('counts patients by status, programa and entidad, the ACTIVO ones by mes_capita, and their capitation', () => {
    const s = summarizeOpenGroups([
      { programa: 'PROGRAMA INSOMNIO', entidad_salud: 'ENTITY_B', estado: 'ACTIVO', mes: 6, n: 1, total: 10000050 },
      { programa: 'PROGRAMA AOS', entidad_salud: 'ENTITY_A', estado: 'ACTIVO', mes: 1, n: 2, total: 45000000 },
      { programa: 'PROGRAMA AOS', entidad_salud: 'ENTITY_A', estado: 'ACTIVO', mes: 18, n: 1, total: 20000000 },
      { programa: 'PROGRAMA AOS', entidad_salud: 'ENTITY_A', estado: 'SUSPENDIDO', mes: 7, n: 3, total: 75000000 },
    ]);
    assert.deepEqual(s.status, { activos: 4, suspendidos: 3 });
    assert.deepEqual(s.byPrograma, [{ key: 'PROGRAMA AOS', n: 6 }, { key: 'PROGRAMA INSOMNIO', n: 1 }]);
    assert.deepEqual(s.byEntidad, [{ key: 'ENTITY_A', n: 6 }, { key: 'ENTITY_B', n: 1 }]);
    assert.deepEqual(s.mesCapita, [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(s.capita, [
      { entidad: 'ENTITY_A', pacientes: 3, total: 65000000 },
      { entidad: 'ENTITY_B', pacientes: 1, total: 10000050 },
    ]);
  });

  test('no open Ingreso: zeros and empty tables', () => {
    const s = summarizeOpenGroups([]);
    assert.deepEqual(s, { status: { activos: 0, suspendidos: 0 }, byPrograma: [], byEntidad: [], mesCapita: Array(18).fill(0), capita: [] });
  });

  test('an entidad with only SUSPENDIDO patients is counted but not billed', () => {
    const s = summarizeOpenGroups([{ programa: 'PROGRAMA AOS', entidad_salud: 'ENTITY_B', estado: 'SUSPENDIDO', mes: 3, n: 2, total: 1 }]);
    assert.deepEqual(s.byEntidad, [{ key: 'ENTITY_B', n: 2 }]);
    assert.deepEqual(s.capita, []);
  });
});

describe('bucketOpenMonths', () => {
  const row = (mes: string, n: number, estado: 'ACTIVO' | 'SUSPENDIDO' = 'ACTIVO') => ({ programa: 'PROGRAMA AOS', entidad_salud: 'ENTITY_A', estado, mes, n, total: n * 100 });

  test('months started become mes_capita as of today; 18 and beyond share the last bucket; empty groups are left out', () => {
    const groups = bucketOpenMonths([row('2026-11', 2), row('2026-10', 3), row('2025-06', 1), row('2025-05', 4), row('2020-01', 5), row('2026-09', 0), row('2026-10', 1, 'SUSPENDIDO')], '2026-11-22');
    const byKey = Object.fromEntries(groups.map((g) => [`${g.estado} ${g.mes}`, [g.n, g.total]]));
    assert.deepEqual(byKey, { 'ACTIVO 1': [2, 200], 'ACTIVO 2': [3, 300], 'ACTIVO 18': [10, 1000], 'SUSPENDIDO 2': [1, 100] });
  });

  test('the same month moves to the next mes_capita when the month changes, not before', () => {
    assert.equal(bucketOpenMonths([row('2026-11', 1)], '2026-11-30')[0]!.mes, 1);
    assert.equal(bucketOpenMonths([row('2026-11', 1)], '2026-12-01')[0]!.mes, 2);
  });

  test('agrees with mesCapita of any start date in the month', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 0, max: 1500 }), (a, b) => {
        const start = addDays('2024-01-01', a);
        const today = addDays('2024-01-01', b);
        if (start > today) return;
        assert.equal(bucketOpenMonths([row(start.slice(0, 7), 1)], today)[0]!.mes, mesCapita(start, today));
      }),
    );
  });
});
