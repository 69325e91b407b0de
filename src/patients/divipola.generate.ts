// Generates divipola.data.ts from DANE's DIVIPOLA CSV, so the app never reads the shared data folder at run
// time. Usage: npx tsx src/patients/divipola.generate.ts <divipola.csv> <out.ts>
//
// The CSV (see the data README) has the header departamento_codigo,departamento,municipio_codigo,municipio,
// quotes a field only when it contains a comma, and is UTF-8 with LF endings. The parser still follows
// RFC 4180 ("" inside quotes, CRLF, BOM) so a re-export from a spreadsheet does not break it.

import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { normalizeForSearch } from '../shared/text.js';

export interface GeneratedMunicipio {
  codigo: string;
  nombre: string;
}

export interface GeneratedDepartamento {
  codigo: string;
  nombre: string;
  municipios: GeneratedMunicipio[];
}

/** RFC 4180 CSV → rows of fields. Throws on an unterminated quote or a stray quote inside a bare field. */
export function parseCsv(text: string): string[][] {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false; // the current field started with a quote
  let fieldStarted = false;
  const endField = (): void => {
    row.push(field);
    field = '';
    quoted = false;
    fieldStarted = false;
  };
  const endRow = (): void => {
    endField();
    rows.push(row);
    row = [];
  };
  while (i < src.length) {
    const c = src[i];
    if (quoted) {
      if (c === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false; // closing quote; only a separator or line end may follow
        i++;
        const next = src[i];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          throw new Error(`CSV: unexpected character after closing quote at offset ${i}`);
        }
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"') {
      if (fieldStarted) throw new Error(`CSV: quote inside an unquoted field at offset ${i}`);
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    if (c === ',') {
      endField();
      i++;
      continue;
    }
    if (c === '\r' && src[i + 1] === '\n') {
      endRow();
      i += 2;
      continue;
    }
    if (c === '\n') {
      endRow();
      i++;
      continue;
    }
    field += c;
    fieldStarted = true;
    i++;
  }
  if (quoted) throw new Error('CSV: unterminated quoted field');
  if (field !== '' || row.length > 0) endRow(); // last line without a newline
  return rows;
}

const HEADER = ['departamento_codigo', 'departamento', 'municipio_codigo', 'municipio'];

// Accent- and case-insensitive order, ties broken by the exact name, so the output is stable everywhere.
function byName(a: { nombre: string }, b: { nombre: string }): number {
  const ka = normalizeForSearch(a.nombre);
  const kb = normalizeForSearch(b.nombre);
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a.nombre < b.nombre ? -1 : a.nombre > b.nombre ? 1 : 0;
}

/** Validates the rows and groups them into departments (sorted by name), each with its municipios (by name). */
export function buildDivipola(rows: string[][]): GeneratedDepartamento[] {
  const [header, ...data] = rows;
  if (!header || header.join(',') !== HEADER.join(',')) {
    throw new Error(`Unexpected header: ${JSON.stringify(header)}; expected ${HEADER.join(',')}`);
  }
  const departamentos = new Map<string, GeneratedDepartamento>();
  const seenMunicipios = new Set<string>();
  data.forEach((fields, index) => {
    const line = index + 2;
    if (fields.length === 1 && fields[0] === '') return; // blank line
    if (fields.length !== 4) throw new Error(`Line ${line}: expected 4 fields, got ${fields.length}`);
    const [depCodigo, depNombre, munCodigo, munNombre] = fields.map((f) => f.trim()) as [string, string, string, string];
    if (!/^\d{2}$/.test(depCodigo)) throw new Error(`Line ${line}: bad departamento_codigo ${depCodigo}`);
    if (!/^\d{5}$/.test(munCodigo) || !munCodigo.startsWith(depCodigo)) {
      throw new Error(`Line ${line}: municipio_codigo ${munCodigo} does not belong to ${depCodigo}`);
    }
    if (depNombre === '' || munNombre === '') throw new Error(`Line ${line}: empty name`);
    if (seenMunicipios.has(munCodigo)) throw new Error(`Line ${line}: duplicate municipio_codigo ${munCodigo}`);
    seenMunicipios.add(munCodigo);
    let dep = departamentos.get(depCodigo);
    if (!dep) {
      dep = { codigo: depCodigo, nombre: depNombre, municipios: [] };
      departamentos.set(depCodigo, dep);
    } else if (dep.nombre !== depNombre) {
      throw new Error(`Line ${line}: departamento ${depCodigo} named both ${dep.nombre} and ${depNombre}`);
    }
    dep.municipios.push({ codigo: munCodigo, nombre: munNombre });
  });
  const result = [...departamentos.values()].sort(byName);
  for (const dep of result) dep.municipios.sort(byName);
  return result;
}

/** The TypeScript module text: deterministic, one municipio per line so diffs of a DANE update stay readable. */
export function renderDivipolaModule(departamentos: readonly GeneratedDepartamento[]): string {
  const total = departamentos.reduce((n, d) => n + d.municipios.length, 0);
  const lines: string[] = [
    '// GENERATED by src/patients/divipola.generate.ts from DANE DIVIPOLA (divipola.csv). Do not edit by hand:',
    '// regenerate with `npx tsx src/patients/divipola.generate.ts <divipola.csv> src/patients/divipola.data.ts`.',
    `// ${departamentos.length} departamentos, ${total} municipios; departments and municipios sorted by name.`,
    '',
    'export interface DivipolaMunicipio {',
    '  readonly codigo: string;',
    '  readonly nombre: string;',
    '}',
    '',
    'export interface DivipolaDepartamento {',
    '  readonly codigo: string;',
    '  readonly nombre: string;',
    '  readonly municipios: readonly DivipolaMunicipio[];',
    '}',
    '',
    'export const DIVIPOLA: readonly DivipolaDepartamento[] = [',
  ];
  for (const dep of departamentos) {
    lines.push(`  {`, `    codigo: ${JSON.stringify(dep.codigo)},`, `    nombre: ${JSON.stringify(dep.nombre)},`, `    municipios: [`);
    for (const m of dep.municipios) {
      lines.push(`      { codigo: ${JSON.stringify(m.codigo)}, nombre: ${JSON.stringify(m.nombre)} },`);
    }
    lines.push(`    ],`, `  },`);
  }
  lines.push('];', '');
  return lines.join('\n');
}

export function generateDivipolaModule(csvText: string): string {
  return renderDivipolaModule(buildDivipola(parseCsv(csvText)));
}

function main(argv: readonly string[]): void {
  const [csvPath, outPath] = argv;
  if (!csvPath || !outPath) {
    console.error('Usage: npx tsx src/patients/divipola.generate.ts <divipola.csv> <out.ts>');
    process.exitCode = 2;
    return;
  }
  const moduleText = generateDivipolaModule(readFileSync(csvPath, 'utf8'));
  writeFileSync(outPath, moduleText, 'utf8');
  console.log(`Wrote ${outPath}`);
}

// Run only when executed directly, so tests can import the functions.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2));
}
