import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
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
  test('collapseSpaces', () => {
    assert.equal(collapseSpaces('  María   José \t Gómez '), 'María José Gómez');
  });
});
