// For write-turn.test.ts: a writer's thread that takes the turn again as soon as it has given it back, as the audit
// writer does when its next group is already queued. Holds it `holdMs` each time, `times` times, then says so.
import { parentPort, workerData } from 'node:worker_threads';
import { WriteTurn } from './write-turn.js';

const { buffer, holdMs, times } = workerData as { buffer: SharedArrayBuffer; holdMs: number; times: number };
const turn = new WriteTurn(buffer);
const pause = new Int32Array(new SharedArrayBuffer(4));
parentPort!.postMessage('started');
for (let i = 0; i < times; i++) {
  if (!turn.takeForWriter()) throw new Error('the writer never got the turn');
  Atomics.wait(pause, 0, 0, holdMs);
  turn.release();
}
parentPort!.postMessage('done');
