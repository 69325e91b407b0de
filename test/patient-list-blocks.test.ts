// Pages of the patient lists from patient_list_blocks (migration 0441, decision 0171): every page, the first, the
// middle and the last, shows the rows OFFSET over the whole list shows, and the blocks' counts stay exact through
// every change that moves a patient in the list or in or out of the active ones, on both engines.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { PAGE_SIZE, searchPatients } from '../src/patients/patient.repository.js';
import * as listBlocks from '../src/db/migrations/20261127_0441_patient_list_blocks.js';
import { normalizeForSearch } from '../src/shared/text.js';
import { createPatient } from './fixtures/patient.fixtures.js';
import { createTestDatabase, type TestDatabase } from './helpers.js';

const TODAY = '2026-11-26';
const SURNAMES = ['Álvarez Ruiz', 'Alvarado', 'Bernal', 'Cárdenas', 'Díaz', 'Gómez', 'González', 'Gonzalo', 'Pérez', 'Peña', 'Rodríguez', 'Zúñiga'];

/** The list as OFFSET over the whole order reads it: what every page must show. */
async function offsetPage(db: Kysely<any>, active: boolean, page: number): Promise<{ ids: number[]; total: number }> {
  const where = active ? sql`where activo_desde is not null` : sql``;
  const total = Number((await sql<{ n: number }>`select cast(count(*) as integer) as n from patients ${where}`.execute(db)).rows[0]!.n);
  const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const offset = (Math.min(Math.max(page, 1), last) - 1) * PAGE_SIZE;
  const { rows } = await sql<{ id: number }>`select id from patients ${where}
    order by apellido_norm, nombre_norm, id limit ${PAGE_SIZE} offset ${offset}`.execute(db);
  return { ids: rows.map((r) => Number(r.id)), total };
}

async function assertEveryPageAsOffset(db: Kysely<any>): Promise<void> {
  for (const active of [true, false]) {
    const { total } = await offsetPage(db, active, 1);
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    for (let page = 0; page <= pages + 1; page++) {
      const expected = await offsetPage(db, active, page);
      const got = await searchPatients(db as never, { query: '', onlyActive: active, page, today: TODAY });
      assert.equal(got.total, expected.total, `total, active ${active}`);
      assert.deepEqual(got.rows.map((r) => r.id), expected.ids, `page ${page} of ${pages}, active ${active}`);
    }
  }
}

/** Each block's counts against the patients between its start and the next block's. */
async function assertBlocksExact(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ start_key: string; n_all: number; n_active: number; real_all: number; real_active: number }>`
    select b.start_key, b.n_all, b.n_active,
      (select count(*) from patients p where p.apellido_norm >= b.start_key
        and not exists (select 1 from patient_list_blocks c where c.start_key > b.start_key and c.start_key <= p.apellido_norm)) as real_all,
      (select count(*) from patients p where p.activo_desde is not null and p.apellido_norm >= b.start_key
        and not exists (select 1 from patient_list_blocks c where c.start_key > b.start_key and c.start_key <= p.apellido_norm)) as real_active
    from patient_list_blocks b order by b.start_key`.execute(db);
  assert.ok(rows.length > 0 && rows[0]!.start_key === '', 'the first block starts before every text');
  for (const r of rows) {
    assert.deepEqual([Number(r.n_all), Number(r.n_active)], [Number(r.real_all), Number(r.real_active)], `block ${JSON.stringify(r.start_key)}`);
  }
}

describe('patient_list_blocks: list pages from the nearest block, as OFFSET shows them', () => {
  let t: TestDatabase;
  let db: Kysely<any>;
  before(async () => {
    t = await createTestDatabase();
    db = t.handle.db;
  });
  after(async () => t.drop());

  it('every page of the active list and of every patient, through creations, renames, suspensions and deletions', async () => {
    const made: { id: number; ingresoId: number | null }[] = [];
    for (let i = 0; i < 67; i++) {
      made.push(await createPatient(t.handle.db, { apellido: SURNAMES[(i * 7) % SURNAMES.length]!, nombre: `Nombre ${i % 5}` }, { fechaInicio: i % 4 === 3 ? null : '2026-11-01' }));
    }
    // Blocks of a few patients, so that a page starts from a block other than the first.
    await listBlocks.fillListBlocks(db, 6);
    assert.ok(Number((await sql<{ n: number }>`select count(*) as n from patient_list_blocks`.execute(db)).rows[0]!.n) >= 5);
    await assertBlocksExact(db);
    await assertEveryPageAsOffset(db);

    // A rename across blocks, to before every block and after every other.
    const rename = async (id: number, apellido: string) =>
      db.updateTable('patients').set({ apellido, apellido_norm: normalizeForSearch(apellido) }).where('id', '=', id).execute();
    await rename(made[0]!.id, 'Aaron');
    await rename(made[1]!.id, 'Zzz');
    await rename(made[2]!.id, 'Gómez');
    // Out of the active list and back: a cycle suspended, a new one opened for a patient without one.
    await db.updateTable('ingresos').set({ estado: 'SUSPENDIDO' }).where('id', '=', made[4]!.ingresoId!).execute();
    await db.updateTable('ingresos').set({ estado: 'SUSPENDIDO' }).where('id', '=', made[5]!.ingresoId!).execute();
    await db.updateTable('ingresos').set({ estado: 'ACTIVO' }).where('id', '=', made[5]!.ingresoId!).execute();
    // New patients at both ends and in the middle; a patient without an Ingreso deleted.
    for (const apellido of ['Aa', 'Zzzz', 'Díaz', '  ']) made.push(await createPatient(t.handle.db, { apellido }));
    await db.deleteFrom('patients').where('id', '=', made[3]!.id).execute();
    await assertBlocksExact(db);
    await assertEveryPageAsOffset(db);
  });

  it('is cut again from the patients there when the migration runs, and its down undoes it', async () => {
    const pages = await searchPatients(t.handle.db, { query: '', onlyActive: true, page: 4, today: TODAY });
    await listBlocks.down(db);
    await listBlocks.up(db);
    await assertBlocksExact(db);
    assert.deepEqual(await searchPatients(t.handle.db, { query: '', onlyActive: true, page: 4, today: TODAY }), pages);
    await createPatient(t.handle.db, { apellido: 'Bernal' });
    await assertBlocksExact(db);
    await assertEveryPageAsOffset(db);
  });
});
