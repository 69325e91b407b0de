import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { openDatabase } from '../../db/connection.js';
import { inTransaction } from './transaction.js';
import { workerFromSources } from '../../shared/tsx-worker.js';
import { writeTurnOf, WriteTurn } from './write-turn.js';

// Another thread holding the turn as `who` (1: the server's, 2: the writer's) for `holdMs`, written with the bare
// protocol (0 free), so each side of WriteTurn is checked against the other thread's view of the cell.
/** Threads a test started: ended after each test, whatever its outcome (a live one keeps the process waiting). */
const running: Worker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.terminate()));
});

function holdInAnotherThread(turn: WriteTurn, who: 1 | 2, holdMs: number): Promise<Worker> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const cell = new Int32Array(workerData.buffer);
     if (Atomics.compareExchange(cell, 0, 0, workerData.who) !== 0) throw new Error('the turn was not free');
     parentPort.postMessage('taken');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
     if (workerData.holdMs < 60000) { Atomics.store(cell, 0, 0); Atomics.notify(cell, 0); }
     parentPort.postMessage('released');`,
    { eval: true, workerData: { buffer: turn.buffer, who, holdMs } },
  );
  running.push(worker);
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker));
    worker.once('error', reject);
  });
}

describe('the write turn of a SQLite file, between the server thread and the audit writer thread (decision 0052)', () => {
  test("the server's thread waits for the writer's group as a promise: its event loop goes on meanwhile", async () => {
    const turn = new WriteTurn();
    await holdInAnotherThread(turn, 2, 200);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = performance.now();
    const taken = await turn.takeForServer();
    const waited = performance.now() - started;
    clearInterval(ticker);
    assert.equal(taken, true);
    assert.ok(waited >= 100, `waited ${waited.toFixed(0)} ms for a turn held 200 ms`);
    assert.ok(ticks >= 5, `${ticks} timer ticks while waiting: the event loop was held`);
    // Its own now: the writer's side must wait in turn.
    const writerSide = new WriteTurn(turn.buffer, 50);
    assert.equal(writerSide.takeForWriter(), false, 'taken by the server, so the writer gives up after its timeout');
    turn.release();
    assert.equal(writerSide.takeForWriter(), true);
    writerSide.release();
  });

  test("the writer's thread waits (blocked, on its own thread) while the server's thread holds the turn", async () => {
    const turn = new WriteTurn();
    await holdInAnotherThread(turn, 1, 150);
    const started = performance.now();
    assert.equal(turn.takeForWriter(), true);
    assert.ok(performance.now() - started >= 100);
    turn.release();
  });

  test("a writer's thread that always has a next group lets a waiting server go first", async () => {
    const turn = new WriteTurn();
    const worker = workerFromSources(new URL('./write-turn.writer-loop.ts', import.meta.url).href, { workerData: { buffer: turn.buffer, holdMs: 20, times: 100 } });
    running.push(worker);
    const done = new Promise<void>((resolve, reject) => {
      worker.on('message', (m) => m === 'done' && resolve());
      worker.once('error', reject);
    });
    await new Promise<void>((resolve) => worker.once('message', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      assert.equal(await turn.takeForServer(), true);
      waits.push(performance.now() - started);
      turn.release();
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    // Each wait is about one of the writer's holds (20 ms), not the writer's whole run of 100 (2 s).
    assert.ok(Math.max(...waits) < 500, `waits of ${waits.map((w) => w.toFixed(0)).join(', ')} ms`);
    await done;
  });

  test('a turn never given back (a thread that died holding it) is given up after the timeout, not waited for forever', async () => {
    const turn = new WriteTurn(undefined, 100);
    await holdInAnotherThread(turn, 2, 600_000);
    const started = performance.now();
    assert.equal(await turn.takeForServer(), false);
    assert.ok(performance.now() - started >= 90);
  });

  test("the server's changes (inTransaction) wait for the writer's turn as a promise; reads go on meanwhile", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'somno-turn-'));
    const handle = openDatabase(`sqlite:${path.join(dir, 'turn.sqlite')}`);
    try {
      const db = handle.db;
      await sql`create table turn_probe (x integer)`.execute(db);
      const turn = writeTurnOf(db)!;
      await holdInAnotherThread(turn, 2, 200);
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 10);
      const started = performance.now();
      const writing = inTransaction(db, (trx) => sql`insert into turn_probe (x) values (1)`.execute(trx));
      const read = await sql<{ n: number }>`select count(*) as n from turn_probe`.execute(db);
      const readAfter = performance.now() - started;
      await writing;
      const wroteAfter = performance.now() - started;
      clearInterval(ticker);
      assert.equal(Number(read.rows[0]!.n), 0, 'read before the change was written');
      assert.ok(readAfter < 100, `the read waited ${readAfter.toFixed(0)} ms`);
      assert.ok(wroteAfter >= 100, `the change was written after ${wroteAfter.toFixed(0)} ms, with the turn held 200 ms`);
      assert.ok(ticks >= 5, `${ticks} timer ticks while the change waited`);
      assert.deepEqual((await sql<{ x: number }>`select x from turn_probe`.execute(db)).rows.map((r) => r.x), [1]);
      // Given back after the commit: the writer's thread takes it at once.
      assert.equal(new WriteTurn(turn.buffer, 10).takeForWriter(), true);
      turn.release();
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
