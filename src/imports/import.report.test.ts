// The import's explanations (issue 29, decision 0117): problems named by the file's headings, cells as the file
// had them, and the CSV line of a row left out.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { displayCell, headingOf, problemText, reasonOf, reportHeader, reportLine, rowProblems, type FileColumns } from './import.report.js';
import type { RowAnalysis } from './import.rules.js';

const COLUMNS: FileColumns = { kind: 'csv', fields: ['documento', 'fecha_nacimiento', 'valor_capita'], headings: ['Cédula', 'Nacimiento', 'Valor cápita'] };

const row = (over: Partial<RowAnalysis>): RowAnalysis =>
  ({
    line: 12,
    values: {},
    raw: ['1234', '14/03/1975', 'mucho'],
    errors: {},
    status: 'omitir',
    documentoDuplicate: null,
    similar: { lines: [], patientIds: [] },
    patient: null,
    fechaInicio: null,
    estado: 'ACTIVO',
    ...over,
  }) as RowAnalysis;

describe('import explanations', () => {
  test("a field reads by the file's heading, else by the form's label", () => {
    assert.equal(headingOf(COLUMNS, 'valor_capita'), 'Valor cápita');
    assert.equal(headingOf(COLUMNS, 'documento'), 'Cédula');
    assert.equal(headingOf(COLUMNS, 'genero'), 'Género');
    assert.equal(headingOf(COLUMNS, 'estado'), 'Estado');
  });

  test("every problem of a row, in the file's column order, then the row's own", () => {
    const r = row({
      errors: { valor_capita: 'Ingrese un número válido.', documento: 'Documento no válido.', _form: 'Columna desconocida.' },
      documentoDuplicate: { patientId: 7 },
    });
    assert.deepEqual(rowProblems(r, COLUMNS).map(problemText), [
      'Cédula: Documento no válido.',
      'Valor cápita: Ingrese un número válido.',
      'Columna desconocida.',
      'Cédula: Ya existe un paciente con este documento (ficha n.º 7).',
    ]);
    const similar = row({ status: 'revisar', similar: { lines: [3, 5], patientIds: [9] } });
    assert.equal(reasonOf(rowProblems(similar, COLUMNS)), 'Posible duplicado: misma fecha de nacimiento y nombre parecido que la ficha n.º 9 y las filas 3, 5.');
  });

  test('cells as the file had them: a CSV as written, an .xlsx date as Excel shows it', () => {
    assert.equal(displayCell(COLUMNS, 1, '1975-03-14'), '1975-03-14');
    assert.equal(displayCell({ ...COLUMNS, kind: 'xlsx' }, 1, '1975-03-14'), '14/03/1975');
    assert.equal(displayCell({ ...COLUMNS, kind: 'xlsx' }, 2, '1975-03-14'), '1975-03-14');
  });

  test('the CSV of rows left out: the headings and «motivo», a row as the file had it with its reasons', () => {
    assert.equal(reportHeader(COLUMNS), 'Cédula;Nacimiento;Valor cápita;motivo\r\n');
    const r = row({ errors: { valor_capita: 'Ingrese un número válido; con máximo 2 decimales.' } });
    assert.equal(reportLine(r, COLUMNS), '1234;14/03/1975;mucho;"Valor cápita: Ingrese un número válido; con máximo 2 decimales."\r\n');
  });
});
