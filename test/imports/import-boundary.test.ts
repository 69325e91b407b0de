// The spreadsheet readers live in the import's worker thread (decision 0057): nothing the server's thread loads
// imports csv-parse, yauzl or saxes (nor, as before, exceljs), and the worker's entry is built beside the server.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** The modules a module loads when it is loaded: its static, non-type imports of the sources, transitively. */
function reachable(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)[^'";]*?from\s+'(\.[^']+)'/gm)) {
      const target = path.resolve(path.dirname(file), m[1]!).replace(/\.js$/, '');
      const found = ['.ts', '.tsx'].map((ext) => target + ext).find((f) => existsSync(f));
      if (found) visit(found);
    }
  };
  visit(entry);
  return seen;
}

const packagesImported = (text: string) => [...text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^.'][^']*)'/gm)].map((m) => m[1]!);

test('the server’s thread loads no spreadsheet reader; the worker’s modules do', () => {
  const server = reachable(path.join(SRC, 'server.ts'));
  const readers = /^(csv-parse|yauzl|saxes|exceljs)(\/|$)/;
  const wrong = [...server].flatMap(([file, text]) => packagesImported(text).filter((p) => readers.test(p)).map((p) => `${path.relative(SRC, file)} -> ${p}`));
  assert.deepEqual(wrong, []);
  const worker = reachable(path.join(SRC, 'imports', 'import.worker.ts'));
  const used = new Set([...worker.values()].flatMap(packagesImported).filter((p) => readers.test(p)).map((p) => p.split('/')[0]));
  assert.deepEqual([...used].sort(), ['csv-parse', 'saxes', 'yauzl']);
  const build = readFileSync(path.join(SRC, 'platform', 'launch', 'build-server.ts'), 'utf8');
  assert.match(build, /'imports', 'import\.worker\.ts'\), out: 'import-worker'/);
});
