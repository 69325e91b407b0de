import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LAUNCHED_ENV, SERVER_ENV, SERVER_NODE_FLAGS, relaunchFor, WORKERS_MAX, workersFrom } from './runtime-flags.js';

describe('relaunchFor', () => {
  test('a process started without the flags is relaunched with all of them and MALLOC_ARENA_MAX', () => {
    const r = relaunchFor([], { PATH: '/bin' });
    assert.deepEqual(r, { nodeArgs: [...SERVER_NODE_FLAGS], env: { ...SERVER_ENV, PATH: '/bin', [LAUNCHED_ENV]: '1' } });
  });

  test('a process that has them all (command line or NODE_OPTIONS) runs the server itself', () => {
    assert.equal(relaunchFor([...SERVER_NODE_FLAGS], { ...SERVER_ENV }), null);
    assert.equal(relaunchFor([], { ...SERVER_ENV, NODE_OPTIONS: SERVER_NODE_FLAGS.join(' ') }), null);
  });

  test('values the operator gave are kept: only what is missing is added, before the process’s own flags', () => {
    const r = relaunchFor(['--max-old-space-size=256', '--inspect'], { MALLOC_ARENA_MAX: '4' });
    assert.ok(r);
    assert.deepEqual(r.nodeArgs, [...SERVER_NODE_FLAGS.filter((f) => !f.startsWith('--max-old-space-size')), '--max-old-space-size=256', '--inspect']);
    assert.equal(r.env.MALLOC_ARENA_MAX, '4');
  });

  test('the server the launcher started never launches another, whatever it lacks', () => {
    assert.equal(relaunchFor([], { [LAUNCHED_ENV]: '1' }), null);
  });
});

describe('workersFrom (WORKERS)', () => {
  test('unset or empty: one process, as always', () => {
    assert.equal(workersFrom({}, 2), 1);
    assert.equal(workersFrom({ WORKERS: '' }, 2), 1);
  });

  test('a number from 1 to the maximum, or auto for one per core (bounded)', () => {
    assert.equal(workersFrom({ WORKERS: '2' }, 8), 2);
    assert.equal(workersFrom({ WORKERS: ` ${WORKERS_MAX} ` }, 2), WORKERS_MAX);
    assert.equal(workersFrom({ WORKERS: 'auto' }, 2), 2);
    assert.equal(workersFrom({ WORKERS: 'auto' }, 64), WORKERS_MAX);
  });

  test('anything else is refused (the launcher stops with a configuration error)', () => {
    for (const raw of ['0', '-1', String(WORKERS_MAX + 1), '2.5', 'dos', 'AUTO', '1e1', '007']) assert.equal(workersFrom({ WORKERS: raw }, 2), null, raw);
  });
});
