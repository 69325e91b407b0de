// Spreadsheets for the import's scale tests and its harness: N valid patients as CSV or .xlsx, and the crafted
// workbooks of a hostile tester (decision 0057).
import { crc32, createDeflateRaw } from 'node:zlib';
import { IMPORT_FIELDS } from '../../src/imports/import.rules.js';
import { patientRow } from './import-helpers.js';
import { xlsxOf, xlsxParts, zipParts, type XCell } from './xlsx-writer.js';

const NOMBRES = ['Ana', 'Luis', 'Marta', 'Jorge', 'Lucía', 'Pedro', 'Sofía', 'Andrés', 'Paula', 'Camilo', 'Diana', 'Óscar', 'Valentina', 'Hernán'];
const APELLIDOS = ['Gómez', 'Rodríguez', 'Peñaloza', 'Muñoz', 'Vargas', 'Rojas', 'Castro', 'Ortiz', 'Suárez', 'Jiménez', 'Niño', 'Ramírez'];

/** The birth date of row i: one day each from 1930, so no two rows of a file are the same person by the rule. */
const birth = (i: number) => new Date(Date.UTC(1930, 0, 1) + i * 86_400_000);

/**
 * N valid rows as cells by column (IMPORT_FIELDS order). Row i has the documento `${prefix}${i}` when `distinct`
 * is absent; with `distinct`, row i repeats the person of row i % distinct (a repeated documento: omitted).
 * `surname` ends every apellido: two files with different ones hold no similar people.
 */
export function patientCells(n: number, prefix: string, distinct = n, surname = ''): { cells: Record<string, string>[]; births: Date[] } {
  const cells: Record<string, string>[] = [];
  const births: Date[] = [];
  for (let i = 0; i < n; i++) {
    const p = i % distinct;
    const b = birth(p);
    births.push(b);
    cells.push(
      patientRow({
        nombre: NOMBRES[p % NOMBRES.length]!,
        apellido: `${APELLIDOS[p % APELLIDOS.length]!} ${APELLIDOS[(p * 7 + 3) % APELLIDOS.length]!}${surname}`,
        documento: `${prefix}${String(p).padStart(6, '0')}`,
        fecha_nacimiento: `${String(b.getUTCDate()).padStart(2, '0')}/${String(b.getUTCMonth() + 1).padStart(2, '0')}/${b.getUTCFullYear()}`,
      }),
    );
  }
  return { cells, births };
}

/** The rows as an .xlsx: text in shared strings, birth dates as date cells, estrato as a number. */
export function patientsXlsx(n: number, prefix: string, distinct = n, surname = ''): Buffer {
  const { cells, births } = patientCells(n, prefix, distinct, surname);
  const rows: XCell[][] = cells.map((r, i) =>
    IMPORT_FIELDS.map((f): XCell => (f === 'fecha_nacimiento' ? births[i]! : f === 'estrato' ? Number(r[f]) : (r[f] ?? ''))),
  );
  return xlsxOf([...IMPORT_FIELDS], rows, { customDateFormat: true });
}

/** A sheet of `rows` one-cell rows, ~5 bytes of zip each (the hostile tester's: 506 KB for 100,000). */
export function manyRowsXlsx(rows: number): Buffer {
  const parts = xlsxParts([{ name: 'Hoja1', rows: [] }]);
  const sheet = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${Array.from(
    { length: rows },
    (_, i) => `<row r="${i + 1}"><c r="A${i + 1}" t="inlineStr"><is><t>x</t></is></c></row>`,
  ).join('')}</sheetData></worksheet>`;
  return zipParts(parts.map((p) => (p.name === 'xl/worksheets/sheet1.xml' ? { ...p, data: sheet } : p)));
}

/**
 * A workbook whose shared strings hold one string of `chars` characters, deflated as it streams (never built
 * whole): ~1.8 MB of zip for 400 MB. `declaredSize` writes another size in the zip's headers (a lie).
 */
export async function hugeStringXlsx(chars: number, declaredSize?: number): Promise<Buffer> {
  const head = Buffer.from('<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>');
  const tail = Buffer.from('</t></si></sst>');
  const deflate = createDeflateRaw({ level: 1 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  let crc = crc32(head);
  deflate.write(head);
  const chunk = Buffer.alloc(1 << 20, 'a');
  for (let left = chars; left > 0; left -= chunk.length) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    crc = crc32(piece, crc);
    deflate.write(piece);
  }
  crc = crc32(tail, crc);
  await new Promise<void>((resolve) => deflate.end(tail, () => resolve()));
  const size = head.length + chars + tail.length;
  const parts = xlsxParts([{ name: 'Hoja1', rows: [['nombre'], [{ inline: 'x' }]] }]).filter((p) => p.name !== 'xl/sharedStrings.xml');
  return zipParts([...parts, { name: 'xl/sharedStrings.xml', data: '', deflated: { bytes: Buffer.concat(out), size, crc }, ...(declaredSize === undefined ? {} : { declaredSize }) }]);
}

/** A workbook whose sheet declares `declared` bytes but inflates to ~`actual`. */
export function lyingSheetXlsx(declared: number, actual: number): Buffer {
  const parts = xlsxParts([{ name: 'Hoja1', rows: [['nombre'], ...Array.from({ length: Math.ceil(actual / 60) }, () => [{ inline: 'x' }])] }]);
  return zipParts(parts.map((p) => (p.name === 'xl/worksheets/sheet1.xml' ? { ...p, declaredSize: declared } : p)));
}
