import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { collapseSpaces, normalizeForMatch, normalizeForSearch, stripAccents } from './text.js';

describe('normalizeForSearch', () => {
  const cases: Array<[string, string]> = [
    ['José Pérez', 'jose perez'],
    ['  JOSÉ   PÉREZ  ', 'jose perez'],
    ['Núñez', 'nunez'],
    ['Güiza', 'guiza'],
    ['ÁÉÍÓÚÜÑ', 'aeiouun'],
    ['María\tJosé\nGómez', 'maria jose gomez'],
    ['1098-765', '1098-765'],
    ['CC 1.098.765', 'cc 1.098.765'],
    ['', ''],
    ['   ', ''],
    // Precomposed and decomposed input normalise the same way.
    ['Jose\u0301', 'jose'],
    ['Jos\u00e9', 'jose'],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(normalizeForSearch(input), expected);
    });
  }
});

describe('normalizeForMatch', () => {
  const cases: Array<[string, string]> = [
    ['BOGOTÁ, D.C.', 'BOGOTADC'],
    ['bogota dc', 'BOGOTADC'],
    ['Bogotá D.C.', 'BOGOTADC'],
    ['san josé de cúcuta', 'SANJOSEDECUCUTA'],
    ['SOTARÁ - PAISPAMBA', 'SOTARAPAISPAMBA'],
    ['union libre', 'UNIONLIBRE'],
    ['UNIÓN LIBRE', 'UNIONLIBRE'],
    ['g47.3', 'G473'],
    ['Nariño', 'NARINO'],
    ['', ''],
    ['.,-', ''],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(normalizeForMatch(input), expected);
    });
  }
});

describe('stripAccents and collapseSpaces', () => {
  test('stripAccents keeps case and spacing', () => {
    assert.equal(stripAccents('Ñandú  Á'), 'Nandu  A');
  });
  test('stripAccents gives what decomposing, dropping the marks and composing gives, for ASCII text and any other', () => {
    const fullPath = (s: string) => s.normalize('NFD').replace(/\p{M}+/gu, '').normalize('NFC');
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 40 });
    const accented = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '.', '\u0301', 'ñ', 'É', 'ü', '\u0303', '\u00a0', 'ß', 'ﬁ'), maxLength: 20 });
    fc.assert(
      fc.property(fc.oneof(ascii, accented, fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 })), (s) => {
        assert.equal(stripAccents(s), fullPath(s));
      }),
      { numRuns: 2000 },
    );
  });
  test('collapseSpaces', () => {
    assert.equal(collapseSpaces('  María   José \t Gómez '), 'María José Gómez');
  });
});
