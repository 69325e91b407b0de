import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase, ENGINE, type TestDatabase } from '../../test/helpers.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { openDatabase, type DatabaseHandle } from './connection.js';
import type { Db } from './database.js';

// Named statements are PostgreSQL's (decision 0270); SQLite keeps its own cache of prepared statements.
if (ENGINE === 'postgres') {
  let tdb: TestDatabase;
  /** One connection, so that its prepared statements can be listed. */
  let one: DatabaseHandle;
  let db: Db;
  const CAP = 3;

  before(async () => {
    tdb = await createTestDatabase({ migrate: false });
    one = openDatabase(tdb.url, { poolSize: 1, preparedPerConnection: CAP });
    db = one.db;
    await sql`create table thing (id integer primary key, label text not null)`.execute(db);
    await sql`insert into thing (id, label) values (1, 'uno'), (2, 'dos'), (3, 'tres')`.execute(db);
  });
  after(async () => {
    await one.close();
    await tdb.drop();
  });

  /** The statements prepared on the connection (but the reads of this list themselves). */
  const prepared = async (): Promise<string[]> => {
    const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements
      where statement not like '%pg_prepared_statements%' order by prepare_time`.execute(db);
    return rows.map((r) => r.statement);
  };
  const labelOf = async (id: number, variant = 0) =>
    (await sql<{ label: string }>`select label from thing where id = ${id} and ${sql.lit(variant)} = ${sql.lit(variant)}`.execute(db)).rows[0]?.label;

  describe('named statements on PostgreSQL', () => {
    test('a statement is prepared from its second execution on a connection, once, and answers as before', async () => {
      assert.equal(await labelOf(1), 'uno');
      assert.deepEqual(await prepared(), [], 'run once: not prepared');
      assert.equal(await labelOf(2), 'dos');
      assert.equal(await labelOf(3), 'tres');
      assert.equal(await labelOf(9), undefined);
      const after = await prepared();
      assert.equal(after.length, 1);
      assert.match(after[0]!, /select label from thing where id = \$1/);
    });

    test('at most the bound per connection: the least recently used is deallocated, and runs again when asked', async () => {
      for (let variant = 1; variant <= CAP + 2; variant++) {
        assert.equal(await labelOf(1, variant), 'uno');
        assert.equal(await labelOf(2, variant), 'dos');
      }
      const kept = await prepared();
      assert.ok(kept.length <= CAP, `${kept.length} statements prepared`);
      // The first ones were evicted: asked again, they are prepared anew (under another name) and answer.
      for (let i = 0; i < 3; i++) assert.equal(await labelOf(3, 1), 'tres');
      assert.ok((await prepared()).length <= CAP);
    });

    test('statements other than reads and writes, several statements in one text, and patterns as arguments are sent unnamed', async () => {
      for (let i = 0; i < 7; i++) {
        const { rows } = await sql<{ id: number }>`select id from thing where label like ${'%o%'} order by id`.execute(db);
        assert.deepEqual(rows, [{ id: 1 }, { id: 2 }]);
        await sql`set local statement_timeout = '5s'`.execute(db);
        await sql`select 1 as n; select 2 as n`.execute(db);
      }
      assert.ok((await prepared()).every((s) => !/statement_timeout|select 2|like/.test(s)));
    });

    test('a statement whose table a migration changed is prepared again, outside and inside a transaction', async () => {
      await sql`create table changing (id integer primary key, a text)`.execute(db);
      await sql`insert into changing (id, a) values (1, 'x')`.execute(db);
      const read = (on: Db | Parameters<Parameters<typeof inTransaction>[1]>[0], id: number) =>
        sql<Record<string, unknown>>`select * from changing where id = ${id}`.execute(on);
      await read(db, 1);
      await read(db, 1);
      assert.ok((await prepared()).some((s) => s.includes('from changing')));

      // Another server's migration: the prepared statement's rows would change shape.
      const other = openDatabase(tdb.url, { poolSize: 1 });
      try {
        await sql`alter table changing add column b text default 'nuevo'`.execute(other.db);
        assert.deepEqual((await read(db, 1)).rows, [{ id: 1, a: 'x', b: 'nuevo' }]);
        await read(db, 1);

        await sql`alter table changing add column c integer default 7`.execute(other.db);
        let attempts = 0;
        const row = await inTransaction(db, async (trx) => {
          attempts++;
          await sql`update changing set a = 'y' where id = 1`.execute(trx);
          return (await read(trx, 1)).rows[0];
        });
        assert.deepEqual(row, { id: 1, a: 'y', b: 'nuevo', c: 7 });
        assert.equal(attempts, 2, 'the transaction ran again after the statement was found stale');
      } finally {
        await other.close();
      }
      // The stale copies were deallocated: one prepared statement for the text, within the bound.
      await read(db, 1);
      const kept = await prepared();
      assert.equal(kept.filter((s) => s.includes('from changing')).length, 1);
      assert.ok(kept.length <= CAP);
    });

    test('a failed transaction and its rollback leave the connection usable, its statements bounded', async () => {
      await assert.rejects(
        inTransaction(db, async (trx) => {
          await sql`select label from thing where id = ${1}`.execute(trx);
          await sql`select * from missing_table where id = ${1}`.execute(trx);
        }),
        /missing_table/,
      );
      for (let variant = 10; variant < 10 + CAP + 1; variant++) {
        assert.equal(await labelOf(2, variant), 'dos');
        assert.equal(await labelOf(2, variant), 'dos');
      }
      assert.ok((await prepared()).length <= CAP);
    });
  });
}
