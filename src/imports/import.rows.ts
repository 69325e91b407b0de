// The rows of a spreadsheet as they are read, CSV or .xlsx alike: blank rows dropped, the first row with data is
// the heading, and the bounds checked at each cell and row, so the reading stops at the first row over them.

import { badFile, FILE_MSG, MAX_COLUMNS, MAX_RECORD_CHARS } from './import.errors.js';
import { MAX_IMPORT_ROWS } from './import.rules.js';

export interface SheetData {
  kind: 'csv' | 'xlsx';
  header: string[];
  rows: string[][];
  /**
   * The first formula of each column that holds one (below the heading), by column (from 1) with its cell's
   * reference: refused in a column the import reads, ignored with a notice elsewhere (issue 29, decision 0117).
   */
  formulas: { col: number; ref: string }[];
}

/** 'C5' for row 5, column 3. */
export function cellRef(row: number, col: number): string {
  let name = '';
  for (let c = col; c > 0; c = Math.floor((c - 1) / 26)) name = String.fromCharCode(65 + ((c - 1) % 26)) + name;
  return `${name}${row}`;
}

export class RowCollector {
  private header: string[] | null = null;
  private readonly rows: string[][] = [];
  private chars = 0;
  private readonly formulas = new Map<number, string>();

  constructor(private readonly kind: SheetData['kind']) {}

  /** A cell with a value, column `col` (from 1) of the row numbered `row` (for the messages). */
  cell(cells: string[], col: number, value: string, row: number): void {
    if (col > MAX_COLUMNS) throw badFile(FILE_MSG.tooManyColumns(row));
    this.chars += value.length;
    if (this.chars > MAX_RECORD_CHARS) throw badFile(FILE_MSG.rowTooLong(row));
    cells[col - 1] = value;
  }

  /**
   * A formula in column `col` (from 1): its value is not read. In the heading row it is refused at once; below it,
   * where it lies decides (readForAnalysis), so the first of each column is kept.
   */
  formula(col: number, ref: string): void {
    if (this.header === null) throw badFile(FILE_MSG.formula(ref));
    if (!this.formulas.has(col)) this.formulas.set(col, ref);
  }

  /** The row is complete: kept unless blank; the heading first, then at most MAX_IMPORT_ROWS data rows. */
  row(cells: string[]): void {
    this.chars = 0;
    let blank = true;
    for (let i = 0; i < cells.length; i++) {
      const c = (cells[i] ??= '');
      if (blank && c.trim() !== '') blank = false;
    }
    if (blank) return;
    if (this.header === null) {
      this.header = cells;
      return;
    }
    if (this.rows.length >= MAX_IMPORT_ROWS) throw badFile(FILE_MSG.tooManyRows);
    this.rows.push(cells);
  }

  /** How many data rows so far. */
  get count(): number {
    return this.rows.length;
  }

  hasData(): boolean {
    return this.header !== null;
  }

  result(): SheetData {
    if (this.header === null) throw badFile(FILE_MSG.noHeader);
    return { kind: this.kind, header: this.header, rows: this.rows, formulas: [...this.formulas].map(([col, ref]) => ({ col, ref })) };
  }
}
