// Item 1, CI length: a few SIGKILL rounds of the crash harness (RELIABILITY_ROUNDS, default 3) on the test engine.
// The long version: npm run reliability:crash -- 20 [--engine postgres].
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENGINE } from '../helpers.js';
import { runCrashHarness } from './lib/crash.js';

test(`crash safety: SIGKILL under write load loses nothing acknowledged and leaves nothing half done (${ENGINE})`, { timeout: 300_000 }, async () => {
  const rounds = Number(process.env.RELIABILITY_ROUNDS ?? 3);
  const report = await runCrashHarness({ engine: ENGINE, rounds, workers: 4 });
  assert.deepEqual(report.problems, []);
  const total = Object.values(report.acknowledged).reduce((a, b) => a + b, 0);
  assert.ok(total > 0, 'some changes were acknowledged');
});
