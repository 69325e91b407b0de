// The folders' boundaries (docs/architecture.md): the plumbing (platform/, web/, db/, shared/) imports no feature,
// and the features import each other in one direction only (no cycle), so each can be read, tested and changed
// from below; where a feature reads modules of one above it (READS_ABOVE), no module is in a cycle. The features are every other folder of src/, read from the disk: a new one is checked from the start.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
/** What every feature stands on: the speed machinery, the web and database plumbing, pure helpers. */
const PLUMBING = ['platform', 'web', 'db', 'shared'];
/**
 * Entry points above the features (they compose them), like src/server.ts and src/app.ts: the commands, and the
 * parts of the application's composition that app.ts hands to the plumbing (app/: the features' field tables
 * gathered for the audit trail).
 */
const ENTRIES = ['cli', 'app'];
const FEATURES = readdirSync(SRC, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !PLUMBING.includes(e.name) && !ENTRIES.includes(e.name))
  .map((e) => e.name);

/**
 * The two places the plumbing reaches the features, each composing their `*.table.ts` files: db/database.ts their
 * table types, db/tables.ts their lines of the table registry (decision 0067).
 */
const composesTables = (i: Import): boolean =>
  /\.table\.js$/.test(i.to) && ((i.from === path.join('db', 'database.ts') && i.typeOnly) || i.from === path.join('db', 'tables.ts'));

/**
 * Where a feature reads modules of a feature above it (decision 0280): `from` may import the modules of `reads` that
 * reach no module of `from`, following their imports through the features (checked below), so no module is in a
 * cycle and the folders keep one order otherwise. An entry no import needs any more fails: the list only shrinks.
 */
const READS_ABOVE: readonly { from: string; reads: string; why: string }[] = [
  {
    from: 'ingresos',
    reads: 'patients',
    why: 'the follow page (an Ingreso page) lists patients: the list pages’ search, query, labels and export columns',
  },
];

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !/\.fixtures\.ts$/.test(e.name) ? [full] : [];
  });
}

/** Every relative import of the application's sources (tests and test builders left out), by file. */
function imports(): Import[] {
  return sourceFiles(SRC).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(/^(import|export)\s+(type\s+)?[^'";]*?from\s+'(\.[^']+)'/gm)].map((m) => ({
      from: path.relative(SRC, file),
      to: path.relative(SRC, path.resolve(path.dirname(file), m[3]!)),
      typeOnly: m[2] !== undefined,
    }));
  });
}

const folderOf = (file: string): string => file.split(path.sep)[0]!;

