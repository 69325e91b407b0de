import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hugeStringXlsx, lyingSheetXlsx, manyRowsXlsx } from '../../test/imports/import-files.js';
import { xlsxOf, xlsxParts, zipParts } from '../../test/imports/xlsx-writer.js';
import { isDomainError } from '../shared/domain-error.js';
import { IMPORT_BAD_FILE } from './import.errors.js';
import { readSpreadsheet } from './import.parse.js';
import { isDateFormat, readXlsx, serialToIso } from './import.xlsx.js';

const refused = (pattern: RegExp) => (e: unknown) => {
  assert.ok(isDomainError<{ message: string }>(e, IMPORT_BAD_FILE), String(e));
  assert.match(e.details.message, pattern);
  return true;
};

describe('reading an .xlsx as a stream', () => {
  test('shared and inline strings, rich text, numbers, booleans, dates; blank rows dropped, holes kept as empty cells', async () => {
    const file = xlsxOf(
      ['nombre', 'fecha', 'n', 'b', 'rico'],
      [
        ['Ana María', new Date(Date.UTC(1971, 4, 6)), 1.58, true, { rich: ['Pé', 'rez'] }],
        [null, null, null, null, null],
        [{ inline: 'Luis & <Co>' }, new Date(Date.UTC(2000, 1, 29)), 3, false, null],
        [null, null, 7, null, null],
      ],
    );
    const sheet = await readXlsx(file);
    assert.deepEqual(sheet.header, ['nombre', 'fecha', 'n', 'b', 'rico']);
    assert.deepEqual(sheet.rows, [
      ['Ana María', '1971-05-06', '1.58', 'VERDADERO', 'Pérez'],
      ['Luis & <Co>', '2000-02-29', '3', 'FALSO'],
      ['', '', '7'],
    ]);
  });

  test('date cells in a custom format and in the 1904 date system; a number in no date format stays a number', async () => {
    const custom = await readXlsx(xlsxOf(['d'], [[new Date(Date.UTC(1975, 2, 14))]], { customDateFormat: true }));
    assert.deepEqual(custom.rows, [['1975-03-14']]);
    const mac = await readXlsx(xlsxOf(['d'], [[new Date(Date.UTC(1975, 2, 14))]], { date1904: true }));
    assert.deepEqual(mac.rows, [['1975-03-14']]);
    assert.equal(serialToIso(27467, false), '1975-03-14');
    assert.ok(isDateFormat('dd/mm/yyyy;@') && isDateFormat('[$-es-CO]d "de" mmmm "de" yyyy') && !isDateFormat('0.00') && !isDateFormat('"días" 0'));
  });

  test('the first sheet with data; a formula is noted by column (the analysis decides), in the heading refused; an error cell refused', async () => {
    const two = zipParts(xlsxParts([{ name: 'Vacía', rows: [[null]] }, { name: 'Datos', rows: [['nombre'], ['Ana']] }]));
    assert.deepEqual((await readXlsx(two)).rows, [['Ana']]);
    const withFormula = await readXlsx(xlsxOf(['a', 'b'], [['x', { formula: 'A2*2', value: 4 }], ['y', { formula: 'A3*2', value: 4 }]]));
    assert.deepEqual(withFormula.formulas, [{ col: 2, ref: 'B2' }]);
    assert.deepEqual(withFormula.rows, [['x'], ['y']]);
    await assert.rejects(readXlsx(zipParts(xlsxParts([{ name: 'P', rows: [[{ formula: 'ROW()', value: 1 }, 'b'], ['x', 'y']] }]))), refused(/La celda A1 contiene una fórmula/));
    await assert.rejects(readXlsx(xlsxOf(['a'], [[{ error: '#N/A' }]])), refused(/La celda A2 contiene un error de Excel/));
    await assert.rejects(readXlsx(zipParts(xlsxParts([{ name: 'Vacía', rows: [] }]))), refused(/no tiene ninguna hoja con datos/));
  });

  test('a sheet of 100,000 one-cell rows (a 0.5 MB file) stops at the 20,001st data row', async () => {
    const file = manyRowsXlsx(100_000);
    assert.ok(file.length < 1024 * 1024, String(file.length));
    await assert.rejects(readSpreadsheet('filas.xlsx', file), refused(/más de 20\.000 filas de datos/));
  });

  test('a shared string of 400 MB in a 2 MB file is refused by its declared size, before it is inflated', async () => {
    const file = await hugeStringXlsx(400 * 1024 * 1024);
    assert.ok(file.length < 5 * 1024 * 1024, String(file.length));
    await assert.rejects(readSpreadsheet('bomba.xlsx', file), refused(/ocupa demasiado al descomprimirlo/));
  });

  test('a part whose declared size lies is refused as soon as its inflated bytes pass the declaration', async () => {
    await assert.rejects(readSpreadsheet('miente.xlsx', lyingSheetXlsx(2000, 200_000)), refused(/dañado/));
    // The same lie about the 400 MB shared string: refused without inflating it whole.
    await assert.rejects(readSpreadsheet('miente.xlsx', await hugeStringXlsx(400 * 1024 * 1024, 1000)), refused(/dañado/));
  });

  test('a text longer than a cell holds, a row with data beyond 500 columns, a truncated or encrypted file', async () => {
    await assert.rejects(readXlsx(xlsxOf(['a'], [['x'.repeat(40_000)]])), refused(/más de 32\.767 caracteres/));
    await assert.rejects(readXlsx(xlsxOf(['a'], [[{ inline: 'x'.repeat(40_000) }]])), refused(/La celda A2 tiene más de 32\.767 caracteres/));
    const wide = Array.from({ length: 501 }, (_, i) => `c${i}`);
    await assert.rejects(readXlsx(xlsxOf(wide, [])), refused(/La fila 1 tiene datos en más de 500 columnas/));
    const file = xlsxOf(['a'], [['x']]);
    await assert.rejects(readSpreadsheet('cortado.xlsx', file.subarray(0, file.length - 30)), refused(/dañado/));
    const encrypted = Buffer.from(file);
    // The general-purpose flag's bit 0 (encrypted) of every central directory entry.
    for (let i = encrypted.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); i >= 0; i = encrypted.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), i + 4)) encrypted[i + 8]! |= 1;
    await assert.rejects(readSpreadsheet('clave.xlsx', encrypted), refused(/protegido con contraseña|dañado/));
  });
});
