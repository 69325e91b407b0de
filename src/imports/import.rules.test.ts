import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyseRows, dayFirstToIso, IMPORT_FIELDS, matchHeader, parseEstadoInicial, shortFileName, type ImportField } from './import.rules.js';

const TODAY = '2026-11-22';
const base: Record<string, string> = {
  nombre: 'Ana', apellido: 'Ruiz', tipo_documento: 'PA', documento: 'A1', fecha_nacimiento: '1960-01-01', genero: 'F', departamento: '',
  ciudad: 'BUCARAMANGA', zona: 'URBANA', telefono: '1', celular: '2', estado_civil: 'CASADO', entidad_salud: 'ENTITY_A', estrato: '3',
  peso: '', altura: '', perimetro_abdominal: '', cuello: '', medico_remitente: 'X', especialidad: 'Y', diagnostico_clinico: 'G47.3',
  programa: 'PROGRAMA AOS', valor_capita: '', fecha_inicio_programa: '', estado: '',
};
const columns = [...IMPORT_FIELDS] as (ImportField | null)[];
const cells = (o: Record<string, string>) => IMPORT_FIELDS.map((f) => ({ ...base, ...o })[f] ?? '');

describe('matchHeader', () => {
  test('field names and Spanish headings, case, accents and punctuation ignored; unknown headings listed', () => {
    const r = matchHeader([...IMPORT_FIELDS.map((f) => f.toUpperCase()).slice(0, 3), 'Número de documento', ...IMPORT_FIELDS.slice(4), 'Notas']);
    assert.ok(r.ok);
    assert.equal(r.columns[3], 'documento');
    assert.deepEqual(r.ignored, ['Notas']);
    const spanish = matchHeader(['Nombre', 'Apellidos', 'tipo documento', 'Documento', 'FECHA DE NACIMIENTO', 'Sexo', 'Ciudad o municipio', 'zona',
      'teléfono', 'celular', 'estado civil', 'EPS', 'estrato', 'médico remitente', 'especialidad', 'diagnóstico', 'programa']);
    assert.ok(spanish.ok, spanish.ok ? '' : spanish.error);
  });
  test('a repeated column or a missing required one is refused', () => {
    const rep = matchHeader(['nombre', 'Nombre']);
    assert.equal(rep.ok, false);
    const missing = matchHeader(['nombre', 'apellido']);
    assert.ok(!missing.ok && /tipo_documento, documento/.test(missing.error));
  });
});

describe('cells', () => {
  test('day-first dates become ISO; anything else is left for the form to judge', () => {
    assert.equal(dayFirstToIso('14/03/1975'), '1975-03-14');
    assert.equal(dayFirstToIso('1.2.2001'), '2001-02-01');
    assert.equal(dayFirstToIso('1975-03-14'), '1975-03-14');
    assert.equal(dayFirstToIso('marzo 14'), 'marzo 14');
  });
  test('estado: blank or ACTIVO, SUSPENDIDO; anything else is an error', () => {
    assert.equal(parseEstadoInicial(''), 'ACTIVO');
    assert.equal(parseEstadoInicial(' suspendido '), 'SUSPENDIDO');
    assert.equal(parseEstadoInicial('TERMINADO'), null);
  });
});

describe('analyseRows', () => {
  test('errors from the create form rules, duplicates in the file and in the database, similar people', () => {
    const rows = [
      cells({ documento: 'A1' }),
      cells({ documento: 'a1 ', nombre: 'Otra' }),
      cells({ documento: 'B2', genero: 'Z', estado: 'TERMINADO' }),
      cells({ documento: 'C3' }), // stored already
      cells({ documento: 'D4', nombre: 'Ana', apellido: 'Ruis' }), // one typo from line 2, born the same day
      cells({ documento: 'E5', nombre: 'Pedro', apellido: 'Gil', fecha_nacimiento: '1950-05-05' }), // like a stored patient
    ];
    const a = analyseRows(rows, columns, TODAY, new Map([['C3', { id: 70 }]]), [
      { id: 71, nombre: 'Pedro', apellido: 'Gil', documento: 'Z9', fecha_nacimiento: '1950-05-05' },
    ]);
    assert.deepEqual(a.rows.map((r) => r.status), ['crear', 'omitir', 'omitir', 'omitir', 'revisar', 'revisar']);
    assert.deepEqual(a.rows[1]!.documentoDuplicate, { line: 2 });
    assert.deepEqual(Object.keys(a.rows[2]!.errors).sort(), ['estado', 'genero']);
    assert.deepEqual(a.rows[3]!.documentoDuplicate, { patientId: 70 });
    assert.deepEqual(a.rows[4]!.similar, { lines: [2], patientIds: [] });
    assert.deepEqual(a.rows[5]!.similar, { lines: [], patientIds: [71] });
    assert.deepEqual(a.counts, { total: 6, crear: 1, revisar: 2, omitir: 3, conErrores: 1, duplicados: 2 });
  });
});

describe('shortFileName', () => {
  test('a long name is cut in its middle, its extension kept; a folder some browsers send is dropped', () => {
    const long = shortFileName(`${'a'.repeat(246)}.csv`);
    assert.equal([...long].length, 200);
    assert.ok(long.endsWith('….csv'));
    assert.equal(shortFileName('C:\\Users\\ana\\pacientes.xlsx'), 'pacientes.xlsx');
    assert.equal(shortFileName('  '), 'archivo');
    assert.equal(shortFileName('corto.csv'), 'corto.csv');
  });
});
