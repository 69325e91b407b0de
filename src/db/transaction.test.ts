import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase, ENGINE, type TestDatabase } from '../../test/helpers.js';
import type { Db } from './database.js';
import { inTransaction, TRANSACTION_ATTEMPTS } from './transaction.js';

let tdb: TestDatabase;
let db: Db;

before(async () => {
  tdb = await createTestDatabase();
  db = tdb.handle.db;
  await sql`create table lock_pair (id integer primary key, n integer not null)`.execute(db);
  await sql`insert into lock_pair (id, n) values (1, 0), (2, 0)`.execute(db);
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
