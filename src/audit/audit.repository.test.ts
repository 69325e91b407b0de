import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, createUser, ENGINE, type TestDatabase } from '../../test/helpers.js';
import { DomainError } from '../shared/domain-error.js';
import { recordAudit, recordAuditAlone } from './audit.repository.js';

// One database for the file: each test acts through users of its own.
let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(async () => {
  await database.drop();
});

describe('recordAudit and the acting user', () => {
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

describe('recordAuditAlone: an entry that records no change, committed on its own', () => {
  const entriesOf = (userId: number) =>
    database.handle.db.selectFrom('audit_log').select(['at', 'user_id', 'username', 'action', 'entity_type', 'entity_id', 'patient_id', 'changes', 'request_id']).where('user_id', '=', userId).execute();

  test('an export by an active user is stored whole, each value in its column', async () => {
    const user = await createUser(database.handle.db);
    const at = new Date('2026-11-28T10:11:12.345Z');
    const entry = { at, actor: user, action: 'export', entityType: 'export', entityId: 7, patientId: 12, changes: { exportacion: 'fhir', recursos: 3 }, requestId: 'req-9' };
    await recordAuditAlone(database.handle.db, entry);
    assert.deepEqual(await entriesOf(user.id), [
      { at: at.toISOString(), user_id: user.id, username: user.username, action: 'export', entity_type: 'export', entity_id: 7, patient_id: 12, changes: '{"exportacion":"fhir","recursos":3}', request_id: 'req-9' },
    ]);
  });

  test('an export by a deactivated user is refused and nothing is stored', async () => {
    const db = database.handle.db;
    const user = await createUser(db);
    await db.updateTable('users').set({ is_active: 0 }).where('id', '=', user.id).execute();
    await assert.rejects(recordAuditAlone(db, { at: new Date(), actor: user, action: 'export', entityType: 'export' }), (err: unknown) => err instanceof DomainError && err.kind === 'actor_inactive');
    assert.deepEqual(await entriesOf(user.id), []);
  });

  test('a failed login and a logout of a deactivated user, and an entry of nobody, are stored', async () => {
    const db = database.handle.db;
    const user = await createUser(db);
    await db.updateTable('users').set({ is_active: 0 }).where('id', '=', user.id).execute();
    await recordAuditAlone(db, { at: new Date(), actor: user, action: 'login_failed', entityType: 'user', entityId: user.id });
    await recordAuditAlone(db, { at: new Date(), actor: user, action: 'logout', entityType: 'user', entityId: user.id });
    await recordAuditAlone(db, { at: new Date(), actor: null, action: 'login_failed', entityType: 'user', changes: { username: 'nadie-alone' } });
    assert.deepEqual((await entriesOf(user.id)).map((e) => e.action), ['login_failed', 'logout']);
    const nobody = await db.selectFrom('audit_log').select('user_id').where('changes', '=', '{"username":"nadie-alone"}').execute();
    assert.deepEqual(nobody, [{ user_id: null }]);
  });

  // SQLite runs one transaction at a time: only PostgreSQL can meet a deactivation in progress.
  if (ENGINE === 'postgres') {
    test('an export waits for a deactivation in progress and is refused once it commits', async () => {
      const db = database.handle.db;
      const user = await createUser(db);
      let exported: Promise<unknown> | undefined;
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ is_active: 0 }).where('id', '=', user.id).execute();
        exported = recordAuditAlone(db, { at: new Date(), actor: user, action: 'export', entityType: 'export' }).then(
          () => 'stored',
          (err: unknown) => (err instanceof DomainError ? err.kind : err),
        );
        // The export's statement meets the deactivation's row lock and waits for its commit.
        await new Promise((resolve) => setTimeout(resolve, 200));
      });
      assert.equal(await exported, 'actor_inactive');
      assert.deepEqual(await entriesOf(user.id), []);
    });
  }
});
