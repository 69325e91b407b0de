// The count the cluster's primary keeps for the login's flood guard answers as @fastify/rate-limit's own store
// does (the servers' 429 and its headers come from those answers). The servers themselves: test/reliability/workers.test.ts.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { RateWindows } from './cluster.js';

type Answer = { current: number; ttl: number };
interface Store {
  incr(key: string, cb: (err: Error | null, res: Answer) => void, timeWindow: number, max: number): void;
}
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore') as new (continueExceeding: boolean, backoff: boolean) => Store;

test('fixed windows per key, answered as @fastify/rate-limit’s own store answers', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  const ours = new RateWindows();
  const theirs = new LocalStore(false, false);
  const steps: [string, number][] = [['a', 0], ['a', 10], ['b', 0], ['a', 59_000], ['a', 1_000], ['b', 30_000], ['a', 5], ['b', 40_000]];
  for (const [key, advance] of steps) {
    t.mock.timers.tick(advance);
    let expected: Answer | undefined;
    theirs.incr(key, (_err, res) => (expected = { current: res.current, ttl: res.ttl }), 60_000, 5);
    assert.deepEqual(ours.incr(key, 60_000), expected, `${key} after ${advance} ms`);
  }
});
