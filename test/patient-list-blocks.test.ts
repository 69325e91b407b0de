// Pages of the patient lists from patient_list_blocks (migration 0441, decision 0171): every page, the first, the
// middle and the last, shows the rows OFFSET over the whole list shows, and the blocks' counts stay exact through
// every change that moves a patient in the list or in or out of the active ones, on both engines.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { searchPatients } from '../src/patients/patient.capita-list.repository.js';
import * as listBlocks from '../src/db/migrations/20261127_0441_patient_list_blocks.js';
import { normalizeForSearch } from '../src/shared/text.js';
import { createPatient } from './fixtures/patient.fixtures.js';
import { assertBlocksExact, assertEveryPageAsOffset, TODAY } from './fixtures/list-blocks.fixtures.js';
import { suiteDatabase } from './fixtures/suite-database.fixtures.js';

const SURNAMES = ['Álvarez Ruiz', 'Alvarado', 'Bernal', 'Cárdenas', 'Díaz', 'Gómez', 'González', 'Gonzalo', 'Pérez', 'Peña', 'Rodríguez', 'Zúñiga'];

describe('patient_list_blocks: list pages from the nearest block, as OFFSET shows them', () => {
  const t = suiteDatabase();

  it('every page of the active list and of every patient, through creations, renames, suspensions and deletions', async () => {
    const made: { id: number; ingresoId: number | null }[] = [];
    for (let i = 0; i < 67; i++) {
      made.push(await createPatient(t.handle.db, { apellido: SURNAMES[(i * 7) % SURNAMES.length]!, nombre: `Nombre ${i % 5}` }, { fechaInicio: i % 4 === 3 ? null : '2026-11-01' }));
    }
    // Blocks of a few patients, so that a page starts from a block other than the first.
    await listBlocks.fillListBlocks(t.db, 6);
    assert.ok(Number((await sql<{ n: number }>`select count(*) as n from patient_list_blocks`.execute(t.db)).rows[0]!.n) >= 5);
    await assertBlocksExact(t.db);
    await assertEveryPageAsOffset(t.db);

    // A rename across blocks, to before every block and after every other.
    const rename = async (id: number, apellido: string) =>
      t.db.updateTable('patients').set({ apellido, apellido_norm: normalizeForSearch(apellido) }).where('id', '=', id).execute();
    await rename(made[0]!.id, 'Aaron');
    await rename(made[1]!.id, 'Zzz');
    await rename(made[2]!.id, 'Gómez');
    // Out of the active list and back: a cycle suspended, a new one opened for a patient without one.
    await t.db.updateTable('ingresos').set({ estado: 'SUSPENDIDO' }).where('id', '=', made[4]!.ingresoId!).execute();
    await t.db.updateTable('ingresos').set({ estado: 'SUSPENDIDO' }).where('id', '=', made[5]!.ingresoId!).execute();
    await t.db.updateTable('ingresos').set({ estado: 'ACTIVO' }).where('id', '=', made[5]!.ingresoId!).execute();
    // New patients at both ends and in the middle; a patient without an Ingreso deleted.
    for (const apellido of ['Aa', 'Zzzz', 'Díaz', '  ']) made.push(await createPatient(t.handle.db, { apellido }));
    await t.db.deleteFrom('patients').where('id', '=', made[3]!.id).execute();
    await assertBlocksExact(t.db);
    await assertEveryPageAsOffset(t.db);
  });

  it('is cut again from the patients there when the migration runs, and its down undoes it', async () => {
    const pages = await searchPatients(t.handle.db, { query: '', onlyActive: true, page: 4, today: TODAY });
    await listBlocks.down(t.db);
    await listBlocks.up(t.db);
    await assertBlocksExact(t.db);
    assert.deepEqual(await searchPatients(t.handle.db, { query: '', onlyActive: true, page: 4, today: TODAY }), pages);
    await createPatient(t.handle.db, { apellido: 'Bernal' });
    await assertBlocksExact(t.db);
    await assertEveryPageAsOffset(t.db);
  });
});
