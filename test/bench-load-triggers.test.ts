// The benchmark's fast load skips the triggers on INSERT it knows how to stand in for (bench/load-triggers.ts).
// Its list is derived from the migrations and the table registry; these tests fail when the database holds a
// trigger on INSERT into the loader's tables that the list does not name (a new migration's trigger would make
// the load fall back to row-by-row, or, worse, be skipped unknown), or when the list names one that no longer exists.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { insertTriggersOf, skippedInsertTriggers, UNTRIGGERED_TABLES, unknownInsertTriggers } from '../bench/load-triggers.js';
import { ENGINE } from './helpers.js';
import { suiteDatabase } from './fixtures/suite-database.fixtures.js';

describe('bench:data fast load: the triggers it skips', () => {
  const t = suiteDatabase();

  it('knows every trigger on INSERT into the tables it loads without triggers', async () => {
    assert.deepEqual(await unknownInsertTriggers(t.db, ENGINE), []);
  });

  it('names no trigger the database does not hold (the list never goes stale)', async () => {
    const held = new Set((await insertTriggersOf(t.db, ENGINE)).map((trigger) => trigger.name));
    const stale = Object.keys(skippedInsertTriggers(ENGINE)).filter((name) => !held.has(name));
    assert.deepEqual(stale, []);
  });

  it('reports a trigger on INSERT that a new migration would add', async () => {
    if (ENGINE === 'postgres') {
      await sql`create function bench_probe_insert() returns trigger language plpgsql as $$ begin return new; end $$`.execute(t.db);
      await sql`create trigger bench_probe_insert before insert on ingreso_historial for each row execute function bench_probe_insert()`.execute(t.db);
    } else {
      await sql`create trigger bench_probe_insert after insert on ingreso_historial begin select 1; end`.execute(t.db);
    }
    try {
      assert.deepEqual(await unknownInsertTriggers(t.db, ENGINE), ['ingreso_historial.bench_probe_insert']);
    } finally {
      await sql.raw(ENGINE === 'postgres' ? 'drop trigger bench_probe_insert on ingreso_historial' : 'drop trigger bench_probe_insert').execute(t.db);
    }
    assert.deepEqual(await unknownInsertTriggers(t.db, ENGINE), []);
  });

  it('leaves the patients to their triggers', () => {
    assert.ok(!UNTRIGGERED_TABLES.includes('patients'));
    assert.ok(Object.keys(skippedInsertTriggers(ENGINE)).every((name) => !name.startsWith('patients.')));
  });
});
