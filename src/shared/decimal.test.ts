import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DECIMAL_GROUPING_MESSAGE,
  DECIMAL_INVALID_MESSAGE,
  DECIMAL_NEGATIVE_MESSAGE,
  formatCop,
  formatHundredths,
  formatMeasure,
  formatMoneyInput,
  parseDecimalHundredths,
  type DecimalKind,
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
    // Three digits after one separator: thousands cannot fit a measurement of at most 999,99, so decimals.
    ['1.000', MAX_5_2, 100],
    ['72.500', MAX_5_2, 7250],
    ['1,750', 9999, 175],
    ['72,5000', MAX_5_2, 7250], // zeros past the second decimal lose nothing
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
    ['1.000,50', MAX_5_2, 'El valor máximo es 999,99; «1.000,50» se leyó como 1000,5.'],
    ['1,000.50', MAX_5_2, 'El valor máximo es 999,99; «1,000.50» se leyó como 1000,5.'],
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
    ['1,2,3', MAX_5_2, DECIMAL_GROUPING_MESSAGE],
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

// Numbers as Colombians write them (issue 29, decision 0069).
const MONEY_MAX = 9999999999; // valor_capita: 99.999.999,99
const parse = (input: string, max: number, kind: DecimalKind = 'measure') => parseDecimalHundredths(input, max, kind);

describe('parseDecimalHundredths: es-CO numbers', () => {
  test('money: a dot before three digits separates thousands, as the app shows money', () => {
    const cases: Array<[string, number]> = [
      ['259.783', 25978300],
      ['259.783,50', 25978350],
      ['1.234.567,89', 123456789],
      ['$ 259.783', 25978300],
      ['$259.783,5', 25978350],
      ['1.000', 100000],
      ['259783', 25978300],
      ['259783,00', 25978300],
      ['259.78', 25978], // two digits after the dot: cents
      ['1,234.5', 123450], // a spreadsheet in English: the last separator is the decimal one
    ];
    for (const [input, value] of cases) assert.deepEqual(parse(input, MONEY_MAX, 'money'), { ok: true, value }, input);
  });

  test('measurements: 72,5 and 72.5 alike; 1.234,5 read as 1234,5 and refused above the maximum, saying how it was read', () => {
    assert.deepEqual(parse('72,5', MAX_5_2), { ok: true, value: 7250 });
    assert.deepEqual(parse('72.5', MAX_5_2), { ok: true, value: 7250 });
    assert.deepEqual(parse('1.234,5', 99999999), { ok: true, value: 123450 });
    assert.deepEqual(parse('1.234,5', 50000), { ok: false, error: 'El valor máximo es 500,00; «1.234,5» se leyó como 1234,5.' });
    // Three decimals that are not zeros cannot be stored, and neither reading fits 200,00 as thousands.
    assert.deepEqual(parse('1.234', 20000), { ok: false, error: DECIMAL_INVALID_MESSAGE });
  });

  test('a value both readings of which fit the field is not guessed: the message shows both', () => {
    const ambiguous = parse('1.234', 500000); // a measurement of at most 5000,00
    assert.equal(ambiguous.ok, false);
    assert.equal(!ambiguous.ok && ambiguous.error, '«1.234» puede leerse como 1234 o como 1,234: escriba 1234 si son miles; si son decimales, use máximo 2.');
    // What the message suggests is read one way only.
    assert.deepEqual(parse('1234', 500000), { ok: true, value: 123400 });
    assert.deepEqual(parse('1.250', 500000), { ok: false, error: '«1.250» puede leerse como 1250 o como 1,25: escriba 1250 (sin separador de miles) o 1,25 (con coma decimal).' });
    assert.deepEqual(parse('1,25', 500000), { ok: true, value: 125 });
    // Money reads a dot as thousands, but a comma before three digits could be either.
    const comma = parse('1,500', MONEY_MAX, 'money');
    assert.ok(!comma.ok && comma.error.includes('1500') && comma.error.includes('1,5'), JSON.stringify(comma));
    // Thousands too big for the field: the decimal reading is the only one.
    assert.deepEqual(parse('1.250', 9999), { ok: true, value: 125 });
  });

  test('thousands separators in the wrong places are refused', () => {
    for (const input of ['12.34.567', '1.2345.678', '1234.567.890', '012.345.678', '1.23,5', '1.234,567.8', '1.2,3,4']) {
      assert.equal(parse(input, MONEY_MAX, 'money').ok, false, input);
      assert.equal(parse(input, MONEY_MAX).ok, false, input);
    }
    assert.deepEqual(parse('12.34.567', MONEY_MAX), { ok: false, error: DECIMAL_GROUPING_MESSAGE });
    // '$' only on money, and never twice.
    assert.equal(parse('$ 72,5', MAX_5_2).ok, false);
    assert.equal(parse('$$5', MONEY_MAX, 'money').ok, false);
    assert.deepEqual(parse('-$ 5', MONEY_MAX, 'money'), { ok: false, error: DECIMAL_NEGATIVE_MESSAGE });
  });
});

