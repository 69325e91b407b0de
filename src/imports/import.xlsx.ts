// Reading an .xlsx as a stream, within bounds (decision 0057): the zip's central directory with yauzl, each part
// refused when its declared size is over a bound BEFORE it is inflated, and refused again when its inflated bytes
// pass what it declared (yauzl's validateEntrySizes); the parts' XML through saxes, a chunk at a time. The workbook
// and its relationships say which sheets there are, styles.xml which cells are dates; the shared strings are kept
// (their characters bounded), then the first sheet with data is read row by row, and the reading stops at the
// first row over the limits. Nothing here holds the file's whole text, nor a sheet's.

import { StringDecoder } from 'node:string_decoder';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { isDomainError } from '../shared/domain-error.js';
import { badFile, FILE_MSG, IMPORT_BAD_FILE, MAX_CELL_CHARS, MAX_SHARED_CHARS } from './import.errors.js';
import { cellRef, RowCollector, type SheetData } from './import.rows.js';

const MB = 1024 * 1024;
export const XLSX_LIMITS = {
  /** Parts a workbook may list. */
  entries: 10_000,
  /** A worksheet's XML: 20,000 rows of 26 cells take ~25 MB; empty formatted rows after them add some more. */
  sheetBytes: 128 * MB,
  sharedStringsBytes: 64 * MB,
  sharedStrings: 1_048_576,
  /** The workbook, its relationships, styles.xml. */
  smallPartBytes: 16 * MB,
  /** XML read without a tag or a text ending: a text or an attribute far longer than any cell. */
  nodeBytes: 1 * MB,
} as const;

const local = (name: string): string => name.slice(name.indexOf(':') + 1);

/** Built-in number formats that are dates (ECMA-376 18.8.30). */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22]);

/** A custom format shows a date when it has d, m or y outside quoted text, [colours or locales] and escapes. */
export function isDateFormat(code: string): boolean {
  const bare = code.replace(/"[^"]*"/g, '').replace(/\[[^\]]*]/g, '').replace(/\\./g, '').replace(/[_*]./g, '');
  return /[dmy]/i.test(bare);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An Excel serial day as AAAA-MM-DD, as exceljs turned it into a date before (UTC, the 1970 epoch's offset). */
export function serialToIso(serial: number, date1904: boolean): string {
  const d = new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000));
  if (Number.isNaN(d.getTime())) return String(serial);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

type Handlers = { open?(tag: SaxesTagPlain): void; close?(name: string): void; text?(text: string): void };

/** Streams one part's XML into the handlers; every failure that is not a refusal of ours says the file is damaged. */
async function streamPart(zip: ZipFile, entry: Entry, maxBytes: number, handlers: Handlers): Promise<void> {
  if (entry.uncompressedSize > maxBytes) throw badFile(FILE_MSG.unpacksTooBig);
  const parser = new SaxesParser({ position: false });
  let sinceEvent = 0;
  parser.on('opentag', (tag) => {
    sinceEvent = 0;
    handlers.open?.(tag as SaxesTagPlain);
  });
  parser.on('closetag', (tag) => {
    sinceEvent = 0;
    handlers.close?.(local(tag.name));
  });
  const onText = (text: string) => {
    sinceEvent = 0;
    handlers.text?.(text);
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  const decoder = new StringDecoder('utf8');
  try {
    const stream = await zip.openReadStreamPromise(entry);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      sinceEvent += chunk.length;
      parser.write(decoder.write(chunk));
      if (sinceEvent > XLSX_LIMITS.nodeBytes) throw badFile(FILE_MSG.unpacksTooBig);
    }
    parser.write(decoder.end());
    parser.close();
  } catch (err) {
    if (isDomainError(err, IMPORT_BAD_FILE)) throw err;
    throw badFile(FILE_MSG.corrupt);
  }
}

async function listEntries(zip: ZipFile): Promise<Map<string, Entry>> {
  if (zip.entryCount > XLSX_LIMITS.entries) throw badFile(FILE_MSG.corrupt);
  const entries = new Map<string, Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: Entry) => {
      if (!entries.has(entry.fileName)) entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  }).catch(() => {
    throw badFile(FILE_MSG.corrupt);
  });
  for (const entry of entries.values()) if (entry.isEncrypted()) throw badFile(FILE_MSG.protected);
  return entries;
}

