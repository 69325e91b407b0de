import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { isDomainError } from '../shared/domain-error.js';
import { cellRef, decodeText, detectDelimiter, IMPORT_BAD_FILE, readSpreadsheet } from './import.parse.js';

describe('reading a CSV', () => {
  test('UTF-8 with or without BOM, else Windows-1252', () => {
    assert.equal(decodeText(Buffer.from('\uFEFFPeña', 'utf8')), 'Peña');
    assert.equal(decodeText(Buffer.from('Peña', 'utf8')), 'Peña');
    assert.equal(decodeText(iconv.encode('Peña Núñez', 'win1252')), 'Peña Núñez');
  });
  test('the delimiter of the first line, quotes respected', () => {
    assert.equal(detectDelimiter('a;b;c\n1,5;2;3'), ';');
    assert.equal(detectDelimiter('a,b,c\n1;2'), ',');
    assert.equal(detectDelimiter('"x;y",b,c'), ',');
  });
  test('quoted cells with separators and line breaks; blank lines dropped', async () => {
    const sheet = await readSpreadsheet('a.csv', Buffer.from('nombre;apellido\r\n"Ana; María";"Ruiz\r\nGil"\r\n;\r\n', 'utf8'));
    assert.deepEqual(sheet.header, ['nombre', 'apellido']);
    assert.deepEqual(sheet.rows, [['Ana; María', 'Ruiz\r\nGil']]);
  });
  test('rows are records: line breaks in quoted cells and blank lines count for nothing; the bounds are checked as it reads', async () => {
    const records = Array.from({ length: 20_000 }, (_, i) => `"x\r\n${i}";b`);
    const text = `nombre;apellido\r\n\r\n${records.join('\r\n\r\n')}\r\n`;
    assert.equal((await readSpreadsheet('a.csv', Buffer.from(text))).rows.length, 20_000);
    await assert.rejects(readSpreadsheet('a.csv', Buffer.from(`${text}"y\r\nz";b\r\n`)), (e: unknown) => isDomainError<{ message: string }>(e, IMPORT_BAD_FILE) && /más de 20\.000 filas/.test(e.details.message));
    await assert.rejects(readSpreadsheet('a.csv', Buffer.from(`a\r\n${'x'.repeat(40_000)}\r\n`)), (e: unknown) => isDomainError<{ message: string }>(e, IMPORT_BAD_FILE) && /La celda A2 tiene más de 32\.767/.test(e.details.message));
    await assert.rejects(readSpreadsheet('a.csv', Buffer.from(`a;b\r\n${';'.repeat(600)}x\r\n`)), (e: unknown) => isDomainError<{ message: string }>(e, IMPORT_BAD_FILE) && /más de 500 columnas/.test(e.details.message));
  });
  test('an unclosed quote is a clear error', async () => {
    await assert.rejects(readSpreadsheet('a.csv', Buffer.from('nombre\r\n"Ana\r\n', 'utf8')), (e: unknown) => isDomainError<{ message: string }>(e, IMPORT_BAD_FILE) && /no se pudo leer/.test(e.details.message));
  });
  test('cell references as a spreadsheet names them', () => {
    assert.equal(cellRef(2, 1), 'A2');
    assert.equal(cellRef(10, 26), 'Z10');
    assert.equal(cellRef(3, 27), 'AA3');
  });
});
