// CSV for Spanish-language spreadsheets (Excel and LibreOffice with a Colombian locale): UTF-8 with a BOM so
// accents survive, ';' between cells because ',' is the decimal separator, CRLF line ends, quoting per
// RFC 4180, and cells that a spreadsheet would run as a formula neutralised with a leading apostrophe.
// Files are produced as a stream of lines, never built whole in memory.

import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { formatHundredths } from './decimal.js';

export const CSV_BOM = '\uFEFF';
export const CSV_SEPARATOR = ';';
export const CSV_EOL = '\r\n';

export type CsvValue = string | number | null | undefined;

// A leading =, +, -, @, tab or carriage return makes Excel and LibreOffice read the cell as a formula.
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[;"\r\n]/;

/** One cell: text neutralised against formula injection, then quoted when it holds ; " CR or LF. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'number' ? String(value) : value;
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line, CRLF included. */
export function csvRow(cells: readonly CsvValue[]): string {
  return cells.map(csvCell).join(CSV_SEPARATOR) + CSV_EOL;
}

/** Hundredths as a spreadsheet decimal with a comma: 25978300 → '259783,00'. */
export const csvDecimal = (hundredths: number): string => formatHundredths(hundredths);

/** Rows as they are read from the database: a page at a time. */
export type CsvPage = readonly (readonly CsvValue[])[];

/**
 * A file in pieces, BOM first: the header, then the lines of each page the source yields, one piece a page (a
 * piece a line cost more in stream and socket calls than the lines themselves). Pull-based, so a slow reader holds
 * back the database reads (backpressure) and only one page of rows is in memory at a time.
 */
export async function* csvChunks(header: readonly string[], pages: AsyncIterable<CsvPage>): AsyncGenerator<string> {
  yield CSV_BOM + csvRow(header);
  for await (const page of pages) {
    if (page.length > 0) yield page.map(csvRow).join('');
    // Other requests get a turn between pages: on SQLite (a synchronous driver) a stream pulled on microtasks would
    // otherwise hold the event loop for the whole file (1.1 s of CPU for a CSV of 100,000 lines, decision 0155).
    await setImmediate();
  }
}

/** A Readable over the pieces, ready to hand to reply.send(). */
export function csvStream(chunks: AsyncIterable<string>): Readable {
  return Readable.from(chunks, { objectMode: false });
}

/** Keyset paging: calls `fetch` with the last row of the previous page (null first) until a short page. */
export async function* keysetBatches<T>(fetch: (after: T | null) => Promise<T[]>, pageSize: number): AsyncGenerator<T[]> {
  let after: T | null = null;
  for (;;) {
    const page = await fetch(after);
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!;
  }
}

/** A safe file name for Content-Disposition: letters, digits, dot, dash and underscore only. */
export function contentDisposition(fileName: string): string {
  const safe = fileName.replace(/[^A-Za-z0-9._-]/g, '_');
  return `attachment; filename="${safe}"`;
}

/** A CSV download as an export action describes it: its file name, heading and pages (src/web/csv-export.ts sends it). */
export interface CsvDownload {
  fileName: string;
  header: readonly string[];
  /** pages of rows, one line per record and nothing else (no total line: a spreadsheet's sum of a column must stay right) */
  pages: AsyncIterable<CsvPage>;
}

/** Export pages hold patient data: let only as many rows as a database page be in flight at once. */
export const EXPORT_PAGE_SIZE = 1000;
