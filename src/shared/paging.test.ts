import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageOf, parsePageNumber } from './paging.js';

test('a page as the spec reads it: not a number the first, past the last the last, an empty list one empty page', () => {
  assert.deepEqual(pageOf(2, 25, 10), { page: 2, pageCount: 3, offset: 10, size: 10 });
  assert.deepEqual(pageOf(3, 25, 10), { page: 3, pageCount: 3, offset: 20, size: 5 });
  assert.deepEqual(pageOf(99, 25, 10), { page: 3, pageCount: 3, offset: 20, size: 5 });
  assert.deepEqual(pageOf(Number.NaN, 25, 10), { page: 1, pageCount: 3, offset: 0, size: 10 });
  assert.deepEqual(pageOf(-4, 25, 10), { page: 1, pageCount: 3, offset: 0, size: 10 });
  assert.deepEqual(pageOf(2.7, 25, 10), { page: 2, pageCount: 3, offset: 10, size: 10 });
  assert.deepEqual(pageOf(1, 0, 100), { page: 1, pageCount: 1, offset: 0, size: 0 });
});

test('a page parameter: digits are that page, past any list when very long; anything else the first', () => {
  const read = ['2', ' 7 ', '007', '0', '999999999', '1000000000', '99999999999999999999', '-1', 'abc', '1e3', '1.5', '2,0', '', undefined].map(parsePageNumber);
  assert.deepEqual(read, [2, 7, 7, 1, 999_999_999, 1_000_000_000, 1_000_000_000, 1, 1, 1, 1, 1, 1, 1]);
  // So many digits stand past the last page: a list shows its last.
  assert.equal(pageOf(parsePageNumber('99999999999999999999'), 25, 10).page, 3);
});
