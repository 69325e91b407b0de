import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_DEPARTAMENTO,
  DEPARTAMENTOS,
  DIVIPOLA,
  matchCiudad,
  matchDepartamento,
  municipioCodigo,
  municipiosOf,
} from './divipola.js';
import { normalizeForMatch, normalizeForSearch } from '../shared/text.js';

describe('DIVIPOLA catalogue', () => {
  test('33 departments and 1122 municipios in all', () => {
    assert.equal(DEPARTAMENTOS.length, 33);
    assert.equal(DIVIPOLA.reduce((n, d) => n + d.municipios.length, 0), 1122);
  });

  test('per-department counts match the data README', () => {
    const expected: Record<string, number> = {
      '05': 125, '08': 23, '11': 1, '13': 46, '15': 123, '17': 27, '18': 16, '19': 42, '20': 25, '23': 30,
      '25': 116, '27': 31, '41': 37, '44': 15, '47': 30, '50': 29, '52': 64, '54': 40, '63': 12, '66': 14,
      '68': 87, '70': 26, '73': 47, '76': 42, '81': 7, '85': 19, '86': 13, '88': 2, '91': 11, '94': 8,
      '95': 4, '97': 6, '99': 4,
    };
    const actual = Object.fromEntries(DIVIPOLA.map((d) => [d.codigo, d.municipios.length]));
    assert.deepEqual(actual, expected);
  });

  test('Santander is the default, with 87 municipios including BUCARAMANGA 68001', () => {
    assert.equal(DEFAULT_DEPARTAMENTO, 'SANTANDER');
    assert.ok(DEPARTAMENTOS.includes(DEFAULT_DEPARTAMENTO));
    const santander = municipiosOf('SANTANDER');
    assert.equal(santander.length, 87);
    assert.ok(santander.includes('BUCARAMANGA'));
    assert.equal(municipioCodigo('SANTANDER', 'BUCARAMANGA'), '68001');
  });

  test('departments and municipios are sorted by name, accents ignored', () => {
    const sorted = (names: readonly string[]): boolean =>
      names.every((n, i) => i === 0 || normalizeForSearch(names[i - 1] ?? '') <= normalizeForSearch(n));
    assert.ok(sorted(DEPARTAMENTOS));
    for (const d of DIVIPOLA) assert.ok(sorted(d.municipios.map((m) => m.nombre)), d.nombre);
    assert.equal(DEPARTAMENTOS[0], 'AMAZONAS');
    assert.ok(DEPARTAMENTOS.indexOf('CÓRDOBA') < DEPARTAMENTOS.indexOf('CUNDINAMARCA'));
  });

  test('match keys are unique (no two names collapse to the same key)', () => {
    assert.equal(new Set(DEPARTAMENTOS.map(normalizeForMatch)).size, DEPARTAMENTOS.length);
    for (const d of DIVIPOLA) {
      assert.equal(new Set(d.municipios.map((m) => normalizeForMatch(m.nombre))).size, d.municipios.length, d.nombre);
    }
  });

  test('every listed name matches itself', () => {
    for (const d of DIVIPOLA) {
      assert.equal(matchDepartamento(d.nombre), d.nombre);
      for (const m of d.municipios) assert.equal(matchCiudad(d.nombre, m.nombre), m.nombre);
    }
  });

  test('an unknown department has no municipios', () => {
    assert.deepEqual(municipiosOf('santander'), []); // listed form only
    assert.deepEqual(municipiosOf('ATLANTIS'), []);
    assert.equal(municipioCodigo('SANTANDER', 'MEDELLÍN'), null);
  });
});

describe('matchDepartamento', () => {
  const cases: Array<[string, string | null]> = [
    ['SANTANDER', 'SANTANDER'],
    ['santander', 'SANTANDER'],
    ['  Santander ', 'SANTANDER'],
    ['bogota, d.c.', 'BOGOTÁ, D.C.'],
    ['Bogotá D.C.', 'BOGOTÁ, D.C.'],
    ['bogota dc', 'BOGOTÁ, D.C.'],
    ['norte de santander', 'NORTE DE SANTANDER'],
    ['NARINO', 'NARIÑO'],
    ['Atlántico', 'ATLÁNTICO'],
    ['archipielago de san andres providencia y santa catalina', 'ARCHIPIÉLAGO DE SAN ANDRÉS, PROVIDENCIA Y SANTA CATALINA'],
    ['valle', null],
    ['', null],
    ['  ', null],
    ['...', null],
    ['SANTANDERR', null],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${expected}`, () => assert.equal(matchDepartamento(input), expected));
  }
});

describe('matchCiudad', () => {
  const cases: Array<[departamento: string, input: string, expected: string | null]> = [
    ['SANTANDER', 'BUCARAMANGA', 'BUCARAMANGA'],
    ['SANTANDER', 'bucaramanga', 'BUCARAMANGA'],
    ['santander', 'Floridablanca', 'FLORIDABLANCA'],
    ['SANTANDER', 'san gil', 'SAN GIL'],
    ['ANTIOQUIA', 'medellin', 'MEDELLÍN'],
    ['SANTANDER', 'medellin', null],
    ['NORTE DE SANTANDER', 'San José de Cúcuta', 'SAN JOSÉ DE CÚCUTA'],
    ['norte de santander', 'san jose de cucuta', 'SAN JOSÉ DE CÚCUTA'],
    ['SANTANDER', 'San José de Cúcuta', null],
    ['BOGOTÁ, D.C.', 'bogota d.c.', 'BOGOTÁ, D.C.'],
    ['bogota dc', 'BOGOTÁ, D.C.', 'BOGOTÁ, D.C.'],
    ['CAUCA', 'sotara paispamba', 'SOTARÁ - PAISPAMBA'],
    ['CAUCA', 'Sotará - Paispamba', 'SOTARÁ - PAISPAMBA'],
    ['BOLÍVAR', 'turbana', 'TURBANÁ'],
    ['VALLE DEL CAUCA', 'santiago de cali', 'SANTIAGO DE CALI'],
    ['ARCHIPIÉLAGO DE SAN ANDRÉS, PROVIDENCIA Y SANTA CATALINA', 'san andres', 'SAN ANDRÉS'],
    ['ANTIOQUIA', 'san andres', null], // ANTIOQUIA has SAN ANDRÉS DE CUERQUÍA, not SAN ANDRÉS
    ['ATLANTIS', 'BUCARAMANGA', null],
    ['', 'BUCARAMANGA', null],
    ['SANTANDER', '', null],
    ['SANTANDER', '  ', null],
  ];
  for (const [departamento, input, expected] of cases) {
    test(`${JSON.stringify(input)} in ${JSON.stringify(departamento)} → ${expected}`, () => {
      assert.equal(matchCiudad(departamento, input), expected);
    });
  }
});
