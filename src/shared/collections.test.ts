import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupBy, onePerKey } from './collections.js';

test('groupBy keeps each group in the order of the items, and no group for a key without items', () => {
  const items = [
    { id: 1, patient: 7 },
    { id: 2, patient: 9 },
    { id: 3, patient: 7 },
  ];
  const groups = groupBy(items, (i) => i.patient);
  assert.deepEqual([...groups.keys()], [7, 9]);
  assert.deepEqual(groups.get(7)!.map((i) => i.id), [1, 3]);
  assert.deepEqual(groups.get(9)!.map((i) => i.id), [2]);
  assert.equal(groups.get(8), undefined);
});

describe('onePerKey', () => {
  test('builds once for the same key, again when the key changes', () => {
    const built: string[] = [];
    const schemaOn = onePerKey((day: string) => {
      built.push(day);
      return { day };
    });
    const first = schemaOn('2026-11-22');
    assert.equal(schemaOn('2026-11-22'), first);
    assert.notEqual(schemaOn('2026-11-23'), first);
    assert.deepEqual(built, ['2026-11-22', '2026-11-23']);
  });
});
