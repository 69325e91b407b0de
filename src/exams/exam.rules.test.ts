import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ahiSeverity, cpapAdherence, cycleSeries, epworthBand, formatMeasure, imcBand, isiBand, trendOf } from './exam.rules.js';

type Input = number | null | undefined;

describe('ahiSeverity', () => {
  const cases: Array<[Input, string | null, string | null]> = [
    [0, 'normal', 'Normal'],
    [4.99, 'normal', 'Normal'],
    [499 / 100, 'normal', 'Normal'],
    [5, 'leve', 'Leve'],
    [500 / 100, 'leve', 'Leve'],
    [14.9, 'leve', 'Leve'],
    [14.99, 'leve', 'Leve'],
    [15, 'moderada', 'Moderada'],
    [29.9, 'moderada', 'Moderada'],
    [29.99, 'moderada', 'Moderada'],
    [30, 'severa', 'Severa'],
    [3000 / 100, 'severa', 'Severa'],
    [200, 'severa', 'Severa'],
    [null, null, null],
    [undefined, null, null],
    [-1, null, null],
    [Number.NaN, null, null],
    [Number.POSITIVE_INFINITY, null, null],
  ];
  for (const [iah, code, label] of cases) {
    test(`${iah} → ${code}`, () => {
      assert.deepEqual(ahiSeverity(iah), code === null ? null : { code, label });
    });
  }
});

describe('cpapAdherence', () => {
  const adherent = { code: 'adherente', label: 'Adherente' };
  const notAdherent = { code: 'no_adherente', label: 'No adherente' };
  const cases: Array<[Input, Input, object | null]> = [
    [4, 70, adherent],
    [4, 100, adherent],
    [24, 70, adherent],
    [6.5, 85, adherent],
    [3.99, 70, notAdherent],
    [4, 69.99, notAdherent],
    [3.99, 69.99, notAdherent],
    [0, 0, notAdherent],
    [8, 50, notAdherent],
    [null, 80, null],
    [5, null, null],
    [undefined, undefined, null],
    [-1, 80, null],
    [25, 80, null],
    [5, 101, null],
  ];
  for (const [horas, pct, expected] of cases) {
    test(`${horas} h, ${pct} % → ${expected === null ? null : JSON.stringify(expected)}`, () => {
      assert.deepEqual(cpapAdherence(horas, pct), expected);
    });
  }
});

describe('epworthBand', () => {
  const cases: Array<[Input, string | null, string | null]> = [
    [0, 'normal', 'Normal'],
    [10, 'normal', 'Normal'],
    [11, 'leve', 'Somnolencia leve'],
    [12, 'leve', 'Somnolencia leve'],
    [13, 'moderada', 'Somnolencia moderada'],
    [15, 'moderada', 'Somnolencia moderada'],
    [16, 'severa', 'Somnolencia severa'],
    [24, 'severa', 'Somnolencia severa'],
    [25, null, null],
    [-1, null, null],
    [10.5, null, null],
    [null, null, null],
    [undefined, null, null],
  ];
  for (const [score, code, label] of cases) {
    test(`${score} → ${code}`, () => {
      assert.deepEqual(epworthBand(score), code === null ? null : { code, label });
    });
  }
});

describe('isiBand', () => {
  const cases: Array<[Input, string | null, string | null]> = [
    [0, 'sin_insomnio', 'Sin insomnio clínicamente significativo'],
    [7, 'sin_insomnio', 'Sin insomnio clínicamente significativo'],
    [8, 'subumbral', 'Insomnio subumbral'],
    [14, 'subumbral', 'Insomnio subumbral'],
    [15, 'moderado', 'Insomnio clínico moderado'],
    [21, 'moderado', 'Insomnio clínico moderado'],
    [22, 'severo', 'Insomnio clínico severo'],
    [28, 'severo', 'Insomnio clínico severo'],
    [29, null, null],
    [-1, null, null],
    [7.5, null, null],
    [null, null, null],
  ];
  for (const [score, code, label] of cases) {
    test(`${score} → ${code}`, () => {
      assert.deepEqual(isiBand(score), code === null ? null : { code, label });
    });
  }
});

