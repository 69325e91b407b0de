import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageOf } from './paging.js';

test('a page as the spec reads it: not a number the first, past the last the last, an empty list one empty page', () => {
  assert.deepEqual(pageOf(2, 25, 10), { page: 2, pageCount: 3, offset: 10, size: 10 });
  assert.deepEqual(pageOf(3, 25, 10), { page: 3, pageCount: 3, offset: 20, size: 5 });
  assert.deepEqual(pageOf(99, 25, 10), { page: 3, pageCount: 3, offset: 20, size: 5 });
  assert.deepEqual(pageOf(Number.NaN, 25, 10), { page: 1, pageCount: 3, offset: 0, size: 10 });
  assert.deepEqual(pageOf(-4, 25, 10), { page: 1, pageCount: 3, offset: 0, size: 10 });
  assert.deepEqual(pageOf(2.7, 25, 10), { page: 2, pageCount: 3, offset: 10, size: 10 });
  assert.deepEqual(pageOf(1, 0, 100), { page: 1, pageCount: 1, offset: 0, size: 0 });
});
