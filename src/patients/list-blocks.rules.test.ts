import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blocksDrifted } from './list-blocks.rules.js';

describe('blocksDrifted: when the list blocks are cut again', () => {
  it('keeps blocks near the target, however the patients are spread among them', () => {
    assert.equal(blocksDrifted([0, 10, 12, 7], 10), false);
    assert.equal(blocksDrifted([20, 20, 1], 10), false);
    assert.equal(blocksDrifted([0], 10), false);
  });
  it('cuts again a list that outgrew its blocks: one block of more than twice the target', () => {
    assert.equal(blocksDrifted([21], 10), true);
    assert.equal(blocksDrifted([10, 10, 25, 10], 10), true);
  });
  it('cuts again when deletions left many more blocks than the patients need', () => {
    assert.equal(blocksDrifted([1, 1, 1, 1, 1, 1], 10), true);
    assert.equal(blocksDrifted([5, 5, 5], 10), false);
  });
  it('does not repeat a re-cut that could not split a block until the patients changed by a block', () => {
    assert.equal(blocksDrifted([3, 40], 10, 43), false);
    assert.equal(blocksDrifted([3, 49], 10, 43), false);
    assert.equal(blocksDrifted([3, 50], 10, 43), true);
  });
});
