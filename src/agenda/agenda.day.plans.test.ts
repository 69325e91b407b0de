// Someone's days keep one plan on PostgreSQL (decision 0385): the statement of a professional's or a resource's
// day and week, named on its connection, is planned once for every professional and day instead of at each request.
// It needs statistics like a clinic's: ten professionals with a visit a day over four thousand days, analysed, so
// that a professional’s day is a visit among a history of thousands.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase, createUser, ENGINE, type TestDatabase } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { visitRow } from '../../test/fixtures/agenda.fixtures.js';
import { addDays } from '../shared/dates.js';
import { listBookedVisits } from './agenda.day.repository.js';

const FIRST_DAY = '2024-01-02';
const DAYS = 4000;
const PROFESSIONALS = 10;

if (ENGINE === 'postgres') {
  describe('someone’s days keep one plan on PostgreSQL', () => {
    let database: TestDatabase;
    let professionals: number[];

    before(async () => {
      database = await createTestDatabase();
      const db = database.handle.db;
      const first = await createUser(db);
      // The other professionals copied from the first in one statement (a password hash each would take seconds).
      await sql`insert into users (username, username_key, password_hash, created_at)
        select username || '-' || g, username_key || '-' || g, password_hash, created_at from users, generate_series(1, ${PROFESSIONALS - 1}) as g
        where id = ${first.id}`.execute(db);
      professionals = (await db.selectFrom('users').select('id').where('username', 'like', `${first.username}%`).orderBy('id').execute()).map((u) => u.id);
      const p = await createPatient(db, { nombre: 'Plan' }, { fechaInicio: '2024-01-01' });
      const now = '2024-01-01T15:00:00.000Z';
      for (let from = 0; from < DAYS; from += 80) {
        const rows = [];
        for (let d = from; d < from + 80; d++) {
          for (const profesional of professionals) rows.push(visitRow({ patient: p, estado: 'AGENDADA', fecha: addDays(FIRST_DAY, d), hora: '08:00', profesional, now }));
        }
        await db.insertInto('citas').values(rows).execute();
      }
      await sql`analyze citas`.execute(db);
    });
    after(async () => database?.drop());

    /** The plans PostgreSQL made for the statement of someone's days on one connection over `requests` of them. */
    async function plansOver(requests: { desde: string; hasta: string; profesional: number }[]) {
      return database.handle.db.connection().execute(async (conn) => {
        const plans = async () => {
          const { rows } = await sql<{ generic_plans: number; custom_plans: number }>`
            select generic_plans, custom_plans from pg_prepared_statements where statement like 'select%"c"."inicio_min" >=%'`.execute(conn);
          assert.ok(rows.length <= 1, 'one named statement');
          return { generic: Number(rows[0]?.generic_plans ?? 0), custom: Number(rows[0]?.custom_plans ?? 0) };
        };
        const before = await plans();
        for (const r of requests) {
          const visits = await listBookedVisits(conn, { ...r, recurso: null });
          const days = (Date.parse(r.hasta) - Date.parse(r.desde)) / 86_400_000 + 1;
          assert.equal(visits.length, days, `${r.desde}…${r.hasta}: the professional's visits`);
        }
        const after = await plans();
        return { generic: after.generic - before.generic, custom: after.custom - before.custom };
      });
    }

    test('a professional’s day: planned for the first requests, then one plan kept for any day and professional', async () => {
      const days = Array.from({ length: 12 }, (_, i) => ({ desde: addDays(FIRST_DAY, 37 * i), hasta: addDays(FIRST_DAY, 37 * i), profesional: professionals[i % 2]! }));
      const plans = await plansOver(days);
      assert.ok(plans.generic >= 5, `kept plan used ${plans.generic} times, planned anew ${plans.custom}`);
    });

    test('a professional’s week: the same', async () => {
      const weeks = Array.from({ length: 12 }, (_, i) => ({ desde: addDays(FIRST_DAY, 70 * i), hasta: addDays(FIRST_DAY, 70 * i + 6), profesional: professionals[i % 2]! }));
      const plans = await plansOver(weeks);
      assert.ok(plans.generic >= 5, `kept plan used ${plans.generic} times, planned anew ${plans.custom}`);
    });
  });
}
