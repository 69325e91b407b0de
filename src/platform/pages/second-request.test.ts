import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecondRequest } from './second-request.js';

test('admits a key seen before within the window, never one seen for the first time', () => {
  const admission = new SecondRequest<number>(3);
  assert.equal(admission.admits(1), false);
  assert.equal(admission.admits(1), true);
  assert.equal(admission.admits(2), false);
  assert.equal(admission.admits(1), true, 'still remembered');
});

test('remembers a key among window to twice the window distinct keys, then forgets it', () => {
  const admission = new SecondRequest<string>(3);
  admission.admits('a');
  for (const k of ['b', 'c', 'd', 'e']) admission.admits(k);
  assert.equal(admission.admits('a'), true, 'four others later: remembered (older generation)');
  const later = new SecondRequest<string>(3);
  later.admits('a');
  for (const k of ['b', 'c', 'd', 'e', 'f', 'g']) later.admits(k);
  assert.equal(later.admits('a'), false, 'six others later: forgotten');
});

test('a key seen again is remembered anew, so one asked regularly stays admitted', () => {
  const admission = new SecondRequest<string>(2);
  admission.admits('a');
  for (let i = 0; i < 20; i++) {
    admission.admits(`otra${i}`);
    assert.equal(admission.admits('a'), true, `after ${i + 1} others`);
  }
});

test('a window of 0 admits every key, the first time too', () => {
  const admission = new SecondRequest<string>(0);
  assert.equal(admission.admits('a'), true);
  assert.equal(admission.admits('b'), true);
});
