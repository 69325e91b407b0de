// Reading an uploaded spreadsheet into rows of text cells (decisions 0042 and 0057): CSV in UTF-8 or Windows-1252
// with ';' or ',' (as a Spanish-locale Excel writes it), parsed by csv-parse a record at a time; .xlsx read as a
// stream by import.xlsx.ts. Rows are counted as records, never as lines, and the reading stops at the first one
// over the bounds. Runs in the import's worker thread (import.worker.ts). Every refusal is an IMPORT_BAD_FILE
// domain error carrying the message the page shows.

import { CsvError, parse as parseCsv } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { isDomainError } from '../shared/domain-error.js';
import { badFile, FILE_MSG, IMPORT_BAD_FILE, MAX_CELL_CHARS, MAX_COLUMNS, MAX_RECORD_CHARS } from './import.errors.js';
import { cellRef, RowCollector, type SheetData } from './import.rows.js';
import { MAX_IMPORT_BYTES } from './import.rules.js';
import { readXlsx } from './import.xlsx.js';

export { badFile, FILE_MSG, IMPORT_BAD_FILE } from './import.errors.js';
export { cellRef, type SheetData } from './import.rows.js';

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** OLE compound file: what an encrypted .xlsx (and an old .xls) is. */
const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** The extension of a file name, from the whole name (never from a shortened one), lower case. */
export const extensionOf = (fileName: string): string => {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : fileName.slice(dot + 1).toLowerCase();
};

/** Reads the file by its name and content; throws the IMPORT_BAD_FILE domain error. */
export async function readSpreadsheet(fileName: string, data: Buffer): Promise<SheetData> {
  if (data.length === 0) throw badFile(FILE_MSG.empty);
  if (data.length > MAX_IMPORT_BYTES) throw badFile(FILE_MSG.tooBig);
  const ext = extensionOf(fileName);
  if (data.subarray(0, 8).equals(CFB_MAGIC)) throw badFile(FILE_MSG.protected);
  if (ext === 'xlsx') {
    if (!data.subarray(0, 4).equals(ZIP_MAGIC)) throw badFile(FILE_MSG.corrupt);
    return readXlsx(data);
  }
  if (ext === 'csv' || ext === 'txt') return readCsv(data);
  throw badFile(FILE_MSG.kind);
}

/** UTF-8 (with or without BOM) when the bytes are valid UTF-8, else Windows-1252 (Excel's "CSV" on Windows). */
export function decodeText(data: Buffer): string {
  if (data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) return data.subarray(3).toString('utf8');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return iconv.decode(data, 'win1252');
  }
}

/** ';' or ',': whichever appears more often in the first line outside quotes (Spanish Excel writes ';'). */
export function detectDelimiter(text: string): ';' | ',' {
  let semicolons = 0;
  let commas = 0;
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch === ';') semicolons++;
    else if (!quoted && ch === ',') commas++;
  }
  return semicolons >= commas && semicolons > 0 ? ';' : ',';
}

/**
 * The CSV's records, each handed to the collector as csv-parse completes it: a line break inside a quoted cell or
 * a blank line is no record, and the 20,001st record with data stops the reading.
 */
function readCsv(data: Buffer): SheetData {
  if (data.includes(0)) throw badFile(FILE_MSG.binary);
  const text = decodeText(data);
  const rows = new RowCollector('csv');
  try {
    parseCsv(text, {
      delimiter: detectDelimiter(text),
      relax_column_count: true,
      skip_empty_lines: true,
      bom: true,
      max_record_size: MAX_RECORD_CHARS,
      on_record: (record: string[]) => {
        // A data row's number as the preview shows it: the heading is row 1, blank rows are not counted.
        const row = rows.hasData() ? rows.count + 2 : 1;
        const cells: string[] = [];
        for (let j = 0; j < record.length; j++) {
          const cell = record[j]!;
          if (cell === '') continue;
          if (j >= MAX_COLUMNS && cell.trim() === '') continue;
          if (cell.length > MAX_CELL_CHARS) throw badFile(FILE_MSG.cellTooLong(cellRef(row, j + 1)));
          if (row > 1 && cell.trimStart().startsWith('=')) {
            rows.formula(j + 1, cellRef(row, j + 1));
            continue;
          }
          rows.cell(cells, j + 1, cell, row);
        }
        rows.row(cells);
        return null;
      },
    });
  } catch (err) {
    if (isDomainError(err, IMPORT_BAD_FILE)) throw err;
    if (err instanceof CsvError && err.code === 'CSV_MAX_RECORD_SIZE') throw badFile(FILE_MSG.csvBroken(`una fila pasa de ${MAX_RECORD_CHARS.toLocaleString('es-CO')} caracteres.`));
    throw badFile(FILE_MSG.csvBroken(err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : 'formato no válido'));
  }
  return rows.result();
}
