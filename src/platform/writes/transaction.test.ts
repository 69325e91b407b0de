import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase, ENGINE, type TestDatabase } from '../../../test/helpers.js';
import { openDatabase } from '../../db/connection.js';
import type { Db } from '../../db/database.js';
import SQLite from 'better-sqlite3';
import { GROUP_COMMIT_MAX, inTransaction, TRANSACTION_ATTEMPTS } from './transaction.js';

let tdb: TestDatabase;
let db: Db;

before(async () => {
  tdb = await createTestDatabase();
  db = tdb.handle.db;
  await sql`create table lock_pair (id integer primary key, n integer not null)`.execute(db);
  await sql`insert into lock_pair (id, n) values (1, 0), (2, 0)`.execute(db);
  await sql`create table group_item (id integer primary key, label text not null, pair_id integer references lock_pair (id))`.execute(db);
});
after(async () => tdb.drop());

const conflict = (code: string) => Object.assign(new Error(`conflict ${code}`), { code });

describe(`inTransaction (engine=${ENGINE})`, () => {
  test('commits what the work wrote and returns its result', async () => {
    const n = await inTransaction(db, async (trx) => {
      await sql`update lock_pair set n = n + 1 where id = 1`.execute(trx);
      return 7;
    });
    assert.equal(n, 7);
    const row = await sql<{ n: number }>`select n from lock_pair where id = 1`.execute(db);
    assert.equal(Number(row.rows[0]!.n), 1);
  });

  test('runs again after a deadlock or serialization failure, with nothing of the failed attempt kept', async () => {
    let calls = 0;
    const result = await inTransaction(db, async (trx) => {
      calls++;
      await sql`update lock_pair set n = n + 10 where id = 2`.execute(trx);
      if (calls === 1) throw conflict('40P01');
      if (calls === 2) throw conflict('40001');
      return 'ok';
    });
    assert.equal(result, 'ok');
    assert.equal(calls, 3);
    const row = await sql<{ n: number }>`select n from lock_pair where id = 2`.execute(db);
    assert.equal(Number(row.rows[0]!.n), 10, 'only the committed attempt counts');
  });

  test('gives up after the last attempt and never retries other errors', async () => {
    let calls = 0;
    await assert.rejects(
      inTransaction(db, async () => {
        calls++;
        throw conflict('40P01');
      }),
      /conflict 40P01/,
    );
    assert.equal(calls, TRANSACTION_ATTEMPTS);
    calls = 0;
    await assert.rejects(
      inTransaction(db, async () => {
        calls++;
        throw conflict('23505');
      }),
      /conflict 23505/,
    );
    assert.equal(calls, 1);
  });

  test('two transactions taking the same rows in opposite orders both commit', async () => {
    // PostgreSQL: both hold their first row before asking for the second, so it must abort one as a deadlock and
    // inTransaction runs it again. SQLite: the driver runs one transaction at a time on its one connection, so
    // they queue (waiting for each other there would wait forever) and neither needs a second attempt.
    const crossed = ENGINE === 'postgres';
    let attempts = 0;
    let arrived = 0;
    let release: () => void = () => undefined;
    const bothHoldTheirFirstRow = new Promise<void>((resolve) => (release = resolve));
    const crossing = (first: number, second: number) =>
      inTransaction(db, async (trx) => {
        attempts++;
        await sql`update lock_pair set n = n + 1 where id = ${first}`.execute(trx);
        if (crossed) {
          if (++arrived === 2) release();
          await bothHoldTheirFirstRow;
        }
        await sql`update lock_pair set n = n + 1 where id = ${second}`.execute(trx);
      });
    const before = await sql<{ n: number }>`select sum(n) as n from lock_pair`.execute(db);
    await Promise.all([crossing(1, 2), crossing(2, 1)]);
    const afterSum = await sql<{ n: number }>`select sum(n) as n from lock_pair`.execute(db);
    assert.equal(Number(afterSum.rows[0]!.n) - Number(before.rows[0]!.n), 4, 'both transactions committed once');
    assert.equal(attempts, crossed ? 3 : 2);
  });
});