/** Relationships of a part: id → { target part name, type }. */
async function readRels(zip: ZipFile, entries: Map<string, Entry>, part: string): Promise<Map<string, { target: string; type: string }>> {
  const slash = part.lastIndexOf('/');
  const dir = part.slice(0, slash + 1);
  const rels = new Map<string, { target: string; type: string }>();
  const entry = entries.get(`${dir}_rels/${part.slice(slash + 1)}.rels`);
  if (!entry) return rels;
  await streamPart(zip, entry, XLSX_LIMITS.smallPartBytes, {
    open(tag) {
      if (local(tag.name) !== 'Relationship') return;
      const { Id: id, Target: target, Type: type, TargetMode: mode } = tag.attributes;
      if (id && target && mode !== 'External') rels.set(id, { target: resolvePart(dir, target), type: type ?? '' });
    },
  });
  return rels;
}

/** A relationship's target as a part name: absolute ('/xl/…') or relative to the source's folder, '..' resolved. */
function resolvePart(dir: string, target: string): string {
  const parts = (target.startsWith('/') ? target.slice(1) : dir + target).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else if (p !== '.' && p !== '') out.push(p);
  }
  return out.join('/');
}

const byType = (rels: Map<string, { target: string; type: string }>, suffix: string) =>
  [...rels.values()].find((r) => r.type.endsWith(suffix))?.target;

