// A tiny .xlsx writer for the tests and the harness: the zip written byte by byte (local headers, central
// directory), so a test can also write what no spreadsheet program would: a part whose declared size lies, a
// part that inflates to hundreds of megabytes, a sheet of 100,000 one-cell rows.
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipPart {
  name: string;
  data: Buffer | string;
  /** The uncompressed size written in the headers (the real one when absent): a lie for the crafted files. */
  declaredSize?: number;
  /** Already deflated bytes (with the real uncompressed size and CRC given), for parts too big to build in memory. */
  deflated?: { bytes: Buffer; size: number; crc: number };
}

/** A zip of the parts, each deflated (method 8). */
export function zipParts(parts: readonly ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const raw = part.deflated ? null : Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data, 'utf8');
    const bytes = part.deflated?.bytes ?? deflateRawSync(raw!);
    const crc = part.deflated?.crc ?? crc32(raw!);
    const size = part.declaredSize ?? part.deflated?.size ?? raw!.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(bytes.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(bytes.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, bytes);
    centrals.push(central, name);
    offset += local.length + name.length + bytes.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export type XCell = string | number | boolean | Date | null | { formula: string; value?: number } | { error: string } | { rich: string[] } | { inline: string };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function columnName(col: number): string {
  let name = '';
  for (let c = col; c > 0; c = Math.floor((c - 1) / 26)) name = String.fromCharCode(65 + ((c - 1) % 26)) + name;
  return name;
}

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/**
 * The parts of a workbook: text in shared strings (or inline when `inline`), dates as serial numbers in a date
 * format (built-in 14, or the custom 'dd/mm/yyyy' with `customDateFormat`), sheets in order.
 */
export function xlsxParts(sheets: readonly { name: string; rows: readonly (readonly XCell[])[] }[], options: { inline?: boolean; customDateFormat?: boolean; date1904?: boolean } = {}): ZipPart[] {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const shared = (s: string) => {
    let i = index.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      index.set(s, i);
    }
    return i;
  };
  const epoch = options.date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  const cellXml = (v: XCell, ref: string): string => {
    if (v === null || v === '') return '';
    if (typeof v === 'string') return options.inline ? `<c r="${ref}" t="inlineStr"><is><t>${esc(v)}</t></is></c>` : `<c r="${ref}" t="s"><v>${shared(v)}</v></c>`;
    if (typeof v === 'number') return `<c r="${ref}"><v>${v}</v></c>`;
    if (typeof v === 'boolean') return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
    if (v instanceof Date) return `<c r="${ref}" s="1"><v>${(v.getTime() - epoch) / 86_400_000}</v></c>`;
    if ('formula' in v) return `<c r="${ref}"><f>${esc(v.formula)}</f><v>${v.value ?? 0}</v></c>`;
    if ('error' in v) return `<c r="${ref}" t="e"><v>${esc(v.error)}</v></c>`;
    if ('inline' in v) return `<c r="${ref}" t="inlineStr"><is><t>${esc(v.inline)}</t></is></c>`;
    return `<c r="${ref}" t="inlineStr"><is>${v.rich.map((t) => `<r><t xml:space="preserve">${esc(t)}</t></r>`).join('')}</is></c>`;
  };
  const sheetParts = sheets.map((sheet, i) => {
    const rows = sheet.rows.map((row, r) => `<row r="${r + 1}">${row.map((v, c) => cellXml(v, `${columnName(c + 1)}${r + 1}`)).join('')}</row>`);
    return { name: `xl/worksheets/sheet${i + 1}.xml`, data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${NS}"><sheetData>${rows.join('')}</sheetData></worksheet>` };
  });
  const dateFmt = options.customDateFormat ? 164 : 14;
  return [
    {
      name: '[Content_Types].xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>`,
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${NS}" xmlns:r="${REL}"><workbookPr${options.date1904 ? ' date1904="1"' : ''}/><sheets>${sheets
        .map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
        .join('')}</sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
        .map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`)
        .join('')}<Relationship Id="rIdS" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rIdT" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
    },
    {
      name: 'xl/styles.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="${NS}">${
        options.customDateFormat ? '<numFmts count="1"><numFmt numFmtId="164" formatCode="dd/mm/yyyy;@"/></numFmts>' : ''
      }<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="${dateFmt}" applyNumberFormat="1"/></cellXfs></styleSheet>`,
    },
    ...sheetParts,
    {
      name: 'xl/sharedStrings.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${NS}" count="${strings.length}" uniqueCount="${strings.length}">${strings.map((s) => `<si><t xml:space="preserve">${esc(s)}</t></si>`).join('')}</sst>`,
    },
  ];
}

/** A workbook with one sheet: the header, then the rows. */
export function xlsxOf(header: readonly string[], rows: readonly (readonly XCell[])[], options: Parameters<typeof xlsxParts>[1] = {}): Buffer {
  return zipParts(xlsxParts([{ name: 'Pacientes', rows: [header, ...rows] }], options));
}
