// Reading an uploaded spreadsheet into rows of text cells (decision 0042): CSV in UTF-8 or Windows-1252 with ';'
// or ',' (as a Spanish-locale Excel writes it), parsed by csv-parse; .xlsx read by exceljs. Every refusal is an
// IMPORT_BAD_FILE domain error carrying the message the page shows.

import type ExcelJS from 'exceljs';
import { parse as parseCsv } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { conflict, type DomainError } from '../shared/domain-error.js';
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from './import.rules.js';

/** The uploaded file cannot be imported as it is; `details.message` is what the page shows. */
export const IMPORT_BAD_FILE = 'import.bad_file';
export const badFile = (message: string): DomainError<{ message: string }> => conflict(IMPORT_BAD_FILE, { message });

export interface SheetData {
  kind: 'csv' | 'xlsx';
  header: string[];
  rows: string[][];
}

const MB = MAX_IMPORT_BYTES / 1024 / 1024;
export const FILE_MSG = {
  empty: 'El archivo está vacío.',
  tooBig: `El archivo supera ${MB} MB. Divídalo en varios archivos más pequeños.`,
  tooManyRows: (n: number) => `El archivo tiene ${n.toLocaleString('es-CO')} filas de datos; el máximo es ${MAX_IMPORT_ROWS.toLocaleString('es-CO')}. Divídalo en varios archivos.`,
  kind: 'Solo se aceptan archivos .csv o .xlsx (Excel). Guarde la hoja en uno de esos formatos.',
  protected: 'El libro está protegido con contraseña (o es un .xls antiguo). Quite la contraseña y guárdelo como .xlsx, o expórtelo como CSV.',
  corrupt: 'El archivo .xlsx está dañado o no es un libro de Excel válido.',
  csvBroken: (detail: string) => `El CSV no se pudo leer: ${detail}`,
  noSheet: 'El libro no tiene ninguna hoja con datos.',
  noHeader: 'La primera fila debe tener los nombres de las columnas.',
  formula: (ref: string) => `La celda ${ref} contiene una fórmula. Copie y pegue la hoja «como valores» y vuelva a subirla.`,
  cellError: (ref: string) => `La celda ${ref} contiene un error de Excel (#¡VALOR!, #N/A…). Corríjala y vuelva a subir el archivo.`,
  binary: 'El archivo no es texto: no parece un CSV.',
} as const;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** OLE compound file: what an encrypted .xlsx (and an old .xls) is. */
const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** Reads the file by its name and content; throws the IMPORT_BAD_FILE domain error. */
export async function readSpreadsheet(fileName: string, data: Buffer): Promise<SheetData> {
  if (data.length === 0) throw badFile(FILE_MSG.empty);
  if (data.length > MAX_IMPORT_BYTES) throw badFile(FILE_MSG.tooBig);
  const ext = fileName.toLowerCase().split('.').pop() ?? '';
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

function readCsv(data: Buffer): SheetData {
  if (data.includes(0)) throw badFile(FILE_MSG.binary);
  const text = decodeText(data);
  let records: string[][];
  try {
    records = parseCsv(text, {
      delimiter: detectDelimiter(text),
      relax_column_count: true,
      skip_empty_lines: true,
      bom: true,
      max_record_size: 100_000,
      to_line: MAX_IMPORT_ROWS + 2,
    }) as string[][];
  } catch (err) {
    throw badFile(FILE_MSG.csvBroken(err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : 'formato no válido'));
  }
  const rows = records.filter((r) => r.some((c) => c.trim() !== ''));
  const header = rows.shift();
  if (!header) throw badFile(FILE_MSG.noHeader);
  if (rows.length > MAX_IMPORT_ROWS) throw badFile(FILE_MSG.tooManyRows(rows.length));
  rows.forEach((row, i) =>
    row.forEach((cell, j) => {
      if (cell.trimStart().startsWith('=')) throw badFile(FILE_MSG.formula(cellRef(i + 2, j + 1)));
    }),
  );
  return { kind: 'csv', header, rows };
}

/** 'C5' for row 5, column 3. */
export function cellRef(row: number, col: number): string {
  let name = '';
  for (let c = col; c > 0; c = Math.floor((c - 1) / 26)) name = String.fromCharCode(65 + ((c - 1) % 26)) + name;
  return `${name}${row}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * exceljs, loaded by the first spreadsheet read or written rather than at the server's start: loaded, it holds ~7 MB
 * of the heap, which every major collection of every request's garbage would mark again. A load that failed (out of
 * file handles, say) is tried again by the next spreadsheet.
 */
let excelJs: Promise<typeof ExcelJS> | undefined;
export const loadExcelJs = (): Promise<typeof ExcelJS> =>
  (excelJs ??= import('exceljs').then(
    (m) => m.default,
    (err: unknown) => {
      excelJs = undefined;
      throw err;
    },
  ));

async function readXlsx(data: Buffer): Promise<SheetData> {
  const Excel = await loadExcelJs();
  const workbook = new Excel.Workbook();
  try {
    await workbook.xlsx.load(data as unknown as ArrayBuffer);
  } catch {
    throw badFile(FILE_MSG.corrupt);
  }
  const sheet = workbook.worksheets.find((ws) => ws.actualRowCount > 0);
  if (!sheet) throw badFile(FILE_MSG.noSheet);
  if (sheet.actualRowCount - 1 > MAX_IMPORT_ROWS) throw badFile(FILE_MSG.tooManyRows(sheet.actualRowCount - 1));
  const out: string[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, colNumber) => {
      cells[colNumber - 1] = cellText(Excel, cell, cellRef(rowNumber, colNumber));
    });
    for (let i = 0; i < cells.length; i++) cells[i] ??= '';
    if (cells.some((c) => c.trim() !== '')) out.push(cells);
  });
  const header = out.shift();
  if (!header) throw badFile(FILE_MSG.noHeader);
  return { kind: 'xlsx', header, rows: out };
}

function cellText(Excel: typeof ExcelJS, cell: ExcelJS.Cell, ref: string): string {
  const v = cell.value;
  if (v === null || v === undefined) return '';
  if (cell.type === Excel.ValueType.Formula || cell.formula || (typeof v === 'object' && ('formula' in v || 'sharedFormula' in v))) {
    throw badFile(FILE_MSG.formula(ref));
  }
  if (cell.type === Excel.ValueType.Error || (typeof v === 'object' && 'error' in v)) throw badFile(FILE_MSG.cellError(ref));
  // A date cell is a calendar date at UTC midnight in exceljs: its UTC fields are the day as typed.
  if (v instanceof Date) return `${v.getUTCFullYear()}-${pad(v.getUTCMonth() + 1)}-${pad(v.getUTCDate())}`;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'VERDADERO' : 'FALSO';
  if (typeof v === 'string') return v;
  if ('richText' in v) return v.richText.map((r) => r.text).join('');
  if ('text' in v && typeof v.text === 'string') return v.text;
  return String(cell.text ?? '');
}