/** Which cell formats (by index) show dates. */
async function readDateStyles(zip: ZipFile, entry: Entry | undefined): Promise<boolean[]> {
  if (!entry) return [];
  const custom = new Map<number, string>();
  const xfs: number[] = [];
  let inCellXfs = false;
  await streamPart(zip, entry, XLSX_LIMITS.smallPartBytes, {
    open(tag) {
      const name = local(tag.name);
      if (name === 'numFmt') custom.set(Number(tag.attributes.numFmtId), tag.attributes.formatCode ?? '');
      else if (name === 'cellXfs') inCellXfs = !tag.isSelfClosing;
      else if (name === 'xf' && inCellXfs) xfs.push(Number(tag.attributes.numFmtId ?? 0));
    },
    close(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  return xfs.map((id) => (custom.has(id) ? isDateFormat(custom.get(id)!) : BUILTIN_DATE_FORMATS.has(id)));
}

/** The shared strings, rich text runs joined, phonetic runs left out; characters and count bounded. */
async function readSharedStrings(zip: ZipFile, entry: Entry | undefined): Promise<string[]> {
  if (!entry) return [];
  const strings: string[] = [];
  let total = 0;
  let current: string | null = null;
  let inT = false;
  let phonetic = 0;
  await streamPart(zip, entry, XLSX_LIMITS.sharedStringsBytes, {
    open(tag) {
      const name = local(tag.name);
      if (name === 'si') {
        if (strings.length >= XLSX_LIMITS.sharedStrings) throw badFile(FILE_MSG.tooManyStrings);
        current = '';
      } else if (name === 'rPh') phonetic++;
      else if (name === 't' && !tag.isSelfClosing) inT = true;
    },
    close(name) {
      if (name === 'si' && current !== null) {
        strings.push(current);
        current = null;
      } else if (name === 'rPh') phonetic--;
      else if (name === 't') inT = false;
    },
    text(text) {
      if (current === null || !inT || phonetic > 0) return;
      current += text;
      total += text.length;
      if (current.length > MAX_CELL_CHARS) throw badFile(FILE_MSG.stringTooLong);
      if (total > MAX_SHARED_CHARS) throw badFile(FILE_MSG.tooManyStrings);
    },
  });
  return strings;
}

/** Column number of a reference such as 'AB12' (0 when it has no letters). */
function columnOf(ref: string): number {
  let col = 0;
  for (let i = 0; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c < 65 || c > 90) break;
    col = col * 26 + (c - 64);
    if (col > 16_384) return 16_385;
  }
  return col;
}

interface Workbook {
  strings: string[];
  dateStyles: boolean[];
  date1904: boolean;
}

/** One sheet's rows into the collector; false when the sheet has no data. */
async function readSheet(zip: ZipFile, entry: Entry, book: Workbook, rows: RowCollector): Promise<boolean> {
  let rowNumber = 0;
  let cells: string[] | null = null;
  let nextCol = 1;
  let cell: { col: number; type: string; style: number; formula: boolean; value: string; inline: string; ref: string } | null = null;
  let reading: 'v' | 't' | null = null;
  let phonetic = 0;
  const append = (text: string) => {
    if (cell === null || reading === null || phonetic > 0) return;
    if (reading === 'v') cell.value += text;
    else cell.inline += text;
    if (cell.value.length + cell.inline.length > MAX_CELL_CHARS) throw badFile(FILE_MSG.cellTooLong(cell.ref));
  };
  const valueOf = (c: NonNullable<typeof cell>): string => {
    switch (c.type) {
      case 'e':
        throw badFile(FILE_MSG.cellError(c.ref));
      case 's': {
        if (c.value.trim() === '') return '';
        const s = book.strings[Number(c.value)];
        if (s === undefined) throw badFile(FILE_MSG.corrupt);
        return s;
      }
      case 'inlineStr':
        return c.inline;
      case 'str':
        return c.value;
      case 'b':
        return c.value === '' ? '' : c.value === '1' || c.value === 'true' ? 'VERDADERO' : 'FALSO';
      case 'd':
        return /^\d{4}-\d{2}-\d{2}/.test(c.value) ? c.value.slice(0, 10) : c.value;
      default: {
        if (c.value.trim() === '') return '';
        const n = Number(c.value);
        if (!Number.isFinite(n)) throw badFile(FILE_MSG.corrupt);
        return book.dateStyles[c.style] ? serialToIso(n, book.date1904) : String(n);
      }
    }
  };
  await streamPart(zip, entry, XLSX_LIMITS.sheetBytes, {
    open(tag) {
      const name = local(tag.name);
      const a = tag.attributes;
      if (name === 'row') {
        rowNumber = a.r ? Number(a.r) : rowNumber + 1;
        if (!Number.isSafeInteger(rowNumber) || rowNumber < 1) throw badFile(FILE_MSG.corrupt);
        cells = [];
        nextCol = 1;
      } else if (name === 'c' && cells !== null) {
        const col = a.r ? columnOf(a.r) : nextCol;
        if (col < 1) throw badFile(FILE_MSG.corrupt);
        cell = { col, type: a.t ?? 'n', style: Number(a.s ?? 0), formula: false, value: '', inline: '', ref: cellRef(rowNumber, col) };
      } else if (cell !== null) {
        if (name === 'f') cell.formula = true;
        else if (name === 'v' && !tag.isSelfClosing) reading = 'v';
        else if (name === 't' && !tag.isSelfClosing) reading = 't';
        else if (name === 'rPh') phonetic++;
      }
    },
    close(name) {
      if (name === 'v' || name === 't') reading = null;
      else if (name === 'rPh') phonetic--;
      else if (name === 'c' && cell !== null && cells !== null) {
        // A formula's value is never read: where it lies decides whether the file is refused (RowCollector.formula).
        const value = cell.formula ? (rows.formula(cell.col, cell.ref), '') : valueOf(cell);
        if (value !== '') rows.cell(cells, cell.col, value, rowNumber);
        nextCol = cell.col + 1;
        cell = null;
      } else if (name === 'row' && cells !== null) {
        rows.row(cells);
        cells = null;
      }
    },
    text: append,
  });
  return rows.hasData();
}

/** Reads the first sheet with data; every refusal is the IMPORT_BAD_FILE domain error. */
export async function readXlsx(data: Buffer): Promise<SheetData> {
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(data, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true, strictFileNames: false });
  } catch {
    throw badFile(FILE_MSG.corrupt);
  }
  try {
    const entries = await listEntries(zip);
    const root = await readRels(zip, entries, '');
    const workbookPart = byType(root, '/officeDocument') ?? 'xl/workbook.xml';
    const workbookEntry = entries.get(workbookPart);
    if (!workbookEntry) throw badFile(FILE_MSG.corrupt);
    const rels = await readRels(zip, entries, workbookPart);
    const sheetIds: string[] = [];
    let date1904 = false;
    await streamPart(zip, workbookEntry, XLSX_LIMITS.smallPartBytes, {
      open(tag) {
        const name = local(tag.name);
        if (name === 'workbookPr') date1904 = tag.attributes.date1904 === '1' || tag.attributes.date1904 === 'true';
        else if (name === 'sheet') {
          const id = Object.entries(tag.attributes).find(([k]) => k.includes(':') && local(k) === 'id')?.[1];
          if (id) sheetIds.push(id);
        }
      },
    });
    const dir = workbookPart.slice(0, workbookPart.lastIndexOf('/') + 1);
    const stylesEntry = entries.get(byType(rels, '/styles') ?? `${dir}styles.xml`);
    const stringsEntry = entries.get(byType(rels, '/sharedStrings') ?? `${dir}sharedStrings.xml`);
    const book: Workbook = {
      dateStyles: await readDateStyles(zip, stylesEntry),
      strings: await readSharedStrings(zip, stringsEntry),
      date1904,
    };
    for (const id of sheetIds) {
      const rel = rels.get(id);
      const entry = rel && rel.type.endsWith('/worksheet') ? entries.get(rel.target) : undefined;
      if (!entry) continue;
      const rows = new RowCollector('xlsx');
      if (await readSheet(zip, entry, book, rows)) return rows.result();
    }
    throw badFile(FILE_MSG.noSheet);
  } finally {
    zip.close();
  }
}
