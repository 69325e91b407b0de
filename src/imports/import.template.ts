// The import's templates: the heading row, the specification's field names. exceljs writes the .xlsx (reading
// never uses it: import.xlsx.ts streams, in the import's worker thread).

import type ExcelJS from 'exceljs';
import { IMPORT_FIELDS, XLSX_TEXT_COLUMNS } from './import.rules.js';

/**
 * exceljs, loaded by the first template written, not at the server's start: loaded, it holds ~7 MB of the heap,
 * which every major collection of every request's garbage would mark again. A load that failed (out of file
 * handles, say) is tried again by the next template.
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

export async function templateXlsx(): Promise<Buffer> {
  const Excel = await loadExcelJs();
  const workbook = new Excel.Workbook();
  const sheet = workbook.addWorksheet('Pacientes');
  sheet.addRow([...IMPORT_FIELDS]);
  sheet.getRow(1).font = { bold: true };
  for (const field of XLSX_TEXT_COLUMNS) {
    // Text cells: Excel would otherwise drop a documento's leading zeros or turn dates into serial numbers.
    sheet.getColumn(IMPORT_FIELDS.indexOf(field) + 1).numFmt = '@';
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
