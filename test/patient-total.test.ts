// The count of every patient kept by triggers (migration 0340, decision 0122): the lists of every patient (the
// follow page) show the right number of pages without counting the table, on both engines.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { findListPage } from '../src/patients/patient.list.repository.js';
import * as patientTotal from '../src/db/migrations/20261127_0340_patient_total.js';
import { createPatient } from './fixtures/patient.fixtures.js';
import { suiteDatabase } from './fixtures/suite-database.fixtures.js';

const total = async (db: Kysely<any>) => Number((await sql<{ n: number }>`select cast(coalesce(sum(n), 0) as integer) as n from patient_total`.execute(db)).rows[0]!.n);

describe('patient_total: every patient counted without a scan', () => {
  const t = suiteDatabase();

  it('follows every patient created and deleted, and gives the list of all patients its pages', async () => {
    const db = t.handle.db;
    assert.equal(await total(db), 0);
    const made: { id: number }[] = [];
    for (let i = 0; i < 23; i++) made.push(await createPatient(db, { apellido: `Total ${String(i).padStart(2, '0')}` }, { fechaInicio: i % 2 ? null : '2026-11-01' }));
    assert.equal(await total(db), 23);
    // The follow page's list: every patient, active or not.
    const all = await findListPage(db, { query: '', onlyActive: false, page: 3 });
    assert.equal(all.total, 23);
    assert.equal(all.pageCount, 3);
    assert.equal(all.rows.length, 3);
    await db.deleteFrom('patients').where('id', '=', made[0]!.id).execute().catch(async () => {
      // A patient with an Ingreso cannot be deleted (its rows refer to it): delete one without.
      await db.deleteFrom('patients').where('id', '=', made[1]!.id).execute();
    });
    assert.equal(await total(db), 22);
    assert.equal((await findListPage(db, { query: '', onlyActive: false, page: 1 })).total, 22);
  });

  it('is counted from the patients already there when the migration runs, and its down undoes it', async () => {
    const db = t.db;
    const before = await total(db);
    await patientTotal.down(db);
    await patientTotal.up(db);
    assert.equal(await total(db), before);
    await createPatient(t.handle.db);
    assert.equal(await total(db), before + 1);
  });
});