describe('parseDecimalHundredths: properties', () => {
  const FIELD_MAXES = [9999, 99999, 20000, 10000, 2400, 3000]; // altura, peso/perímetros, IAH/fuga, %, horas, presión

  test('money formatted the es-CO way reads back as the same value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MONEY_MAX }), (n) => {
        for (const shown of [formatCop(n), formatMoneyInput(n), formatHundredths(n)]) {
          assert.deepEqual(parse(shown, MONEY_MAX, 'money'), { ok: true, value: n }, shown);
        }
      }),
    );
  });

  test('a measurement formatted the es-CO way reads back as the same value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELD_MAXES), fc.nat(), (max, k) => {
        const n = k % (max + 1);
        for (const shown of [formatMeasure(n), formatHundredths(n)]) assert.deepEqual(parse(shown, max), { ok: true, value: n }, shown);
      }),
    );
  });

  test('x.y and x,y with at most two decimals are read alike', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{1,10}$/),
        fc.stringMatching(/^\d{1,2}$/),
        fc.constantFrom(...FIELD_MAXES, MONEY_MAX),
        fc.constantFrom<DecimalKind>('money', 'measure'),
        (x, y, max, kind) => {
          const dot = parse(`${x}.${y}`, max, kind);
          assert.deepEqual(dot, parse(`${x},${y}`, max, kind));
          if (dot.ok) assert.equal(dot.value, Number(x) * 100 + Number(y.padEnd(2, '0')));
        },
      ),
    );
  });

  test('groups of other than three digits after a thousands separator are refused', () => {
    // An integer part with at least two separators (or one and a decimal comma), one group of the wrong length.
    const group = fc.stringMatching(/^\d{3}$/);
    const wrong = fc.oneof(fc.stringMatching(/^\d{1,2}$/), fc.stringMatching(/^\d{4,6}$/));
    fc.assert(
      fc.property(
        fc.stringMatching(/^[1-9]\d{0,2}$/),
        fc.array(group, { maxLength: 3 }),
        wrong,
        fc.array(group, { maxLength: 3 }),
        fc.option(fc.stringMatching(/^\d{1,2}$/), { nil: undefined }),
        fc.constantFrom<DecimalKind>('money', 'measure'),
        (first, left, bad, right, cents, kind) => {
          const groups = [first, ...left, bad, ...right];
          if (groups.length < 3 && cents === undefined) return; // '12.34' is a decimal, not a misplaced group
          const input = groups.join('.') + (cents === undefined ? '' : `,${cents}`);
          assert.equal(parse(input, MONEY_MAX, kind).ok, false, input);
        },
      ),
    );
  });

  test('any text: an answer, never an exception; a value only within the limits', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('1', '0', '.', ',', '$', '-', ' ', '5', 'e') }), fc.constantFrom(...FIELD_MAXES, MONEY_MAX), fc.constantFrom<DecimalKind>('money', 'measure'), (input, max, kind) => {
        const r = parse(input, max, kind);
        if (r.ok) assert.ok(Number.isSafeInteger(r.value) && r.value >= 0 && r.value <= max, `${input} → ${r.value}`);
        else assert.ok(r.error.length > 0);
      }),
    );
  });
});

describe('formatMoneyInput', () => {
  test('the amount of formatCop without the sign of pesos', () => {
    assert.equal(formatMoneyInput(25978300), '259.783');
    assert.equal(formatMoneyInput(25978350), '259.783,50');
    assert.equal(formatMoneyInput(5), '0,05');
  });
});
