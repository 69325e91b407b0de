import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LatestValueCache } from './dashboard.cache.js';

describe('LatestValueCache', () => {
  test('computes once per key, shares a computation in flight, replaces the entry on a new key', async () => {
    const cache = new LatestValueCache<string>();
    let calls = 0;
    const compute = (v: string) => async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      return v;
    };
    const [a, b] = await Promise.all([cache.get('k1', compute('one')), cache.get('k1', compute('other'))]);
    assert.deepEqual([a, b, calls], ['one', 'one', 1]);
    assert.equal(await cache.get('k1', compute('again')), 'one');
    assert.equal(calls, 1);
    assert.equal(await cache.get('k2', compute('two')), 'two');
    assert.equal(await cache.get('k1', compute('three')), 'three', 'only the latest key is kept');
    assert.equal(calls, 3);
  });

  test('a failed computation is not kept', async () => {
    const cache = new LatestValueCache<number>();
    await assert.rejects(cache.get('k', async () => Promise.reject(new Error('base de datos no disponible'))));
    assert.equal(await cache.get('k', async () => 7), 7);
  });
});