// SQLite: transactions that arrive while one runs share one commit (decision 0018). PostgreSQL commits each alone.
if (ENGINE === 'sqlite') describe('inTransaction groups commits on SQLite', () => {
  /** A transaction that holds the connection until released, so that the ones started meanwhile queue up. */
  const holder = async () => {
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const running = new Promise<void>((resolve) => (started = resolve));
    const done = inTransaction(db, async (trx) => {
      await sql`insert into group_item (label) values ('holder')`.execute(trx);
      started();
      await released;
    });
    await running;
    return { release, done };
  };
  const labels = async () => (await sql<{ label: string }>`select label from group_item order by id`.execute(db)).rows.map((r) => r.label);
  const insert = (label: string) =>
    inTransaction(db, async (trx) => {
      const r = await sql<{ id: number }>`insert into group_item (label) values (${label}) returning id`.execute(trx);
      return Number(r.rows[0]!.id);
    });

  /** Rows committed, as another connection sees them. */
  const committedRows = (observer: SQLite.Database) => Number(observer.prepare('select count(*) from group_item').pluck().get());

  test('transactions waiting for the connection are committed together, each getting its own result', async () => {
    await sql`delete from group_item`.execute(db);
    const observer = new SQLite(tdb.handle.sqliteFile!, { readonly: true });
    try {
      const h = await holder();
      const ids = Array.from({ length: 20 }, (_, i) => insert(`item ${i}`));
      // When the first of the twenty hears its row is committed, the other nineteen are committed too.
      const seenByFirst = ids[0]!.then(() => committedRows(observer));
      h.release();
      await h.done;
      const got = await Promise.all(ids);
      assert.equal(new Set(got).size, 20, 'each caller gets the id of its own row');
      assert.equal(await seenByFirst, 21);
      assert.equal((await labels()).length, 21);
    } finally {
      observer.close();
    }
  });

  test('a transaction that fails inside a group leaves nothing, and the others of its group commit', async () => {
    await sql`delete from group_item`.execute(db);
    const h = await holder();
    const a = insert('a');
    const failing = inTransaction(db, async (trx) => {
      await sql`insert into group_item (label) values ('b')`.execute(trx);
      throw new Error('la validación falló');
    });
    const c = insert('c');
    h.release();
    await assert.rejects(failing, /la validación falló/);
    await Promise.all([h.done, a, c]);
    assert.deepEqual(await labels(), ['holder', 'a', 'c']);
  });

  test('a commit that fails fails every transaction of its group, and none of them is kept', async () => {
    await sql`delete from group_item`.execute(db);
    const h = await holder();
    const a = insert('a');
    // A foreign key checked only at commit: the group's commit is refused.
    const dangling = inTransaction(db, async (trx) => {
      await sql`pragma defer_foreign_keys = on`.execute(trx);
      await sql`insert into group_item (label, pair_id) values ('dangling', 999)`.execute(trx);
    });
    const c = insert('c');
    h.release();
    await h.done;
    for (const p of [a, dangling, c]) await assert.rejects(p, /FOREIGN KEY/);
    assert.deepEqual(await labels(), ['holder']);
    // The connection is usable again, and the next transaction commits alone.
    await insert('d');
    assert.deepEqual(await labels(), ['holder', 'd']);
  });

  test('a transaction holds the write lock from its start: no other connection commits between its reads and writes', async () => {
    await sql`delete from group_item`.execute(db);
    // The audit writer's thread is such a connection. Without waiting (timeout 0), its write is refused at once.
    const other = new SQLite(tdb.handle.sqliteFile!, { timeout: 0 });
    try {
      await inTransaction(db, async (trx) => {
        await sql`select count(*) as n from group_item`.execute(trx);
        assert.throws(() => other.prepare(`insert into group_item (label) values ('other')`).run(), /locked|busy/i);
        await sql`insert into group_item (label) values ('mine')`.execute(trx);
      });
      assert.deepEqual(await labels(), ['mine']);
      other.prepare(`insert into group_item (label) values ('other')`).run();
      assert.deepEqual(await labels(), ['mine', 'other']);
    } finally {
      other.close();
    }
  });

  test('with other server processes on the file (WORKERS > 1), a change waits for their write lock as a promise, then commits', async () => {
    await sql`delete from group_item`.execute(db);
    // Another process's connection, holding the write lock; it lets go only from a timer of this event loop.
    const other = new SQLite(tdb.handle.sqliteFile!);
    const shared = openDatabase(`sqlite:${tdb.handle.sqliteFile!}`, { sharedWithProcesses: true });
    try {
      other.prepare('begin immediate').run();
      other.prepare(`insert into group_item (label) values ('other')`).run();
      let ticks = 0;
      const ticking = setInterval(() => ticks++, 5);
      setTimeout(() => other.prepare('commit').run(), 150);
      const started = Date.now();
      await inTransaction(shared.db, async (trx) => {
        await sql`insert into group_item (label) values ('mine')`.execute(trx);
      });
      clearInterval(ticking);
      // Asleep in SQLite's busy handler, the timer that commits the other could not have run for 5 s.
      assert.ok(Date.now() - started < 2000, `waited ${Date.now() - started} ms`);
      assert.ok(ticks >= 10, `the event loop went on meanwhile (${ticks} ticks)`);
      assert.deepEqual(await labels(), ['other', 'mine']);
      // Its busy timeout is back for everything else.
      assert.equal(Number((await sql<{ timeout: number }>`pragma busy_timeout`.execute(shared.db)).rows[0]!.timeout), 5000);
    } finally {
      await shared.close();
      other.close();
    }
  });

  test(`a group carries at most ${GROUP_COMMIT_MAX} transactions; the rest follow in the next one`, async () => {
    await sql`delete from group_item`.execute(db);
    const observer = new SQLite(tdb.handle.sqliteFile!, { readonly: true });
    try {
      const h = await holder();
      const ids = Array.from({ length: GROUP_COMMIT_MAX + 1 }, (_, i) => insert(`item ${i}`));
      const seenByFirst = ids[0]!.then(() => committedRows(observer));
      h.release();
      await Promise.all([h.done, ...ids]);
      assert.equal(await seenByFirst, GROUP_COMMIT_MAX + 1, 'the holder and one full group');
      assert.equal((await labels()).length, GROUP_COMMIT_MAX + 2);
    } finally {
      observer.close();
    }
  });
});
