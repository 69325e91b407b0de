import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FragmentCache } from './fragment-cache.js';

const value = (text: string) => async () => ({ bytes: Buffer.byteLength(text), text });

describe('FragmentCache', () => {
  test('computes once per key and version, and shares a computation in flight', async () => {
    const cache = new FragmentCache<{ bytes: number; text: string }>(1024, false, 0);
    let calls = 0;
    const slow = (text: string) => async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      return { bytes: Buffer.byteLength(text), text };
    };
    const [a, b] = await Promise.all([cache.get('v1', 'k', slow('uno')), cache.get('v1', 'k', slow('otro'))]);
    assert.deepEqual([a.text, b.text, calls], ['uno', 'uno', 1]);
    assert.equal((await cache.get('v1', 'k', slow('de nuevo'))).text, 'uno');
    assert.equal(calls, 1);
  });

  test('an entry is served only under the version it was computed for, and replaced under another', async () => {
    const cache = new FragmentCache<{ bytes: number; text: string }>(1024, false, 0);
    await cache.get('v1', 'a', value('antes'));
    await cache.get('v7', 'b', value('b de v7'));
    assert.equal((await cache.get('v2', 'a', value('después'))).text, 'después');
    assert.equal((await cache.get('v2', 'a', value('otra vez'))).text, 'después', 'kept under v2');
    assert.equal((await cache.get('v7', 'b', value('nunca'))).text, 'b de v7', 'another key keeps its own version');
    assert.equal((await cache.get('v1', 'a', value('de nuevo'))).text, 'de nuevo', 'never the v2 entry for v1');
    assert.equal(cache.size, Buffer.byteLength('de nuevo') + Buffer.byteLength('b de v7'), 'a replaced entry is not counted');
  });

  test('with one version for all its entries, a new version empties it', async () => {
    const cache = new FragmentCache<{ bytes: number; text: string }>(1024, true, 0);
    await cache.get('v1', 'a', value('antes'));
    await cache.get('v1', 'b', value('antes b'));
    assert.equal((await cache.get('v2', 'a', value('después'))).text, 'después');
    assert.equal(cache.size, Buffer.byteLength('después'), 'only what was computed under v2 is held');
    assert.equal((await cache.get('v2', 'b', value('b de v2'))).text, 'b de v2');
  });

  test('keeps at most its bound in bytes, dropping the least recently used first', async () => {
    const cache = new FragmentCache<{ bytes: number; text: string }>(25, false, 0);
    await cache.get('v', 'a', value('aaaaaaaaaa'));
    await cache.get('v', 'b', value('bbbbbbbbbb'));
    await cache.get('v', 'a', value('never'));
    await cache.get('v', 'c', value('cccccccccc'));
    assert.equal(cache.size, 20);
    assert.equal((await cache.get('v', 'a', value('recomputed'))).text, 'aaaaaaaaaa', 'a was used last: kept');
    assert.equal((await cache.get('v', 'b', value('recomputed'))).text, 'recomputed', 'b was dropped');
  });

  test('a failed computation is not kept', async () => {
    const cache = new FragmentCache<{ bytes: number; text: string }>(1024, false, 0);
    await assert.rejects(cache.get('v', 'k', async () => Promise.reject(new Error('base de datos no disponible'))));
    assert.equal((await cache.get('v', 'k', value('bien'))).text, 'bien');
  });

  describe('kept from its second computation in a while (decision 0375)', () => {
    test('a key computed once is not kept; computed again, it is kept from then on', async () => {
      const cache = new FragmentCache<{ bytes: number; text: string }>(1024);
      assert.equal((await cache.get('v', 'k', value('primera'))).text, 'primera');
      assert.equal(cache.size, 0, 'asked once: nothing held');
      assert.equal((await cache.get('v', 'k', value('segunda'))).text, 'segunda', 'computed again');
      assert.equal((await cache.get('v', 'k', value('nunca'))).text, 'segunda', 'kept since the second');
      assert.deepEqual([cache.hits, cache.misses], [1, 2]);
    });

    test('a kept key is kept again under a new version, at once', async () => {
      const cache = new FragmentCache<{ bytes: number; text: string }>(1024);
      await cache.get('v1', 'k', value('uno'));
      await cache.get('v1', 'k', value('uno'));
      assert.equal((await cache.get('v2', 'k', value('dos'))).text, 'dos');
      assert.equal((await cache.get('v2', 'k', value('nunca'))).text, 'dos', 'the new version kept from its first computation');
    });

    test('with one version for all, a key asked before a new version is kept at its first computation after it', async () => {
      const cache = new FragmentCache<{ bytes: number; text: string }>(1024, true);
      await cache.get('v1', 'a', value('a1'));
      assert.equal((await cache.get('v2', 'a', value('a2'))).text, 'a2');
      assert.equal((await cache.get('v2', 'a', value('nunca'))).text, 'a2');
    });

    test('a computation in flight is shared whether or not it will be kept', async () => {
      const cache = new FragmentCache<{ bytes: number; text: string }>(1024);
      let calls = 0;
      const slow = async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 5));
        return { bytes: 3, text: 'una' };
      };
      const both = await Promise.all([cache.get('v', 'k', slow), cache.get('v', 'k', slow)]);
      assert.deepEqual([both.map((b) => b.text), calls, cache.size], [['una', 'una'], 1, 0]);
    });

    test('a key asked again only after the window of other keys is computed, and not kept, again', async () => {
      const cache = new FragmentCache<{ bytes: number; text: string }>(1024 * 1024, false, 4);
      await cache.get('v', 'k', value('k'));
      for (let i = 0; i < 8; i++) await cache.get('v', `otra${i}`, value('o'));
      await cache.get('v', 'k', value('k otra vez'));
      assert.equal((await cache.get('v', 'k', value('k de nuevo'))).text, 'k de nuevo', 'forgotten: seen once anew, not kept');
      assert.equal((await cache.get('v', 'k', value('nunca'))).text, 'k de nuevo', 'its second computation since: kept');
    });
  });
});
