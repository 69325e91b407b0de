import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { bundleIsCurrent, ROOT } from './build-server.js';

test('npm start bundles only when src/ changed, and runs the launcher without flags of its own (they live in it)', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.start, 'npm run -s build -- --if-stale && node dist/server.js');
  assert.equal(pkg.scripts.build, 'tsx src/platform/launch/build-server.ts');
});

describe('bundleIsCurrent', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'somno-build-'));
  const src = path.join(dir, 'src');
  const out = [path.join(dir, 'dist', 'a.js'), path.join(dir, 'dist', 'b.js')];
  const at = (file: string, seconds: number) => utimesSync(file, seconds, seconds);

  test('false without the outputs, true once they are newer than every source, false after any change', (t) => {
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(path.join(src, 'feature'), { recursive: true });
    mkdirSync(path.dirname(out[0]!));
    const file = path.join(src, 'feature', 'x.ts');
    writeFileSync(file, 'export {}');
    for (const d of [src, path.join(src, 'feature')]) at(d, 1000);
    at(file, 1000);
    assert.equal(bundleIsCurrent(src, out), false, 'nothing built yet');
    writeFileSync(out[0]!, '');
    at(out[0]!, 2000);
    assert.equal(bundleIsCurrent(src, out), false, 'one output missing');
    writeFileSync(out[1]!, '');
    at(out[1]!, 2000);
    assert.equal(bundleIsCurrent(src, out), true, 'built after the last change');
    at(file, 3000);
    assert.equal(bundleIsCurrent(src, out), false, 'a source edited since');
    at(file, 1000);
    at(path.join(src, 'feature'), 3000);
    assert.equal(bundleIsCurrent(src, out), false, 'a file added or removed since (its folder changed)');
  });
});