describe('imcBand', () => {
  const cases: Array<[Input, string | null, string | null]> = [
    [12, 'bajo_peso', 'Bajo peso'],
    [18.4, 'bajo_peso', 'Bajo peso'],
    [18.5, 'normal', 'Normal'],
    [24.9, 'normal', 'Normal'],
    [24.99, 'normal', 'Normal'],
    [25, 'sobrepeso', 'Sobrepeso'],
    [29.9, 'sobrepeso', 'Sobrepeso'],
    [30, 'obesidad_1', 'Obesidad grado I'],
    [34.9, 'obesidad_1', 'Obesidad grado I'],
    [35, 'obesidad_2', 'Obesidad grado II'],
    [39.9, 'obesidad_2', 'Obesidad grado II'],
    [40, 'obesidad_3', 'Obesidad grado III'],
    [65.3, 'obesidad_3', 'Obesidad grado III'],
    [0, null, null],
    [-5, null, null],
    [null, null, null],
    [undefined, null, null],
    [Number.NaN, null, null],
  ];
  for (const [value, code, label] of cases) {
    test(`${value} → ${code}`, () => {
      assert.deepEqual(imcBand(value), code === null ? null : { code, label });
    });
  }
});

describe('trendOf', () => {
  test('fewer than two values: no trend', () => {
    assert.equal(trendOf([]), null);
    assert.equal(trendOf([1250]), null);
  });
  test('first, last, exact delta and direction', () => {
    assert.deepEqual(trendOf([3500, 2000, 850]), { first: 3500, last: 850, delta: -2650, direction: 'baja' });
    assert.deepEqual(trendOf([8, 12]), { first: 8, last: 12, delta: 4, direction: 'sube' });
    assert.deepEqual(trendOf([10, 30, 10]), { first: 10, last: 10, delta: 0, direction: 'estable' });
  });
});

describe('formatMeasure', () => {
  const cases: Array<[number, string]> = [
    [0, '0'],
    [1250, '12,5'],
    [3000, '30'],
    [1234, '12,34'],
    [5, '0,05'],
    [50, '0,5'],
    [20000, '200'],
    [-250, '-2,5'],
  ];
  for (const [n, text] of cases) test(`${n} → ${text}`, () => assert.equal(formatMeasure(n), text));
  test('refuses a non-integer', () => assert.throws(() => formatMeasure(1.5), RangeError));
});

describe('cycleSeries', () => {
  const rec = (id: number, fecha: string, kind: string, values: Partial<Record<'iah' | 'horas_uso_promedio' | 'epworth' | 'isi', number>>, anulado_at: string | null = null) => ({
    id,
    fecha,
    kind,
    anulado_at,
    iah: values.iah ?? null,
    horas_uso_promedio: values.horas_uso_promedio ?? null,
    epworth: values.epworth ?? null,
    isi: values.isi ?? null,
  });

  test('keeps the charted measures of monitoring and psychology records, by date then by id', () => {
    const records = [
      rec(9, '2026-03-01', 'MONITOREO', { horas_uso_promedio: 510 }),
      rec(8, '2026-01-10', 'PSICOLOGIA', { epworth: 12 }),
      rec(7, '2026-03-01', 'PSICOLOGIA', { isi: 9 }),
      rec(6, '2026-02-01', 'OTRO', { iah: 300 }),
      rec(5, '2026-02-02', 'MONITOREO', {}),
      rec(4, '2026-01-05', 'MONITOREO', { iah: 2510 }, '2026-01-06T10:00:00Z'),
      rec(3, '2026-01-01', 'MONITOREO', { iah: 3120 }),
    ];
    assert.deepEqual(
      cycleSeries(records).map((r) => r.id),
      [3, 8, 7, 9],
    );
    assert.deepEqual(cycleSeries(records)[0], { id: 3, fecha: '2026-01-01', iah: 3120, horas_uso_promedio: null, epworth: null, isi: null });
  });

  test('is empty without records', () => {
    assert.deepEqual(cycleSeries([]), []);
  });
});
