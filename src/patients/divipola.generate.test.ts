import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDivipola, generateDivipolaModule, parseCsv, renderDivipolaModule } from './divipola.generate.js';

describe('parseCsv', () => {
  const cases: Array<[name: string, input: string, expected: string[][]]> = [
    ['plain', 'a,b\nc,d\n', [['a', 'b'], ['c', 'd']]],
    ['no final newline', 'a,b\nc,d', [['a', 'b'], ['c', 'd']]],
    ['quoted comma', '11,"BOGOTÁ, D.C.",11001,"BOGOTÁ, D.C."\n', [['11', 'BOGOTÁ, D.C.', '11001', 'BOGOTÁ, D.C.']]],
    ['escaped quote', '"say ""hi""",x\n', [['say "hi"', 'x']]],
    ['newline inside quotes', '"a\nb",c\n', [['a\nb', 'c']]],
    ['CRLF', 'a,b\r\nc,d\r\n', [['a', 'b'], ['c', 'd']]],
    ['BOM', '\uFEFFa,b\n', [['a', 'b']]],
    ['empty fields', ',,\n', [['', '', '']]],
    ['empty quoted field', '"",x\n', [['', 'x']]],
    ['empty input', '', []],
  ];
  for (const [name, input, expected] of cases) {
    test(name, () => assert.deepEqual(parseCsv(input), expected));
  }
  const bad: Array<[name: string, input: string]> = [
    ['unterminated quote', '"abc,d\n'],
    ['text after closing quote', '"ab"c,d\n'],
    ['quote inside bare field', 'ab"c,d\n'],
  ];
  for (const [name, input] of bad) {
    test(`throws: ${name}`, () => assert.throws(() => parseCsv(input)));
  }
});

describe('buildDivipola', () => {
  const header = ['departamento_codigo', 'departamento', 'municipio_codigo', 'municipio'];
  test('groups, sorts departments and municipios by name ignoring accents', () => {
    const rows = [
      header,
      ['68', 'SANTANDER', '68081', 'BARRANCABERMEJA'],
      ['68', 'SANTANDER', '68001', 'BUCARAMANGA'],
      ['05', 'ANTIOQUIA', '05002', 'ABEJORRAL'],
      ['05', 'ANTIOQUIA', '05004', 'ABRIAQUÍ'],
      ['05', 'ANTIOQUIA', '05001', 'MEDELLÍN'],
      ['23', 'CÓRDOBA', '23001', 'MONTERÍA'],
      ['25', 'CUNDINAMARCA', '25001', 'AGUA DE DIOS'],
      [''],
    ];
    assert.deepEqual(buildDivipola(rows), [
      { codigo: '05', nombre: 'ANTIOQUIA', municipios: [
        { codigo: '05002', nombre: 'ABEJORRAL' },
        { codigo: '05004', nombre: 'ABRIAQUÍ' },
        { codigo: '05001', nombre: 'MEDELLÍN' },
      ] },
      { codigo: '23', nombre: 'CÓRDOBA', municipios: [{ codigo: '23001', nombre: 'MONTERÍA' }] },
      { codigo: '25', nombre: 'CUNDINAMARCA', municipios: [{ codigo: '25001', nombre: 'AGUA DE DIOS' }] },
      { codigo: '68', nombre: 'SANTANDER', municipios: [
        { codigo: '68081', nombre: 'BARRANCABERMEJA' },
        { codigo: '68001', nombre: 'BUCARAMANGA' },
      ] },
    ]);
  });
  const bad: Array<[name: string, rows: string[][]]> = [
    ['wrong header', [['a', 'b', 'c', 'd']]],
    ['missing header', []],
    ['short row', [header, ['68', 'SANTANDER', '68001']]],
    ['code of another department', [header, ['68', 'SANTANDER', '05001', 'MEDELLÍN']]],
    ['bad department code', [header, ['6', 'SANTANDER', '60001', 'X']]],
    ['duplicate municipio code', [header, ['68', 'SANTANDER', '68001', 'A'], ['68', 'SANTANDER', '68001', 'B']]],
    ['department with two names', [header, ['68', 'SANTANDER', '68001', 'A'], ['68', 'SANTANDERES', '68002', 'B']]],
    ['empty name', [header, ['68', 'SANTANDER', '68001', ' ']]],
  ];
  for (const [name, rows] of bad) {
    test(`throws: ${name}`, () => assert.throws(() => buildDivipola(rows)));
  }
});

describe('renderDivipolaModule', () => {
  test('emits a typed, deterministic module', () => {
    const text = renderDivipolaModule([
      { codigo: '11', nombre: 'BOGOTÁ, D.C.', municipios: [{ codigo: '11001', nombre: 'BOGOTÁ, D.C.' }] },
    ]);
    assert.match(text, /^\/\/ GENERATED/);
    assert.match(text, /export const DIVIPOLA: readonly DivipolaDepartamento\[\] = \[/);
    assert.match(text, /\{ codigo: "11001", nombre: "BOGOTÁ, D\.C\." \},/);
    assert.match(text, /1 departamentos, 1 municipios/);
  });
});

// The committed data file must be what the generator makes of DANE's CSV, kept beside it in the repository.
const csvPath = fileURLToPath(new URL('./divipola.csv', import.meta.url));
const dataPath = fileURLToPath(new URL('./divipola.data.ts', import.meta.url));
test('divipola.data.ts is up to date with divipola.csv', () => {
  assert.equal(readFileSync(dataPath, 'utf8'), generateDivipolaModule(readFileSync(csvPath, 'utf8')));
});
