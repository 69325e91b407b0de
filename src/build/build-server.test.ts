import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SERVER_ENV, SERVER_NODE_FLAGS } from './build-server.js';

test('npm start runs the bundle with the flags the benchmark and the harnesses use', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(
    pkg.scripts.start,
    `npm run -s build && ${Object.entries(SERVER_ENV).map(([k, v]) => `${k}=${v}`).join(' ')} node ${SERVER_NODE_FLAGS.join(' ')} dist/server.js`,
  );
});
