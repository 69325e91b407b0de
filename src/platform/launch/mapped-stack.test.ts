import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { mappedStack } from './mapped-stack.js';
import { SERVER_NODE_FLAGS } from './runtime-flags.js';

test("a logged stack names the TypeScript source's line, not the bundle's", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'somno-stack-'));
  try {
    const source = path.join(dir, 'src', 'falla.ts');
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
    mkdirSync(path.dirname(source));
    writeFileSync(source, ['// una línea', 'export function falla(): Error {', "  return new Error('falló');", '}', ''].join('\n'));
    const out = path.join(dir, 'dist', 'bundle.js');
    await build({ entryPoints: [source], outfile: out, bundle: true, platform: 'node', format: 'esm', sourcemap: 'linked', logLevel: 'silent' });
    // A plain node, as the server runs (the tests' loader maps stacks by itself).
    const script = `import(${JSON.stringify(pathToFileURL(out).href)}).then((m) => process.stdout.write(m.falla().stack))`;
    const stack = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH } }).stdout;
    assert.match(stack, /bundle\.js:\d+:\d+/, 'node maps nothing by itself');
    const mapped = mappedStack(stack);
    assert.ok(mapped.includes(`${source}:3:10`), mapped);
    assert.ok(!mapped.includes('bundle.js'), mapped);
    // Frames of node's own files stay as they were.
    assert.equal(mappedStack('Error\n    at run (node:internal/x:1:2)'), 'Error\n    at run (node:internal/x:1:2)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the server runs without --enable-source-maps (the decoded map would stay in the heap, ~19 MB)', () => {
  assert.ok(!SERVER_NODE_FLAGS.some((f) => f.startsWith('--enable-source-maps')));
});
