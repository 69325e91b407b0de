import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DECIMAL_INVALID_MESSAGE,
  DECIMAL_NEGATIVE_MESSAGE,
  formatCop,
  formatHundredths,
  parseDecimalHundredths,
} from './decimal.js';

const MAX_5_2 = 99999; // 999,99

describe('parseDecimalHundredths: accepted', () => {
  const cases: Array<[input: string, max: number, expected: number]> = [
    ['1,75', MAX_5_2, 175],
    ['1.75', MAX_5_2, 175],
    ['75', MAX_5_2, 7500],
    [' 75 ', MAX_5_2, 7500],
    ['0,5', MAX_5_2, 50],
    ['0.05', MAX_5_2, 5],
    ['0', MAX_5_2, 0],
    ['0,00', MAX_5_2, 0],
    ['007', MAX_5_2, 700],
    ['999,99', MAX_5_2, 99999],
    ['999.9', MAX_5_2, 99990],
    ['99,99', 9999, 9999],
    ['1,70', 9999, 170],
    ['259783', 9999999999, 25978300],
    ['99999999,99', 9999999999, 9999999999],
    ['\t12,3\n', MAX_5_2, 1230],
  ];
  for (const [input, max, expected] of cases) {
    test(`${JSON.stringify(input)} (max ${max}) → ${expected}`, () => {
      assert.deepEqual(parseDecimalHundredths(input, max), { ok: true, value: expected });
    });
  }
});

describe('parseDecimalHundredths: refused', () => {
  const invalid = DECIMAL_INVALID_MESSAGE;
  const negative = DECIMAL_NEGATIVE_MESSAGE;
  const cases: Array<[input: string, max: number, error: string]> = [
    ['1,755', MAX_5_2, invalid],
    ['1.755', MAX_5_2, invalid],
    ['1.000', MAX_5_2, invalid], // thousands separator reads as 3 decimals
    ['1.000,50', MAX_5_2, invalid],
    ['1,000.50', MAX_5_2, invalid],
    ['1 000', MAX_5_2, invalid],
    ['1e3', MAX_5_2, invalid],
    ['1E3', MAX_5_2, invalid],
    ['NaN', MAX_5_2, invalid],
    ['Infinity', MAX_5_2, invalid],
    ['-1', MAX_5_2, negative],
    ['-0', MAX_5_2, negative],
    ['-0,5', MAX_5_2, negative],
    ['- 3', MAX_5_2, negative],
    ['+1', MAX_5_2, invalid],
    ['', MAX_5_2, invalid],
    ['   ', MAX_5_2, invalid],
    ['.5', MAX_5_2, invalid],
    [',5', MAX_5_2, invalid],
    ['5.', MAX_5_2, invalid],
    ['5,', MAX_5_2, invalid],
    ['1,2,3', MAX_5_2, invalid],
    ['0x10', MAX_5_2, invalid],
    ['abc', MAX_5_2, invalid],
    ['１２', MAX_5_2, invalid], // full-width digits
    ['٣', MAX_5_2, invalid], // Arabic-Indic digit
    ['1000', MAX_5_2, 'El valor máximo es 999,99.'],
    ['999,991', MAX_5_2, invalid],
    ['100', 9999, 'El valor máximo es 99,99.'],
    ['100000000', 9999999999, 'El valor máximo es 99999999,99.'],
    ['99999999999999999999999', MAX_5_2, 'El valor máximo es 999,99.'],
  ];
  for (const [input, max, error] of cases) {
    test(`${JSON.stringify(input)} (max ${max}) → ${error}`, () => {
      assert.deepEqual(parseDecimalHundredths(input, max), { ok: false, error });
    });
  }
});

describe('formatHundredths', () => {
  const cases: Array<[number, string]> = [
    [175, '1,75'],
    [50, '0,50'],
    [5, '0,05'],
    [0, '0,00'],
    [25978300, '259783,00'],
    [9999999999, '99999999,99'],
    [-175, '-1,75'],
  ];
  for (const [n, expected] of cases) {
    test(`${n} → ${expected}`, () => assert.equal(formatHundredths(n), expected));
  }
  test('rejects non-integers', () => {
    assert.throws(() => formatHundredths(1.5), RangeError);
    assert.throws(() => formatHundredths(Number.NaN), RangeError);
  });
  test('round-trips through parseDecimalHundredths', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999999999 }), (n) => {
        assert.deepEqual(parseDecimalHundredths(formatHundredths(n), 9999999999), { ok: true, value: n });
      }),
    );
  });
});

describe('formatCop', () => {
  const cases: Array<[number, string]> = [
    [25978300, '$ 259.783'],
    [25978350, '$ 259.783,50'],
    [123456789, '$ 1.234.567,89'],
    [0, '$ 0'],
    [100000, '$ 1.000'],
    [99900, '$ 999'],
    [5, '$ 0,05'],
    [999999999999, '$ 9.999.999.999,99'],
    [-100000, '-$ 1.000'],
  ];
  for (const [n, expected] of cases) {
    test(`${n} → ${JSON.stringify(expected)}`, () => assert.equal(formatCop(n), expected));
  }
  test('agrees with Intl es-CO COP (non-breaking space normalised)', () => {
    const intlCop = (h: number): string =>
      new Intl.NumberFormat('es-CO', {
        style: 'currency',
        currency: 'COP',
        minimumFractionDigits: h % 100 === 0 ? 0 : 2,
        maximumFractionDigits: 2,
      })
        .format(h / 100)
        .replace(/\u00a0/g, ' ');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99999999999 }), (h) => {
        assert.equal(formatCop(h), intlCop(h));
      }),
    );
  });
});
