import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, createUser, type TestDatabase } from '../../test/helpers.js';
import { DomainError } from '../shared/domain-error.js';
import { recordAudit } from './audit.repository.js';

describe('recordAudit and the acting user', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database.drop();
  });

  const countEntries = async (userId: number) =>
    (await database.handle.db.selectFrom('audit_log').select('id').where('user_id', '=', userId).execute()).length;

  test('a change by an active user is recorded', async () => {
    const db = database.handle.db;
    const user = await createUser(db);
    await db.transaction().execute((trx) => recordAudit(trx, { at: new Date(), actor: user, action: 'patient.create' }));
    assert.equal(await countEntries(user.id), 1);
  });

  test('a change by a deactivated user is refused and the whole transaction rolls back', async () => {
    const db = database.handle.db;
    const user = await createUser(db);
    await db.updateTable('users').set({ is_active: 0 }).where('id', '=', user.id).execute();
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ last_login_at: '2026-01-01T00:00:00.000Z' }).where('id', '=', user.id).execute();
        await recordAudit(trx, { at: new Date(), actor: user, action: 'patient.create' });
      }),
      (err: unknown) => err instanceof DomainError && err.kind === 'actor_inactive',
    );
    assert.equal(await countEntries(user.id), 0);
    const row = await db.selectFrom('users').select('last_login_at').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.last_login_at, null, 'the change made before the audit entry was rolled back');
  });

  test('a failed login and a logout of a deactivated user are still recorded', async () => {
    const db = database.handle.db;
    const user = await createUser(db);
    await db.updateTable('users').set({ is_active: 0 }).where('id', '=', user.id).execute();
    await recordAudit(db, { at: new Date(), actor: user, action: 'login_failed' });
    await recordAudit(db, { at: new Date(), actor: user, action: 'logout' });
    assert.equal(await countEntries(user.id), 2);
  });
});