/** The source file an import names (`x.js` is `x.ts` or `x.tsx`), or null when it is not one (data, JSON). */
function moduleOf(to: string, files: ReadonlySet<string>): string | null {
  const base = to.replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`].find((f) => files.has(f)) ?? null;
}

/** A path of imports through the features from `start` to a module of `folder`, or null when there is none. */
function pathInto(start: string, folder: string, all: readonly Import[]): string[] | null {
  const files = new Set(all.map((i) => i.from));
  const next = new Map<string, string[]>();
  for (const i of all) {
    const to = moduleOf(i.to, files);
    // The plumbing reaches the features only by composing their *.table.ts (checked above): not followed.
    if (to !== null && FEATURES.includes(folderOf(to))) next.set(i.from, [...(next.get(i.from) ?? []), to]);
  }
  const seen = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (folderOf(at) === folder) {
      const trail = [at];
      for (let p = seen.get(at); p != null; p = seen.get(p)) trail.unshift(p);
      return trail;
    }
    for (const to of next.get(at) ?? []) {
      if (!seen.has(to)) {
        seen.set(to, at);
        queue.push(to);
      }
    }
  }
  return null;
}

describe('import graph', () => {
  const all = imports();

  test('the features are every folder of src/ but the plumbing and the entry points', () => {
    for (const feature of ['patients', 'ingresos', 'exams', 'dashboard', 'users', 'audit', 'imports', 'fhir']) assert.ok(FEATURES.includes(feature), feature);
  });

  test('platform/, web/, db/ and shared/ import no feature (but db/ composes the features’ *.table.ts)', () => {
    const wrong = all.filter((i) => PLUMBING.includes(folderOf(i.from)) && FEATURES.includes(folderOf(i.to)) && !composesTables(i));
    assert.deepEqual(wrong.map((i) => `${i.from} -> ${i.to}`), []);
  });

  // What db/ composes stays small: the lines of the registry and the words they name (VIEW_ACTIONS), nothing more.
  test('the *.table.ts files import nothing of another feature, of the web or of the database, and of platform/ the registry’s types only', () => {
    const tableFiles = new Set(all.filter(composesTables).map((i) => i.to.replace(/\.js$/, '.ts')));
    const allowed = (i: Import) =>
      folderOf(i.to) === folderOf(i.from) || folderOf(i.to) === 'shared' || (i.typeOnly && i.to === path.join('platform', 'tables.js'));
    const wrong = all.filter((i) => tableFiles.has(i.from) && !allowed(i));
    assert.deepEqual(wrong.map((i) => `${i.from} -> ${i.to}`), []);
  });

  test('shared/ imports only shared/', () => {
    const wrong = all.filter((i) => folderOf(i.from) === 'shared' && folderOf(i.to) !== 'shared');
    assert.deepEqual(wrong.map((i) => `${i.from} -> ${i.to}`), []);
  });

  test('a feature reads modules of one above it only where listed, and only those that reach nothing of its own', () => {
    const files = new Set(all.map((i) => i.from));
    for (const { from, reads } of READS_ABOVE) {
      const read = [...new Set(all.filter((i) => folderOf(i.from) === from && folderOf(i.to) === reads).map((i) => moduleOf(i.to, files)!))];
      assert.ok(read.length > 0, `${from}/ imports nothing of ${reads}/ any more: remove its line from READS_ABOVE`);
      const back = read.map((m) => pathInto(m, from, all)).filter((p) => p !== null);
      assert.deepEqual(back.map((p) => p.join(' -> ')), [], `modules of ${reads}/ that ${from}/ imports reach ${from}/ again`);
    }
  });

  test('the features import each other in one direction only', () => {
    const listed = (a: string, b: string) => READS_ABOVE.some((r) => r.from === a && r.reads === b);
    const edges = new Map<string, Set<string>>();
    for (const i of all) {
      const [a, b] = [folderOf(i.from), folderOf(i.to)];
      if (a !== b && FEATURES.includes(a) && FEATURES.includes(b) && !listed(a, b)) edges.set(a, (edges.get(a) ?? new Set()).add(b));
    }
    const cycles: string[] = [];
    const walk = (node: string, trail: string[]) => {
      for (const next of edges.get(node) ?? []) {
        if (trail.includes(next)) cycles.push([...trail.slice(trail.indexOf(next)), next].join(' -> '));
        else walk(next, [...trail, next]);
      }
    };
    for (const f of FEATURES) walk(f, [f]);
    const files = (a: string, b: string) => all.filter((i) => folderOf(i.from) === a && folderOf(i.to) === b).map((i) => i.from);
    assert.deepEqual(
      [...new Set(cycles.map((c) => c.split(' -> ').slice(0, -1).sort().join(' <-> ')))].map((c) => {
        const [a, b] = c.split(' <-> ');
        return `${c}: ${[...new Set(files(a!, b!))].join(', ')} | ${[...new Set(files(b!, a!))].join(', ')}`;
      }),
      [],
    );
  });

  // Loaded, exceljs holds ~7 MB of the server's heap and pg 0.4 MB: a static import would make every server carry
  // them, and every major collection mark them, for a spreadsheet read a few times a month or an engine the server
  // does not use (loadExcelJs in src/imports/import.template.ts, loadPg in src/db/connection.ts).
  test('exceljs and pg are loaded when first needed: no source imports them statically', () => {
    const wrong = sourceFiles(SRC).filter((file) => /^import\s+(?!type\s)[^;]*?from\s+'(exceljs|pg)'/m.test(readFileSync(file, 'utf8')));
    assert.deepEqual(wrong.map((f) => path.relative(SRC, f)), []);
  });
});
