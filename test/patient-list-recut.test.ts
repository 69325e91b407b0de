// The list blocks cut again by the server as the clinic grows (decision 0172): a database that starts empty, with a
// small block target, grows past it; once the check runs, the blocks are cut again, every page still equals OFFSET
// and the counts are exact; on PostgreSQL a write that runs while the blocks are cut again stays counted.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { listBlocksUpkeep, listBlockCounts, recutListBlocks } from '../src/patients/list-blocks.repository.js';
import { createPatient, newPatientRow } from './fixtures/patient.fixtures.js';
import { assertBlocksExact, assertEveryPageAsOffset } from './fixtures/list-blocks.fixtures.js';
import { ENGINE } from './helpers.js';
import { suiteDatabase } from './fixtures/suite-database.fixtures.js';

const SURNAMES = ['Acosta', 'Bernal', 'Cárdenas', 'Díaz', 'Gómez', 'González', 'Morales', 'Pérez', 'Peña', 'Rodríguez', 'Zúñiga'];
const TARGET = 4;

describe('patient_list_blocks cut again when the clinic outgrows them', () => {
  const t = suiteDatabase();

  it('a database that started empty gets blocks of the target once the check runs, pages and counts unchanged', async () => {
    const upkeep = listBlocksUpkeep(t.handle.db, TARGET);
    assert.deepEqual(await listBlockCounts(t.handle.db), [0], 'an empty database has the one block');
    assert.equal(await upkeep(), false);
    const withoutIngreso: number[] = [];
    for (let i = 0; i < 45; i++) {
      const apellido = `${SURNAMES[(i * 5) % SURNAMES.length]!} ${String.fromCharCode(65 + (i % 7))}`;
      const made = await createPatient(t.handle.db, { apellido, nombre: `N ${i}` }, { fechaInicio: i % 3 === 0 ? '2026-11-01' : null });
      if (made.ingresoId === null) withoutIngreso.push(made.id);
    }
    assert.equal((await listBlockCounts(t.handle.db)).length, 1, 'the triggers count, they do not cut');
    await assertEveryPageAsOffset(t.db);

    assert.equal(await upkeep(), true);
    const counts = await listBlockCounts(t.handle.db);
    assert.ok(counts.length >= 8, `blocks: ${counts.join(', ')}`);
    await assertBlocksExact(t.db);
    await assertEveryPageAsOffset(t.db);
    assert.equal(await upkeep(), false, 'blocks near the target are left as they are');

    // Many deletions leave many small blocks: they are cut again too.
    await t.db.deleteFrom('patients').where('id', 'in', withoutIngreso).execute();
    await assertBlocksExact(t.db);
    await assertEveryPageAsOffset(t.db);
    assert.equal(await upkeep(), true);
    assert.ok((await listBlockCounts(t.handle.db)).length <= 5);
    await assertBlocksExact(t.db);
    await assertEveryPageAsOffset(t.db);
  });

  it('a patient written while the blocks are cut again stays counted', async () => {
    if (ENGINE === 'postgres') {
      // A write in flight: its trigger has counted the patient in a block row, uncommitted; the re-cut waits for it.
      const writer = await t.db.startTransaction().execute();
      await writer.insertInto('patients').values(newPatientRow({ apellido: 'Zapata', nombre: 'En vuelo' })).execute();
      const recut = recutListBlocks(t.handle.db, TARGET);
      for (;;) {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_locks where not granted`.execute(t.db);
        if (rows[0]!.n > 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await writer.commit().execute();
      await recut;
      // And a write that arrives while the re-cut holds the table waits for it.
      await Promise.all([recutListBlocks(t.handle.db, TARGET), createPatient(t.handle.db, { apellido: 'Abad', nombre: 'Durante' })]);
    } else {
      // SQLite: the re-cut is one write transaction; a write arriving meanwhile is committed before or after it.
      await Promise.all([recutListBlocks(t.handle.db, TARGET), createPatient(t.handle.db, { apellido: 'Zapata', nombre: 'Durante' })]);
      await Promise.all([createPatient(t.handle.db, { apellido: 'Abad', nombre: 'Antes' }), recutListBlocks(t.handle.db, TARGET)]);
    }
    const real = Number((await sql<{ n: number }>`select count(*) as n from patients`.execute(t.db)).rows[0]!.n);
    assert.equal((await listBlockCounts(t.handle.db)).reduce((a, b) => a + b, 0), real);
    await assertBlocksExact(t.db);
    await assertEveryPageAsOffset(t.db);
  });
});
