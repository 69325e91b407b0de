import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ENGINE, TestClient, TestClock, createTestDatabase, createUser, login, testConfig, type TestDatabase } from '../../test/helpers.js';
import { buildApp } from '../app.js';
import type { Db } from '../db/database.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { createViewAuditQueue, startViewWriter } from './audit.queue.js';

let database: TestDatabase;
let db: Db;
before(async () => {
  database = await createTestDatabase();
  db = database.handle.db;
});
after(async () => database.drop());

const views = async (patientId: number) =>
  (await db.selectFrom('audit_log').select(['action', 'username']).where('patient_id', '=', patientId).where('action', 'like', '%view%').execute()).length;

describe('views of a record are written to the audit trail in groups', () => {
  test('queued views show on the patient page at once and are all written by the graceful shutdown', async () => {
    const app: FastifyInstance = await buildApp({ config: testConfig(), db, engine: database.handle.engine, clock: new TestClock(), logger: false, auditViewFlushMs: 60_000 });
    await app.ready();
    const user = await createUser(db);
    const client = new TestClient(app);
    await login(client, user.username, user.password);
    const p = await createPatient(db, { nombre: 'Visto' });
    for (let i = 0; i < 3; i++) assert.equal((await client.get(`/patients/${p.id}/`)).status, 200);
    assert.equal((await client.get(`/exams/${p.id}/`)).status, 200);
    assert.equal(await views(p.id), 0, 'nothing written before the group is due');
    assert.equal(app.auditViews.pendingForPatient(p.id).length, 4);
    assert.deepEqual(app.auditViews.pendingForPatient(p.id).map((r) => r.action), ['exam.view_clinical', 'patient.view', 'patient.view', 'patient.view']);
    await app.close();
    assert.equal(await views(p.id), 4);
  });

  test('a group is written after flushMs; a failed write is kept and retried', async () => {
    const errors: unknown[] = [];
    const p = await createPatient(db, { nombre: 'Grupo' });
    const entry = { at: new Date('2026-11-22T10:00:00.000Z'), actor: null, action: 'patient.view', entityType: 'patient', entityId: p.id, patientId: p.id };
    const queue = createViewAuditQueue(db, { flushMs: 20, onError: (e) => errors.push(e) });
    await queue.record(entry);
    await queue.record(entry);
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(await views(p.id), 2);
    assert.equal(errors.length, 0);
    // A row the database refuses (unknown user: foreign key) is reported and kept, and does not hold back the others.
    const bad = createViewAuditQueue(db, { flushMs: 60_000, onError: (e) => errors.push(e) });
    await bad.record({ ...entry, actor: { id: 999_999_999, username: 'nadie' } });
    await bad.record(entry);
    await bad.flush();
    assert.equal(errors.length, 1);
    assert.equal(bad.pendingForPatient(p.id).length, 1);
    assert.equal(await views(p.id), 3);
    await queue.close();
  });

  // PostgreSQL's commits never hold the event loop: the thread exists on SQLite only (decision 0017).
  if (ENGINE === 'sqlite') test('on SQLite a thread of its own writes the groups: shown while pending, committed, failures kept', async () => {
    const errors: unknown[] = [];
    const p = await createPatient(db, { nombre: 'Hilo' });
    const entry = { at: new Date('2026-11-22T10:00:00.000Z'), actor: null, action: 'patient.view', entityType: 'patient', entityId: p.id, patientId: p.id };
    const queue = createViewAuditQueue(db, { flushMs: 20, onError: (e) => errors.push(e), writer: startViewWriter(database.handle.sqliteFile!) });
    await queue.record(entry);
    await queue.record({ ...entry, actor: { id: 999_999_999, username: 'nadie' } });
    assert.equal(queue.pendingForPatient(p.id).length, 2, 'pending views show at once');
    for (let i = 0; i < 100 && (await views(p.id)) < 1; i++) await new Promise((r) => setTimeout(r, 20));
    await queue.flush();
    assert.equal(await views(p.id), 1, 'the good row was committed by the thread');
    assert.equal(errors.length >= 1, true, 'the refused row was reported');
    assert.equal(queue.pendingForPatient(p.id).length, 1, 'and kept for the next group');
    await queue.close();
  });

  if (ENGINE === 'sqlite') test('the thread writes a group of any size whole, each view with its own values, in order', async () => {
    const p = await createPatient(db, { nombre: 'Muchas' });
    const writer = startViewWriter(database.handle.sqliteFile!);
    // 100 = 64 + 32 + 4 rows a statement, then a group of one.
    for (const size of [100, 1]) {
      const rows = Array.from({ length: size }, (_, i) => ({
        at: `2026-11-26T10:00:${String(i % 60).padStart(2, '0')}.000Z`,
        user_id: null,
        username: `lector${size}-${i}`,
        action: 'exam.view_clinical',
        entity_type: 'patient',
        entity_id: p.id,
        patient_id: p.id,
        changes: JSON.stringify({ registros: i }),
        request_id: `req-${size}-${i}`,
      }));
      await writer.write(rows);
      const stored = await db
        .selectFrom('audit_log')
        .select(['at', 'user_id', 'username', 'action', 'entity_type', 'entity_id', 'patient_id', 'changes', 'request_id'])
        .where('patient_id', '=', p.id)
        .where('username', 'like', `lector${size}-%`)
        .orderBy('id')
        .execute();
      assert.deepEqual(stored, rows);
    }
    await writer.close();
  });
});
